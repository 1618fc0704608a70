import { now as clockNow } from '../../../lib/clock.ts';
import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { nextNumber } from '../../../db/counters.ts';
import type { Tx } from '../../../db/client.ts';
import { isYmd, laterYmd, todayNairobi, toDbDate, YMD_MESSAGE } from '../../../lib/dates.ts';
import type { Period } from '../proration.ts';
import { DomainRuleError, type FieldError, notFound, ValidationError } from '../../../lib/problem.ts';
import { visiblePolicy } from '../../access/policy.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { levyTable } from '../../reference/reference.service.ts';
import { POLICY_RULES } from '../policy-state.ts';
import { OPERATIONS } from './operations.ts';
import {
  cleanText,
  ENDORSEMENT_OPERATIONS,
  type EndorseInput,
  type EndorsementOperation,
  EndorsementStateError,
  latestEndorsementDate,
  loadPolicy,
  periodOf,
  type PolicyRow,
  type PricedChange,
} from './shared.ts';

/** Prices a change and stores it `pending`. Nothing about the cover or the money changes yet. */
export async function endorse(ctx: Context, policyUuid: string, input: EndorseInput) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  const visible = await visiblePolicy(ctx, policyUuid ?? '');
  const { op, errors } = validateShape(input ?? {});
  if (errors.length) throw new ValidationError(errors);

  return ctx.tx(
    async (tx) => {
      const pol = await loadPolicy(tx, visible.id);
      if (!pol) throw notFound('Policy');
      if (pol.status !== 'active')
        throw new EndorsementStateError(`Only an active policy can be endorsed; ${pol.policyNo} is ${pol.status}`);
      assertLine(op, pol);
      const period = periodOf(pol);
      const e = await effectiveDate(tx, pol, period, input);
      const table = await levyTable(tx);
      const priced = await OPERATIONS[op].price({ ctx, tx, pol, input, e, period, table });
      const remark = cleanText(input.note, 500);
      if (remark) priced.changes.remark = remark;
      return storePending(ctx, tx, pol, { op, e, priced, userId: actor.userId });
    },
    { timeout: 20_000 },
  );
}

/** Each operation is for the product lines it names: vehicles for motor, members for medical, sums for standard. */
function assertLine(op: EndorsementOperation, pol: PolicyRow): void {
  const lines = OPERATIONS[op].lines;
  if (!lines.includes(pol.productLine))
    throw new DomainRuleError(
      `${op} applies to ${lines.join(' or ')} policies; ${pol.policyNo} is ${pol.productLine} cover`,
    );
}

/** Synchronous shape checks: every field error at once, in the caller's spelling (common fields first). */
function validateShape(input: EndorseInput): { op: EndorsementOperation; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const op = (input.operation ?? '').trim() as EndorsementOperation;
  if (!ENDORSEMENT_OPERATIONS.includes(op))
    errors.push({ field: 'input.operation', message: `one of ${ENDORSEMENT_OPERATIONS.join(', ')}` });
  if (input.effectiveDate != null && !isYmd(input.effectiveDate))
    errors.push({ field: 'input.effectiveDate', code: 'invalid_value', message: YMD_MESSAGE });
  if (input.note != null && input.note.length > 500)
    errors.push({ field: 'input.note', message: 'at most 500 characters' });
  if (ENDORSEMENT_OPERATIONS.includes(op)) errors.push(...OPERATIONS[op].validate(input));
  return { op, errors };
}

/**
 * The change's effective date: as given, else today (Nairobi) or the start of cover when it has not begun yet;
 * within the period and not before the latest confirmed endorsement.
 */
async function effectiveDate(tx: Tx, pol: PolicyRow, period: Period, input: EndorseInput): Promise<string> {
  const today = todayNairobi();
  const e = input.effectiveDate ?? laterYmd(today, period.start);
  const floor = (await latestEndorsementDate(tx, pol.id)) ?? period.start;
  if (e < period.start || e > period.end) {
    throw new ValidationError([
      { field: 'input.effectiveDate', message: `within the policy period ${period.start} to ${period.end}` },
    ]);
  }
  if (e < floor) {
    throw new ValidationError([
      {
        field: 'input.effectiveDate',
        message: `on or after ${floor}, the effective date of the latest confirmed endorsement`,
      },
    ]);
  }
  return e;
}

/** The pending endorsement row (numbered per policy), valid POLICY_RULES.previewValidHours, and its audit record. */
async function storePending(
  ctx: Context,
  tx: Tx,
  pol: PolicyRow,
  x: { op: EndorsementOperation; e: string; priced: PricedChange; userId: number },
) {
  const { changes, effect, productVersion } = x.priced;
  const seq = await nextNumber(tx, pol.tenantId, `policy:${pol.id}:end`);
  // Priced now on the business clock: the preview's created_at and expires_at on one clock (a sandbox's own).
  const pricedAt = clockNow();
  const row = await tx.endorsement.create({
    data: {
      tenantId: pol.tenantId,
      uuid: randomUUID(),
      policyId: pol.id,
      number: `END-${pol.policyNo}-${seq}`,
      operation: x.op,
      status: 'pending',
      effectiveDate: toDbDate(x.e),
      changes: changes as never,
      effect: effect as never,
      basicDeltaMinor: BigInt(effect.basic_minor),
      taxesDeltaMinor: BigInt(effect.taxes_minor),
      totalDeltaMinor: BigInt(effect.total_minor),
      productVersion,
      basedOnRevision: pol.revision,
      createdByUserId: x.userId,
      createdAt: pricedAt,
      expiresAt: new Date(pricedAt.getTime() + POLICY_RULES.previewValidHours * 3600_000),
    },
    include: { debitNote: true, creditNote: true },
  });
  await recordAudit(ctx, tx, pol.tenantId, {
    action: 'endorsement.priced',
    entityType: 'endorsement',
    entityId: row.uuid,
    changes: {
      policy_no: pol.policyNo,
      number: row.number,
      operation: x.op,
      effective_date: x.e,
      total_delta_minor: effect.total_minor.toString(),
    },
  });
  return row;
}
