import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { nextNumber } from '../../../db/counters.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { nairobiIso, todayNairobi } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { DomainRuleError, validationFailed } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { visiblePolicy } from '../../access/policy.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { emitEvent } from '../../events/event.service.ts';
import { claimActor, claimEventRef } from '../claim-moves.ts';
import { initialReserve } from '../claim-money.ts';
import { CLAIM_RULES, recordClaimStatus, slaDueAt } from '../claim-state.ts';
import { openChecklist } from '../documents/checklist.ts';
import { assertInForce, insuredOnCover, vehicleOnCover } from './cover.ts';
import { type RegisterInput, registerSchema } from './input.ts';

/**
 * First notice of loss: against a policy the caller may see, for a risk it covered on the loss date. Numbers the
 * claim (CLM-YYYY-NNNNNN, gap-free per organisation and year), flags late notification, sets the initial reserve
 * from the cause's rule, opens the cause's document checklist, and announces claim.registered, all in one
 * transaction.
 */
export async function registerClaim(ctx: Context, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.register');
  const d = parseInput(registerSchema, input);
  const policy = await visiblePolicy(ctx, d.policyId).catch(() => {
    throw validationFailed([{ field: 'input.policyId', message: 'no such policy within your reach' }]);
  });
  return ctx.tx(async (tx) => {
    const cause = await causeOf(tx, policy.productLine, d.cause);
    const client = await tx.client.findUniqueOrThrow({ where: { id: policy.clientId } });
    // The organisation's business clock (a sandbox's own): the loss, the notice, the service level and its history
    // row are all judged and stamped on it, as every later move is (claim-state.ts) and ?sla_breached= reads it.
    const now = clockNow();
    const reportedAt = d.reportedAt ?? now;
    checkDates(d, reportedAt, now);
    await assertInForce(tx, policy, d.lossDate);
    const vehicle = await vehicleOnCover(tx, policy, d.registration, d.lossDate);
    const insured = await insuredOnCover(tx, policy, d.insuredId, d.lossDate);
    if (d.assigneeId != null) await assertUser(tx, d.assigneeId);
    const sumInsured = vehicle?.valueMinor ?? insured?.sumInsuredMinor ?? null;
    const reserve = initialReserve(cause, sumInsured, d.estimatedLoss ?? null);
    const claimNo = await numberClaim(tx, p.tenant.id, now);
    const claim = await tx.claim.create({
      data: {
        ...noticeFields(d, client),
        tenantId: p.tenant.id,
        uuid: randomUUID(),
        claimNo,
        policyId: policy.id,
        clientId: policy.clientId,
        insurerId: policy.insurerId,
        vehicleId: vehicle?.id ?? null,
        regNo: vehicle?.regNo ?? null,
        riskId: insured?.id ?? null,
        productLine: policy.productLine,
        causeCode: cause.code,
        reportedAt,
        lateNotification: isLate(d, reportedAt),
        sumInsuredMinor: sumInsured,
        reserveMinor: reserve,
        createdByUserId: p.actor?.userId ?? null,
        createdByApiClientId: p.apiClient.id,
        statusChangedAt: now,
        slaDueAt: slaDueAt('registered', now),
      },
    });
    await openClaim(ctx, tx, claim, cause, d.estimatedLoss != null, now);
    return claim;
  });
}

/** The cause of the policy's product line, or 422 listing the ones it has. */
async function causeOf(tx: Tx, productLine: string, code: string) {
  const cause = await tx.claimCause.findFirst({ where: { productLine, code, active: true } });
  if (cause) return cause;
  const known = await tx.claimCause.findMany({
    where: { productLine, active: true },
    select: { code: true },
    orderBy: { sortOrder: 'asc' },
  });
  throw validationFailed([
    { field: 'input.cause', message: `one of ${known.map((c) => c.code).join(', ')} for ${productLine}` },
  ]);
}

/** What the notice itself says, as columns (the reporter defaults to the policyholder). */
function noticeFields(d: RegisterInput, client: { name: string; phone: string }) {
  return {
    lossDate: new Date(`${d.lossDate}T00:00:00Z`),
    lossTime: d.lossTime,
    lossPlace: d.lossPlace,
    description: d.description,
    thirdParties: (d.thirdParties ?? []) as never,
    witnesses: (d.witnesses ?? []) as never,
    policeAbstractNo: d.policeAbstractNo,
    antiTheftDevice: d.antiTheftDevice ?? null,
    reporterName: d.reporterName ?? client.name,
    reporterPhone: d.reporterPhone ?? (d.reporterName ? null : client.phone),
    reporterRelationship: d.reporterRelationship ?? (d.reporterName ? null : 'policyholder'),
    channel: d.channel ?? 'api',
    estimatedLossMinor: d.estimatedLoss ?? null,
    assigneeUserId: d.assigneeId ?? null,
  };
}

