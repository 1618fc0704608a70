import { now as clockNow } from '../../../lib/clock.ts';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Cancellation } from '../../../generated/prisma/client.ts';
import { addDays, fromDbDate, nairobiIso, toDbDate } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { InvalidStateError, PreviewExpiredError, PreviewStaleError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { requestCertificateCancellation } from '../../certificates/issuance.ts';
import { emitEvent } from '../../events/event.service.ts';
import { isMotor } from '../../motor/motor-policy.ts';
import { breakdownOf, movePolicyPremium, raiseCreditNote } from '../notes.service.ts';
import { transitionPolicy } from '../policy-state.ts';
import type { Priced } from '../proration.ts';
import { priceCancellation, type RefundJson, refundSplit } from './refund.ts';
import {
  CANCELLATION_REASONS,
  type CancellationReason,
  clientNoOf,
  findVisibleCancellation,
  lockPolicy,
  noteRef,
  type PolicyRow,
} from './shared.ts';

type CreditNote = Awaited<ReturnType<typeof raiseCreditNote>>;

/** Who confirms: a user through the API, or the service itself (a premium-finance default: no user, `schedule`). */
export interface ConfirmedBy {
  userId: number | null;
  source: 'api' | 'schedule';
}

/**
 * Confirms a quoted cancellation under a lock on the policy row: items ended at c − 1, credit note raised (applied to
 * open debit notes, the rest to whom the policy refunds: client credit or the lender), policy totals reduced,
 * active → cancelled, registry certificates cancelled, `policy.cancelled`.
 */
export async function confirm(ctx: Context, uuid: string, policyUuid?: string | null) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  return ctx.tx(
    async (tx) => {
      const found = await findVisibleCancellation(ctx, tx, uuid, policyUuid);
      return confirmQuoted(ctx, tx, found.c, { userId: actor.userId, source: 'api' });
    },
    { timeout: 20_000 },
  );
}

/** The confirmation itself, in the caller's transaction, of a cancellation the caller already found. */
export async function confirmQuoted(ctx: Context, tx: Tx, found: { id: number; policyId: number }, by: ConfirmedBy) {
  const { policy, c } = await loadConfirmable(tx, found);
  const eff = fromDbDate(c.effectiveDate);
  const { refund, credit } = await repriceUnchanged(tx, policy, c, eff);
  await endPremiumItems(tx, refund.items, eff, c.id);
  const note = await raiseRefundCredit(tx, policy, c, { eff, refund, credit });
  const actual = refundAsApplied(refund, note);
  const reason = c.reason as CancellationReason;
  await cancelPolicy(ctx, tx, policy, { reason, requestedBy: c.requestedBy, by });
  const now = clockNow();
  const updated = await tx.cancellation.update({
    where: { id: c.id },
    data: {
      status: 'confirmed',
      confirmedAt: now,
      creditNoteId: note?.id ?? null,
      refund: actual as never,
      refundMinor: note?.refundedMinor ?? 0n,
    },
  });
  await announce(ctx, tx, policy, c, { reason, eff, note, credit, actual, now });
  return updated;
}

/** The cancellation and its locked policy: quoted, unexpired, priced on the current revision, policy active; else 409. */
async function loadConfirmable(tx: Tx, found: { id: number; policyId: number }) {
  const policy = await lockPolicy(tx, found.policyId);
  const c = await tx.cancellation.findUniqueOrThrow({ where: { id: found.id } });
  if (c.status !== 'quoted')
    throw new InvalidStateError(`This cancellation is ${c.status}; only a quoted one can be confirmed`);
  if (c.expiresAt.getTime() < clockNow().getTime())
    throw new PreviewExpiredError(`This preview expired at ${nairobiIso(c.expiresAt)}; preview again`);
  if (c.basedOnRevision !== policy.revision)
    throw new PreviewStaleError('The policy changed since this cancellation was priced; preview again');
  if (policy.status !== 'active')
    throw new InvalidStateError(`Only an active policy can be cancelled; this one is ${policy.status}`);
  return { policy, c };
}

/** Prices again at the quoted date: a levy rate changed since the preview makes it stale. */
async function repriceUnchanged(tx: Tx, policy: PolicyRow, c: Cancellation, eff: string) {
  const priced = await priceCancellation(tx, policy, eff);
  const quoted = c.refund as unknown as RefundJson;
  if (priced.refund.credit_total_minor !== quoted.credit_total_minor)
    throw new PreviewStaleError('The levy rates changed since this cancellation was priced; preview again');
  return priced;
}

