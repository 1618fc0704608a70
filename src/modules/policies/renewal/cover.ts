import type { Context } from '../../../context.ts';
import type { Prisma, Tx } from '../../../db/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { DomainRuleError } from '../../../lib/problem.ts';
import type { LinePriced } from '../../covers/line.ts';
import { medicalLine } from '../../covers/medical/medical.ts';
import { standardLine } from '../../covers/standard/standard.ts';
import {
  medicalRiskOf,
  memberAge,
  memberOf,
  policyCoverProduct,
  priceOrRefuse,
  standardRiskOf,
} from '../cover-risk.ts';
import type { NewPolicyRisk } from '../policy-factory.ts';
import type { Period } from '../proration.ts';
import { type RenewalFigures, type RenewalInsured, RenewalQuoteStaleError, RenewalStateError } from './shared.ts';

/**
 * Renewing a medical or standard policy (docs/covers.md "Non-motor policies"): the insured on cover priced again by their
 * line on the policy's cover product at the insurer's current rates, members' ages carried on to the start of the new
 * period; and, at bind, the insured copied onto the new policy with those figures. A single trip is not renewed.
 */

type CoverPolicy = Prisma.PolicyGetPayload<{ include: { risks: true; premiumItems: true } }>;

/** The cover's new annual basics: each insured's (per-insured lines) or the policy's as a whole. */
export interface CoverRated {
  productId: number;
  productVersion: number;
  rateBps: number | null;
  maxParts: number;
  basics: bigint[];
  insured: RenewalInsured[];
  policyPremium: RenewalFigures['policyPremium'];
}

const live = <T extends { endedByEndorsementId: number | null; endedByCancellationId: number | null }>(i: T) =>
  i.endedByEndorsementId == null && i.endedByCancellationId == null;

/** Single trips end with the trip: refused (422 domain_rule) before anything is priced. */
export function assertCoverRenewable(policy: { productLine: string; coverPeriod: string; policyNo: string }): void {
  if (policy.productLine === 'travel' || policy.coverPeriod === 'trip')
    throw new DomainRuleError(`Policy ${policy.policyNo} is a single trip: single trips are not renewed`);
}

/** The insured on cover priced for `period` by their line (medical: ages on the period's first day). */
export async function rateInsured(ctx: Context, tx: Tx, policy: CoverPolicy, period: Period): Promise<CoverRated> {
  assertCoverRenewable(policy);
  const product = await policyCoverProduct(ctx, tx, policy);
  if (!product.renewable) throw new DomainRuleError(`${product.name} is not offered for renewal`);
  const onCover = policy.risks.filter((r) => r.status === 'active');
  if (!onCover.length) throw new RenewalStateError(`Policy ${policy.policyNo} has no one and nothing on cover`);
  const ages = onCover.map((r) => memberAge(r, period.start, fromDbDate(policy.startDate)));
  let priced: LinePriced;
  if (policy.productLine === 'medical') {
    const members = onCover.map((r, i) => memberOf(r, ages[i]));
    priced = priceOrRefuse(medicalLine, product, medicalRiskOf(policy, product, members, period));
  } else if (policy.productLine === 'standard') {
    priced = priceOrRefuse(standardLine, product, standardRiskOf(policy, product, onCover, period));
  } else throw new DomainRuleError(`${policy.productLine} policies are not renewed here`);
  const items = policy.premiumItems.filter(live);
  const previousOf = (riskId: number | null) => items.find((i) => i.vehicleId == null && i.riskId === riskId);
  const whole = previousOf(null);
  return {
    productId: product.id,
    productVersion: product.version,
    rateBps: priced.rateBps,
    maxParts: Math.min(4, Math.max(1, product.maxInstalments)),
    basics: priced.perInsuredMinor ?? [priced.basicMinor],
    insured: onCover.map((r, i) => ({
      riskId: r.id,
      kind: r.kind,
      name: r.name,
      ageYears: policy.productLine === 'medical' ? ages[i] : r.ageYears,
      sumInsuredMinor: r.sumInsuredMinor?.toString() ?? null,
      previousAnnualBasicMinor: previousOf(r.id)?.annualBasicMinor.toString() ?? null,
      renewalAnnualBasicMinor: priced.perInsuredMinor?.[i].toString() ?? null,
    })),
    policyPremium: priced.perInsuredMinor
      ? null
      : { previousMinor: whole?.annualBasicMinor.toString() ?? null, renewalMinor: priced.basicMinor.toString() },
  };
}

/** The insured the quote priced, still on cover under the policy, as the renewal policy holds them; else stale. */
export function renewalRisks(
  risks: Prisma.PolicyRiskGetPayload<object>[],
  figures: RenewalFigures,
): { risks: NewPolicyRisk[]; policyPremiumMinor: bigint | null } {
  const byId = new Map(risks.map((r) => [r.id, r]));
  const onCover = risks.filter((r) => r.status === 'active');
  const quoted = figures.insured ?? [];
  if (quoted.length !== onCover.length || quoted.some((q) => byId.get(q.riskId)?.status !== 'active'))
    throw new RenewalQuoteStaleError("The policy's insured changed since this renewal was quoted; ask for a new one");
  return {
    risks: quoted.map((q) => {
      const r = byId.get(q.riskId)!;
      return {
        kind: r.kind as NewPolicyRisk['kind'],
        name: r.name,
        relationship: r.relationship,
        dateOfBirth: r.dateOfBirth ? fromDbDate(r.dateOfBirth) : null,
        ageYears: q.ageYears,
        inSchool: r.inSchool,
        idNo: r.idNo,
        sumInsuredMinor: r.sumInsuredMinor,
        details: r.details as Record<string, unknown> | null,
        annualBasicMinor: q.renewalAnnualBasicMinor == null ? null : BigInt(q.renewalAnnualBasicMinor),
      };
    }),
    policyPremiumMinor: figures.policyPremium ? BigInt(figures.policyPremium.renewalMinor) : null,
  };
}