/** The new claim's first reserve movement, checklist, history row, event and audit. */
async function openClaim(
  ctx: Context,
  tx: Tx,
  claim: {
    id: number;
    tenantId: number;
    reserveMinor: bigint;
    productLine: string;
    causeCode: string;
    lossDate: Date;
    reportedAt: Date;
  },
  cause: { code: string; documents: string[] },
  estimated: boolean,
  at: Date,
) {
  const p = ctx.principal!;
  const by = claimActor(ctx);
  await tx.claimReserveMovement.create({
    data: {
      tenantId: claim.tenantId,
      claimId: claim.id,
      kind: 'initial',
      amountMinor: claim.reserveMinor,
      balanceAfterMinor: claim.reserveMinor,
      reason: estimated ? 'Reporter’s estimate' : `Initial reserve rule for ${cause.code}`,
      actorUserId: p.actor?.userId ?? null,
    },
  });
  await openChecklist(tx, { tenantId: claim.tenantId, claimId: claim.id, kinds: cause.documents });
  await recordClaimStatus(tx, claim.id, null, 'registered', {
    tenantId: claim.tenantId,
    source: 'api',
    reason: 'First notice of loss',
    actorUserId: by.type === 'user' ? by.id : null,
    actorApiClientId: p.apiClient.id,
    actorName: by.name,
    at,
  });
  await announce(ctx, tx, claim, by);
}

/**
 * A loss cannot be in the future (its day, or its time on today: a minute's grace for the caller's clock), nor
 * reported before it happened. `now` is the organisation's business clock.
 */
function checkDates(d: RegisterInput, reportedAt: Date, now: Date): void {
  if (d.lossDate > todayNairobi(now)) throw validationFailed([{ field: 'input.lossDate', message: 'in the future' }]);
  if (d.lossTime && lossInstant(d).getTime() > now.getTime() + 60_000) {
    throw validationFailed([{ field: 'input.lossTime', message: `in the future (now is ${nairobiIso(now)})` }]);
  }
  if (reportedAt.getTime() > now.getTime() + 60_000) {
    throw validationFailed([{ field: 'input.reportedAt', message: 'in the future' }]);
  }
  if (reportedAt.getTime() < lossInstant(d).getTime() - 86_400_000) {
    throw validationFailed([{ field: 'input.reportedAt', message: 'before the loss' }]);
  }
}

/** The loss as an instant: its time when given (Nairobi), else the end of the loss day (the claimant's benefit). */
function lossInstant(d: RegisterInput): Date {
  return new Date(Date.parse(`${d.lossDate}T${d.lossTime ?? '23:59'}:00+03:00`));
}

/** Late notification: reported more than CLAIM_RULES.lateNotificationHours after the loss. */
function isLate(d: RegisterInput, reportedAt: Date): boolean {
  return reportedAt.getTime() - lossInstant(d).getTime() > CLAIM_RULES.lateNotificationHours * 3_600_000;
}

async function assertUser(tx: Tx, userId: number): Promise<void> {
  const u = await tx.user.findFirst({ where: { id: userId, disabled: false }, select: { id: true } });
  if (!u) throw validationFailed([{ field: 'input.assigneeId', message: 'no such user in this organisation' }]);
}

/** CLM-YYYY-NNNNNN: a gap-free counter per organisation and (Nairobi) year. */
async function numberClaim(tx: Tx, tenantId: number, now: Date): Promise<string> {
  const year = todayNairobi(now).slice(0, 4);
  const n = await nextNumber(tx, tenantId, `claim_no:${year}`);
  if (n > 999_999n) throw new DomainRuleError(`Claim numbers for ${year} are exhausted`);
  return `CLM-${year}-${String(n).padStart(6, '0')}`;
}

async function announce(
  ctx: Context,
  tx: Tx,
  claim: { id: number; tenantId: number; productLine: string; causeCode: string; lossDate: Date; reportedAt: Date },
  by: ReturnType<typeof claimActor>,
) {
  const c = await tx.claim.findUniqueOrThrow({ where: { id: claim.id } });
  await emitEvent(ctx, tx, claim.tenantId, 'claim.registered', {
    ...(await claimEventRef(tx, claim.id)),
    product_line: c.productLine,
    cause: c.causeCode,
    loss_date: c.lossDate.toISOString().slice(0, 10),
    reported_at: nairobiIso(c.reportedAt),
    late_notification: c.lateNotification,
    registration: c.regNo,
    reserve: amountOf(c.reserveMinor),
    by,
  });
  await recordAudit(ctx, tx, claim.tenantId, {
    action: 'claim.registered',
    entityType: 'claim',
    entityId: c.claimNo,
    changes: { policy_id: c.policyId, cause: c.causeCode, loss_date: c.lossDate.toISOString().slice(0, 10) },
  });
}
