import { now as clockNow } from '../../../lib/clock.ts';
import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { addDays, isYmd, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { type FieldError, InvalidStateError, ValidationError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { latestEndorsementDate } from '../endorsement.service.ts';
import { POLICY_RULES } from '../policy-state.ts';
import type { Priced } from '../proration.ts';
import { priceCancellation, type RefundJson } from './refund.ts';
import {
  CANCELLATION_REASONS,
  CANCELLATION_REQUESTERS,
  type CancellationInput,
  type CancellationReason,
  findVisiblePolicy,
  MAX_NOTE,
  periodOf,
  type PolicyRow,
  VEHICLE_REASONS,
} from './shared.ts';
import { isMotor } from '../../motor/motor-policy.ts';

interface ValidInput {
  reason: CancellationReason;
  requestedBy: string;
  effectiveDate: string | null;
  note: string | null;
}

/** Prices a cancellation: a `quoted` record with the itemised refund, valid POLICY_RULES.previewValidHours. */
export async function preview(ctx: Context, policyUuid: string, input: CancellationInput) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  return ctx.tx(async (tx) => {
    const policy = await findVisiblePolicy(ctx, tx, { uuid: policyUuid });
    return quoteCancellation(ctx, tx, policy, input, actor.userId);
  });
}

/**
 * The preview itself, in the caller's transaction, for a policy the caller already found (and may see): the
 * checked input, the effective date, the priced refund, the stored `quoted` row and its audit. `userId` null: the
 * service's own (system) request, such as a premium-finance default.
 */
export async function quoteCancellation(
  ctx: Context,
  tx: Tx,
  policy: PolicyRow,
  input: CancellationInput,
  userId: number | null,
) {
  const v = validateInput(input ?? {});
  assertReasonFits(policy, v.reason);
  assertCancellable(policy);
  const c = await effectiveDateOf(tx, policy, v.effectiveDate);
  const { refund, credit } = await priceCancellation(tx, policy, c);
  const row = await storeQuote(tx, policy, { v, c, refund, credit, userId });
  await recordAudit(ctx, tx, policy.tenantId, {
    action: 'cancellation.quoted',
    entityType: 'policy',
    entityId: policy.uuid,
    changes: {
      cancellation_uuid: row.uuid,
      reason: v.reason,
      effective_date: c,
      credit_total_minor: refund.credit_total_minor,
    },
  });
  return row;
}

function validateInput(input: CancellationInput): ValidInput {
  const errors: FieldError[] = [];
  const reason = typeof input.reason === 'string' ? input.reason.trim().toLowerCase() : '';
  if (!Object.hasOwn(CANCELLATION_REASONS, reason))
    errors.push({ field: 'reason', message: `one of ${Object.keys(CANCELLATION_REASONS).join(', ')}` });
  const requestedBy = typeof input.requestedBy === 'string' ? input.requestedBy.trim().toLowerCase() : '';
  if (!(CANCELLATION_REQUESTERS as readonly string[]).includes(requestedBy))
    errors.push({ field: 'requestedBy', message: `one of ${CANCELLATION_REQUESTERS.join(', ')}` });
  const eff = input.effectiveDate ?? null;
  if (eff != null && !isYmd(eff)) errors.push({ field: 'effectiveDate', message: 'a date Y-m-d' });
  const note = input.note == null ? null : String(input.note).trim() || null;
  if (note && note.length > MAX_NOTE) errors.push({ field: 'note', message: `at most ${MAX_NOTE} characters` });
  if (errors.length) throw new ValidationError(errors);
  return { reason: reason as CancellationReason, requestedBy, effectiveDate: eff, note };
}

/** A vehicle's reason (sold, written off, stolen) is for motor policies only. */
function assertReasonFits(policy: PolicyRow, reason: CancellationReason): void {
  if (isMotor(policy) || !VEHICLE_REASONS.has(reason)) return;
  const fits = Object.keys(CANCELLATION_REASONS).filter((r) => !VEHICLE_REASONS.has(r as CancellationReason));
  throw new ValidationError([
    {
      field: 'reason',
      message: `${reason} is for motor policies; this ${policy.productLine} policy: one of ${fits.join(', ')}`,
    },
  ]);
}

function assertCancellable(policy: PolicyRow): void {
  if (policy.status !== 'active') {
    throw new InvalidStateError(
      `Only an active policy can be cancelled; this one is ${policy.status}` +
        (policy.status === 'pending_payment' ? ' (a policy never paid becomes not_taken_up by schedule)' : ''),
    );
  }
}

/**
 * The first day without cover: the requested date (default today), from the later of the start and the latest
 * confirmed endorsement up to the day after the end; else 422.
 */
async function effectiveDateOf(tx: Tx, policy: PolicyRow, requested: string | null): Promise<string> {
  const period = periodOf(policy);
  const latest = await latestEndorsementDate(tx, policy.id);
  const lower = latest && latest > period.start ? latest : period.start;
  const upper = addDays(period.end, 1);
  let c = requested ?? todayNairobi();
  // Any date on or before the start is the start: the whole period is unearned.
  if (c < period.start) c = period.start;
  if (c < lower || c > upper) {
    throw new ValidationError([
      {
        field: 'effectiveDate',
        message: `between ${lower}${latest && latest > period.start ? ' (the latest endorsement)' : ''} and ${upper} (the day after the end)`,
      },
    ]);
  }
  return c;
}

function storeQuote(
  tx: Tx,
  policy: PolicyRow,
  q: { v: ValidInput; c: string; refund: RefundJson; credit: Priced; userId: number | null },
) {
  const now = clockNow();
  return tx.cancellation.create({
    data: {
      tenantId: policy.tenantId,
      uuid: randomUUID(),
      policyId: policy.id,
      reason: q.v.reason,
      requestedBy: q.v.requestedBy,
      note: q.v.note,
      effectiveDate: toDbDate(q.c),
      basedOnRevision: policy.revision,
      refund: q.refund as never,
      unearnedMinor: q.credit.basicMinor,
      refundMinor: BigInt(q.refund.refund_to_client_minor) + BigInt(q.refund.refund_to_lender_minor ?? 0),
      createdByUserId: q.userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + POLICY_RULES.previewValidHours * 3600_000),
    },
  });
}
