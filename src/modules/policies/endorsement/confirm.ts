import { now as clockNow } from '../../../lib/clock.ts';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Endorsement } from '../../../generated/prisma/client.ts';
import { addDays, fromDbDate, laterYmd, nairobiIso, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { toShillings } from '../../../lib/money.ts';
import { notFound } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { queueCertificateIssue } from '../../certificates/issuance.ts';
import { emitEvent } from '../../events/event.service.ts';
import { breakdownOf, movePolicyPremium, raiseCreditNote, raiseDebitNote } from '../notes.service.ts';
import type { Priced } from '../proration.ts';
import { OPERATIONS } from './operations.ts';
import {
  EndorsementExpiredError,
  type EndorsementOperation,
  EndorsementStaleError,
  EndorsementStateError,
  findVisibleEndorsement,
  loadPolicy,
  n,
  negate,
  type PolicyRow,
  pricedOf,
  type StoredChanges,
  type StoredEffect,
} from './shared.ts';

type Note = { kind: 'debit' | 'credit'; number: string } | null;

/** Applies a pending endorsement: cover, notes, totals, revision, event and audit in one transaction. */
export async function confirm(ctx: Context, uuid: string, policyUuid?: string | null) {
  const actor = requireAbility(ctx.principal!, 'policies.create');
  const found = await findVisibleEndorsement(ctx, uuid, policyUuid);
  const { updated: result, certify } = await ctx.tx(
    async (tx) => {
      // One writer per policy at a time: a second confirm waits here, then sees the bumped revision.
      await tx.$queryRaw`SELECT id FROM policies WHERE id = ${found.policyId} FOR UPDATE`;
      const end = await tx.endorsement.findUniqueOrThrow({ where: { id: found.id } });
      const pol = await loadPolicy(tx, end.policyId);
      if (!pol) throw notFound('Endorsement');
      const now = clockNow();
      checkConfirmable(end, pol, now);
      const e = fromDbDate(end.effectiveDate);
      const changes = end.changes as StoredChanges;
      const effect = end.effect as unknown as StoredEffect;
      const priced = pricedOf(effect);
      const applied = await OPERATIONS[end.operation as EndorsementOperation].apply({
        ctx,
        tx,
        pol,
        end,
        changes,
        effect,
        e,
        dayBefore: toDbDate(addDays(e, -1)),
      });
      const note = await raiseNote(tx, pol, end, effect, priced, e);
      // Policy figures move by the effect, so the policy total stays Σ debit notes − Σ credit notes.
      await movePolicyPremium(tx, pol, 1n, priced.basicMinor, priced.levies);
      await tx.policy.update({ where: { id: pol.id }, data: { revision: { increment: 1 } } });
      const updated = await tx.endorsement.update({
        where: { id: end.id },
        data: {
          status: 'confirmed',
          confirmedAt: now,
          debitNoteId: note.debitNoteId,
          creditNoteId: note.creditNoteId,
          effect: effect as never,
        },
        include: { debitNote: true, creditNote: true },
      });
      await announce(ctx, tx, pol, end, { e, priced, note: note.note, now, userId: actor.userId });
      return { updated, certify: applied.addedVehicle ? pol : null };
    },
    { timeout: 20_000 },
  );
  if (certify) await ctx.afterCommit(() => queueCertificateIssue(ctx.app, certify));
  return result;
}

/** Pending, unexpired, on an active policy, and priced on the policy's current revision; else 409. */
function checkConfirmable(end: Endorsement, pol: PolicyRow, now: Date) {
  if (end.status === 'expired')
    throw new EndorsementExpiredError(`${end.number} expired at ${end.expiresAt.toISOString()}; endorse again`);
  if (end.status !== 'pending')
    throw new EndorsementStateError(`${end.number} is ${end.status}; only a pending endorsement can be confirmed`);
  if (end.expiresAt <= now)
    throw new EndorsementExpiredError(`${end.number} expired at ${end.expiresAt.toISOString()}; endorse again`);
  if (pol.status !== 'active')
    throw new EndorsementStateError(`Only an active policy can be endorsed; ${pol.policyNo} is ${pol.status}`);
  if (end.basedOnRevision !== pol.revision) {
    throw new EndorsementStaleError(
      `${pol.policyNo} changed since ${end.number} was priced (revision ${end.basedOnRevision} → ${pol.revision}); endorse again`,
    );
  }
}

/** A debit note for a positive effect, a credit note (applied to open debit notes first) for a negative one. */
async function raiseNote(
  tx: Tx,
  pol: PolicyRow,
  end: Endorsement,
  effect: StoredEffect,
  priced: Priced,
  e: string,
): Promise<{ debitNoteId: number | null; creditNoteId: number | null; note: Note }> {
  const breakdown = breakdownOf(priced.totalMinor < 0n ? negate(priced) : priced, {
    endorsement_no: end.number,
    operation: end.operation,
    effective_date: e,
    days: effect.days,
    items: effect.items,
  });
  if (priced.totalMinor > 0n) {
    const today = todayNairobi();
    const dn = await raiseDebitNote(tx, pol, {
      kind: 'endorsement',
      amountMinor: priced.totalMinor,
      dueOn: toDbDate(laterYmd(e, today)),
      endorsementId: end.id,
      breakdown,
    });
    return { debitNoteId: dn.id, creditNoteId: null, note: { kind: 'debit', number: dn.number } };
  }
  if (priced.totalMinor < 0n) {
    const cn = await raiseCreditNote(tx, pol, {
      kind: 'endorsement',
      priced: negate(priced),
      endorsementId: end.id,
      breakdown,
    });
    return { debitNoteId: null, creditNoteId: cn.id, note: { kind: 'credit', number: cn.number } };
  }
  return { debitNoteId: null, creditNoteId: null, note: null };
}

/** The `policy.endorsed` event and the audit record, in the confirming transaction. */
async function announce(
  ctx: Context,
  tx: Tx,
  pol: PolicyRow,
  end: Endorsement,
  x: { e: string; priced: Priced; note: Note; now: Date; userId: number },
) {
  await emitEvent(ctx, tx, pol.tenantId, 'policy.endorsed', {
    policy_no: pol.policyNo,
    policy_uuid: pol.uuid,
    client_no: pol.client.clientNo,
    endorsement_no: end.number,
    endorsement_uuid: end.uuid,
    operation: end.operation,
    effective_date: x.e,
    premium_effect: { amount: toShillings(x.priced.totalMinor), amount_minor: n(x.priced.totalMinor) },
    note: x.note,
    confirmed_at: nairobiIso(x.now),
  });
  await recordAudit(ctx, tx, pol.tenantId, {
    action: 'policy.endorsed',
    entityType: 'policy',
    entityId: pol.uuid,
    changes: {
      endorsement_no: end.number,
      operation: end.operation,
      effective_date: x.e,
      total_delta_minor: x.priced.totalMinor.toString(),
      note: x.note?.number ?? null,
      revision: pol.revision + 1,
      actor_user_id: x.userId,
    },
  });
}