/** Each live item ends the day before the effective date (reinstatement restores its `to` from the refund). */
async function endPremiumItems(tx: Tx, items: RefundJson['items'], eff: string, cancellationId: number) {
  for (const it of items) {
    const newTo = addDays(eff > it.from ? eff : it.from, -1);
    await tx.policyPremiumItem.update({
      where: { id: it.premium_item_id },
      data: { toDate: toDbDate(newTo), endedByCancellationId: cancellationId },
    });
  }
}

/** The credit note of a positive credit, and the policy's figures reduced by it; none when nothing was unearned. */
async function raiseRefundCredit(
  tx: Tx,
  policy: PolicyRow,
  c: Cancellation,
  a: { eff: string; refund: RefundJson; credit: Priced },
): Promise<CreditNote | null> {
  if (a.credit.totalMinor <= 0n) return null;
  const note = await raiseCreditNote(tx, noteRef(policy), {
    kind: 'cancellation',
    priced: a.credit,
    cancellationId: c.id,
    breakdown: breakdownOf(a.credit, {
      operation: 'cancellation',
      cancellation_uuid: c.uuid,
      effective_date: a.eff,
      days: a.refund.days,
    }),
  });
  await movePolicyPremium(tx, policy, -1n, a.credit.basicMinor, a.credit.levies);
  return note;
}

const sumLines = (xs: { amount_minor: string }[]) => xs.reduce((s, x) => s + BigInt(x.amount_minor), 0n);

/** The refund as the credit note actually applied it (open notes may have moved since the preview). */
function refundAsApplied(refund: RefundJson, note: CreditNote | null): RefundJson {
  const apps = (note?.applications ?? []) as { number: string; amount_minor: string }[];
  const applied = apps.map((a) => ({ number: a.number, amount_minor: a.amount_minor }));
  return {
    ...refund,
    applied_to_debit_notes: applied,
    applied_total_minor: (note?.appliedMinor ?? 0n).toString(),
    ...refundSplit(note?.refundPayee ?? refund.refund_payee ?? 'client', note?.refundedMinor ?? 0n),
    outstanding_after_minor: (
      BigInt(refund.outstanding_after_minor) +
      BigInt(refund.applied_total_minor) -
      sumLines(applied)
    ).toString(),
  };
}

/** active → cancelled, the registry asked to cancel the certificates (motor only), and the revision bumped. */
async function cancelPolicy(
  ctx: Context,
  tx: Tx,
  policy: PolicyRow,
  a: { reason: CancellationReason; requestedBy: string; by: ConfirmedBy },
) {
  const moved = await transitionPolicy(tx, policy.id, 'active', 'cancelled', {
    tenantId: policy.tenantId,
    source: a.by.source,
    reason: `${a.reason} (requested by ${a.requestedBy})`,
    actorUserId: a.by.userId,
  });
  if (!moved) throw new InvalidStateError('The policy is no longer active');
  if (isMotor(policy)) {
    const reasonId = CANCELLATION_REASONS[a.reason].registryReasonId;
    await requestCertificateCancellation(ctx.app, tx, { policyId: policy.id }, reasonId);
  }
  await tx.policy.update({ where: { id: policy.id }, data: { revision: { increment: 1 } } });
}

/** `policy.cancelled` and its audit record. */
async function announce(
  ctx: Context,
  tx: Tx,
  policy: PolicyRow,
  c: Cancellation,
  a: {
    reason: CancellationReason;
    eff: string;
    note: CreditNote | null;
    credit: Priced;
    actual: RefundJson;
    now: Date;
  },
) {
  const clientNo = await clientNoOf(tx, policy.clientId);
  await emitEvent(ctx, tx, policy.tenantId, 'policy.cancelled', {
    policy_no: policy.policyNo,
    policy_uuid: policy.uuid,
    client_no: clientNo,
    cancellation_uuid: c.uuid,
    reason: a.reason,
    requested_by: c.requestedBy,
    effective_date: a.eff,
    credit_note_no: a.note?.number ?? null,
    credit: amountOf(a.credit.totalMinor),
    refund: amountOf(a.note?.refundedMinor ?? 0n),
    refund_payee: a.actual.refund_payee ?? 'client',
    cancelled_at: nairobiIso(a.now),
  });
  await recordAudit(ctx, tx, policy.tenantId, {
    action: 'policy.cancelled',
    entityType: 'policy',
    entityId: policy.uuid,
    changes: {
      cancellation_uuid: c.uuid,
      reason: a.reason,
      requested_by: c.requestedBy,
      effective_date: a.eff,
      credit_note_no: a.note?.number ?? null,
      credit_total_minor: a.credit.totalMinor.toString(),
      applied_minor: a.actual.applied_total_minor,
      refunded_minor: a.actual.refund_to_client_minor,
      refund_payee: a.actual.refund_payee,
      refunded_to_lender_minor: a.actual.refund_to_lender_minor,
    },
  });
}
