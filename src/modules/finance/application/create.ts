import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { InvalidStateError, ValidationError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { policyVisibility } from '../../access/policy.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { ipfCharge, type IpfLenderTerms, ipfOffer, ipfPremiumRefusal } from '../../reference/ipf-terms.ts';
import { ratingData } from '../../reference/rating-data.ts';
import { IPF_RULES } from '../ipf-state.ts';
import { numberIpf } from '../numbers.ts';
import { requireFinanceOffered } from '../offered.ts';
import { type ApplicationRow, checkPolicyFinanceable, ipfRefusal, scheduleJson } from './common.ts';
import { type CreateInput, createSchema } from './input.ts';
import { queueDecision, submitLocked } from './submit.ts';

/** The states in which an application still holds its policy: any other is over, and a new one may be made. */
const CLOSED = ['declined', 'cancelled', 'expired'];

/**
 * A premium-finance application for a visible policy pending payment and bound with payment_mode ipf: KYC checked,
 * priced with the lender's terms as the rating data holds them now (reference/ipf-terms.ts), the planned schedule
 * dated from today, valid IPF_RULES.applicationValidDays. One live application per policy (409 invalid_state naming
 * the live one). `submit: true` submits it in the same transaction (the lender's decision is queued after commit).
 */
export async function createIpfApplication(ctx: Context, input: unknown): Promise<ApplicationRow> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  requireAbility(p, 'policies.create');
  const d = parseInput(createSchema, input);
  const created = await ctx.tx(async (tx) => {
    const policy = await policyFor(ctx, tx, d);
    checkPolicyFinanceable(policy);
    await assertNoLiveApplication(tx, policy.id);
    const client = await tx.client.findUniqueOrThrow({ where: { id: policy.clientId } });
    checkKycAgainstClient(d, client);
    const rating = await ratingData(ctx, tx);
    const lender = rating.lenders.find((l) => l.id === d.lenderId);
    if (!lender) throw new ValidationError([{ field: 'lenderId', message: 'no such active lender on the panel' }]);
    const offer = priceOffer(policy.totalMinor, lender, d.tenorMonths);
    const now = clockNow();
    const row = await tx.ipfApplication.create({
      data: {
        tenantId: p.tenant.id,
        uuid: randomUUID(),
        applicationNo: await numberIpf(tx, p.tenant.id, 'application', now),
        policyId: policy.id,
        clientId: policy.clientId,
        lenderId: lender.id,
        tenorMonths: d.tenorMonths,
        premiumMinor: offer.premiumMinor,
        chargeMinor: offer.chargeMinor,
        depositMinor: offer.depositMinor,
        instalmentMinor: offer.instalmentMinor,
        totalRepayableMinor: offer.totalRepayableMinor,
        aprBps: offer.aprBps,
        ratingVersion: Number(rating.version),
        schedule: scheduleJson(offer, todayNairobi(now)),
        idNumber: d.idNumber,
        kraPin: d.kraPin,
        incomeBand: d.incomeBand,
        consentAt: now,
        expiresAt: new Date(now.getTime() + IPF_RULES.applicationValidDays * 86_400_000),
        createdByUserId: p.actor?.userId ?? null,
      },
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'ipf_application.created',
      entityType: 'ipf_application',
      entityId: row.applicationNo,
      changes: { policy_no: policy.policyNo, lender: lender.name, tenor_months: d.tenorMonths },
    });
    if (d.submit) await submitLocked(ctx, tx, row);
    return row;
  });
  if (d.submit) await ctx.afterCommit(() => queueDecision(ctx, created.id));
  return created;
}

/**
 * The policy named by uuid or number, if the caller may see it, with creation for it serialised (a transaction-level
 * advisory lock per policy): two concurrent creations cannot both find no live application.
 */
async function policyFor(ctx: Context, tx: Tx, d: CreateInput) {
  const field = d.policyUuid ? 'policyUuid' : 'policyNo';
  if (d.policyUuid && !isUuid(d.policyUuid)) throw new ValidationError([{ field, message: 'a policy uuid' }]);
  const policy = await tx.policy.findFirst({
    where: {
      AND: [d.policyUuid ? { uuid: d.policyUuid } : { policyNo: d.policyNo! }, policyVisibility(ctx.principal)],
    },
  });
  if (!policy || (d.policyUuid && d.policyNo && policy.policyNo !== d.policyNo))
    throw new ValidationError([{ field, message: 'no such policy within your reach' }]);
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('ipf_application_policy'), ${policy.id}::int)`;
  return policy;
}

async function assertNoLiveApplication(tx: Tx, policyId: number): Promise<void> {
  const live = await tx.ipfApplication.findFirst({
    where: { policyId, status: { notIn: CLOSED } },
    select: { applicationNo: true, status: true },
  });
  if (live) {
    throw new InvalidStateError(
      `The policy already has a live premium-finance application, ${live.applicationNo} (${live.status}); cancel it first`,
      { application_status: live.status },
    );
  }
}

/** The applicant is the policyholder: an ID number or PIN the client record holds must be the one declared. */
function checkKycAgainstClient(d: CreateInput, client: { idNo: string | null; kraPin: string | null }): void {
  const errors = [];
  if (client.idNo && client.idNo !== d.idNumber)
    errors.push({ field: 'idNumber', message: "does not match the policyholder's ID number" });
  if (client.kraPin && client.kraPin !== d.kraPin)
    errors.push({ field: 'kraPin', message: "does not match the policyholder's KRA PIN" });
  if (errors.length) throw new ValidationError(errors);
}

/** The offer, or why not: a tenor the lender does not offer (on tenorMonths), a premium it cannot finance (on ipf). */
function priceOffer(premiumMinor: bigint, lender: IpfLenderTerms, months: number) {
  if (!lender.tenors.some((t) => t.months === months)) {
    const offered = lender.tenors.map((t) => t.months).join(', ');
    throw new ValidationError([{ field: 'tenorMonths', message: `${lender.name} offers ${offered} months` }]);
  }
  const refusal = ipfPremiumRefusal(premiumMinor, lender);
  if (refusal) throw ipfRefusal(refusal);
  if (ipfCharge(premiumMinor, lender, months) === null)
    throw ipfRefusal(`${lender.name} has no fee band for this premium`);
  const offer = ipfOffer(premiumMinor, lender, months);
  if (!offer) throw ipfRefusal(`${lender.name} cannot finance this premium over ${months} months`);
  return offer;
}
