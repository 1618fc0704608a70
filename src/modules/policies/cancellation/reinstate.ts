import { now as clockNow } from '../../../lib/clock.ts';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Cancellation } from '../../../generated/prisma/client.ts';
import { fromDbDate, nairobiIso, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { InvalidStateError, ValidationError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { DoubleInsuranceError } from '../../certificates/certificate.service.ts';
import { queueCertificateIssue } from '../../certificates/issuance.ts';
import { emitEvent } from '../../events/event.service.ts';
import { breakdownOf, movePolicyPremium, raiseDebitNote, reverseCreditNote } from '../notes.service.ts';
import { findCoverClash } from '../policy.service.ts';
import { POLICY_RULES, transitionPolicy } from '../policy-state.ts';
import type { RefundJson } from './refund.ts';
import { clientNoOf, findVisiblePolicy, lockPolicy, MAX_NOTE, noteRef, type PolicyRow } from './shared.ts';

type DebitNote = Awaited<ReturnType<typeof raiseDebitNote>>;

/** Reverses the latest confirmed cancellation within POLICY_RULES.reinstatementDays of its confirmation. */
export async function reinstate(ctx: Context, policyUuid: string, noteText?: string | null) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  const note = reinstatementNote(noteText);
  const result = await ctx.tx(
    async (tx) => {
      const { policy, c } = await loadReversible(ctx, tx, policyUuid);
      const refund = c.refund as unknown as RefundJson;
      await assertNoCoverSince(ctx, tx, policy, c, refund);
      await restorePremiumItems(tx, refund.items, c.id);
      const debitNote = await rechargeCredit(tx, policy, c);
      await reactivatePolicy(tx, policy, { note, cancellationUuid: c.uuid, userId: actor.userId });
      const now = clockNow();
      const updated = await tx.cancellation.update({
        where: { id: c.id },
        data: { status: 'reinstated', reinstatedAt: now, reinstatementNoteId: debitNote?.id ?? null },
      });
      await announce(ctx, tx, policy, c, { debitNote, note, now });
      return { cancellation: updated, policy };
    },
    { timeout: 20_000 },
  );
  // The certificates module re-certifies the reinstated cover; never throws (a lost queueing is caught by its sweep).
  await ctx.afterCommit(() => queueCertificateIssue(ctx.app, result.policy));
  return result.cancellation;
}

function reinstatementNote(noteText: string | null | undefined): string | null {
  const note = noteText == null ? null : String(noteText).trim() || null;
  if (note && note.length > MAX_NOTE)
    throw new ValidationError([{ field: 'note', message: `at most ${MAX_NOTE} characters` }]);
  return note;
}

/** The locked cancelled policy and its latest confirmed cancellation, still inside the reinstatement window; else 409. */
async function loadReversible(ctx: Context, tx: Tx, policyUuid: string) {
  const visible = await findVisiblePolicy(ctx, tx, { uuid: policyUuid });
  const policy = await lockPolicy(tx, visible.id);
  if (policy.status !== 'cancelled')
    throw new InvalidStateError(`Only a cancelled policy can be reinstated; this one is ${policy.status}`);
  const c = await tx.cancellation.findFirst({
    where: { policyId: policy.id, status: 'confirmed' },
    orderBy: [{ confirmedAt: 'desc' }, { id: 'desc' }],
  });
  if (!c || !c.confirmedAt) throw new InvalidStateError('This policy has no confirmed cancellation to reverse');
  const deadline = new Date(c.confirmedAt.getTime() + POLICY_RULES.reinstatementDays * 86_400_000);
  if (clockNow().getTime() > deadline.getTime()) {
    throw new InvalidStateError(
      `A cancellation can be reversed within ${POLICY_RULES.reinstatementDays} days of its confirmation; this one was confirmed ${nairobiIso(c.confirmedAt)} (window closed ${nairobiIso(deadline)})`,
    );
  }
  return { policy, c };
}

/** The cover comes back from the effective date: a vehicle insured elsewhere since then cannot be covered twice. */
async function assertNoCoverSince(ctx: Context, tx: Tx, policy: PolicyRow, c: Cancellation, refund: RefundJson) {
  const eff = fromDbDate(c.effectiveDate);
  const regNos = [...new Set(refund.items.flatMap((i) => (i.regno ? [i.regno] : [])))];
  if (!regNos.length) return;
  const clash = await findCoverClash(
    tx,
    { regNos, from: eff, to: fromDbDate(policy.endDate), excludePolicyId: policy.id },
    ctx.principal!,
  );
  if (clash)
    throw new DoubleInsuranceError(
      `${clash.regNo} has had other cover for these dates since the cancellation (${clash.policyRef})`,
      null,
    );
}

/** Each item the cancellation ended gets its end back (only while it is still the one that ended it). */
async function restorePremiumItems(tx: Tx, items: RefundJson['items'], cancellationId: number) {
  for (const it of items) {
    await tx.policyPremiumItem.updateMany({
      where: { id: it.premium_item_id, endedByCancellationId: cancellationId },
      data: { toDate: toDbDate(it.to), endedByCancellationId: null },
    });
  }
}

/**
 * The cancellation's credit note reversed and its amount owed again on a reinstatement debit note (credited with
 * what the reversal took back), the policy's figures raised by it; none when the cancellation raised no credit.
 */
async function rechargeCredit(tx: Tx, policy: PolicyRow, c: Cancellation): Promise<DebitNote | null> {
  if (!c.creditNoteId) return null;
  const ref = noteRef(policy);
  const cn = await tx.creditNote.findUniqueOrThrow({ where: { id: c.creditNoteId } });
  const back = await reverseCreditNote(tx, ref, cn.id);
  const bd = cn.breakdown as { levies?: { code: string; name: string; amount_minor: string }[] };
  const levies = (bd.levies ?? []).map((l) => ({
    code: l.code,
    name: l.name,
    amountMinor: BigInt(l.amount_minor),
  }));
  const debitNote = await raiseDebitNote(tx, ref, {
    kind: 'reinstatement',
    amountMinor: cn.amountMinor,
    dueOn: toDbDate(todayNairobi()),
    creditedMinor: back.appliedMinor + back.recoveredMinor,
    breakdown: breakdownOf(
      { basicMinor: cn.basicMinor, levies, taxesMinor: cn.taxesMinor, totalMinor: cn.amountMinor },
      {
        operation: 'reinstatement',
        cancellation_uuid: c.uuid,
        reverses: cn.number,
        applied_minor: back.appliedMinor.toString(),
        recovered_minor: back.recoveredMinor.toString(),
        unrecovered_minor: back.unrecoveredMinor.toString(),
      },
    ),
  });
  await movePolicyPremium(tx, policy, 1n, cn.basicMinor, levies);
  return debitNote;
}

/** cancelled → active and the revision bumped. */
async function reactivatePolicy(
  tx: Tx,
  policy: PolicyRow,
  a: { note: string | null; cancellationUuid: string; userId: number },
) {
  const moved = await transitionPolicy(tx, policy.id, 'cancelled', 'active', {
    tenantId: policy.tenantId,
    source: 'reinstatement',
    reason: a.note ?? `reverses cancellation ${a.cancellationUuid}`,
    actorUserId: a.userId,
  });
  if (!moved) throw new InvalidStateError('The policy is no longer cancelled');
  await tx.policy.update({ where: { id: policy.id }, data: { revision: { increment: 1 } } });
}

/** `policy.reinstated` and its audit record. */
async function announce(
  ctx: Context,
  tx: Tx,
  policy: PolicyRow,
  c: Cancellation,
  a: { debitNote: DebitNote | null; note: string | null; now: Date },
) {
  const clientNo = await clientNoOf(tx, policy.clientId);
  await emitEvent(ctx, tx, policy.tenantId, 'policy.reinstated', {
    policy_no: policy.policyNo,
    policy_uuid: policy.uuid,
    client_no: clientNo,
    cancellation_uuid: c.uuid,
    previous_status: 'cancelled',
    debit_note_no: a.debitNote?.number ?? null,
    reinstated_at: nairobiIso(a.now),
  });
  await recordAudit(ctx, tx, policy.tenantId, {
    action: 'policy.reinstated',
    entityType: 'policy',
    entityId: policy.uuid,
    changes: { cancellation_uuid: c.uuid, debit_note_no: a.debitNote?.number ?? null, note: a.note },
  });
}
