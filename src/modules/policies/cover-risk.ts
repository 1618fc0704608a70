import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { PolicyRisk } from '../../generated/prisma/client.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { DomainRuleError } from '../../lib/problem.ts';
import type { CoverLine, CoverRiskBase, LinePriced, RatingCoverProduct } from '../covers/line.ts';
import { ageOn } from '../covers/medical/members.ts';
import type { MedicalMember, MedicalRiderCode, MedicalRisk } from '../covers/medical/medical.ts';
import type { StandardRisk } from '../covers/standard/standard.ts';
import { ratingData } from '../reference/rating-data.ts';
import { type Period, periodDays } from './proration.ts';

/**
 * A medical or standard policy's cover as its line prices it again, mid-term (an endorsement) or for the next period
 * (a renewal): the normalised risk rebuilt from the policy (its cover as bound, `cover_details`, written by the line's
 * coverDetails()) and the insured on cover now (policy_risks), priced on the policy's own cover product at the
 * insurer's current rates (the rating data an endorsement or renewal reads inside its transaction).
 */

/** The policy fields the rebuilt risk reads. */
export interface CoverPolicy {
  productLine: string;
  insurerId: number;
  coverProductId: number | null;
  coverDetails: unknown;
  startDate: Date;
}

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const cents = (v: unknown): bigint => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : 0n);

/** The policy's cover product at the insurer's current rates, or 422 when the insurer no longer offers it. */
export async function policyCoverProduct(ctx: Context, tx: Tx, pol: CoverPolicy): Promise<RatingCoverProduct> {
  const rating = await ratingData(ctx, tx);
  const product = rating.coverProducts.find((p) => p.id === pol.coverProductId);
  if (!product || product.insurer.status !== 'active')
    throw new DomainRuleError("The insurer no longer offers this policy's cover product");
  return product;
}

/** The line's price of the risk, or 422 domain_rule with the insurer's refusal. */
export function priceOrRefuse<R extends CoverRiskBase>(
  line: CoverLine<unknown, R>,
  product: RatingCoverProduct,
  risk: R,
): LinePriced {
  const priced = line.price(product, risk);
  if ('ineligible' in priced) throw new DomainRuleError(`${product.insurer.name}: ${priced.ineligible}`);
  return priced;
}

function base(pol: CoverPolicy, product: RatingCoverProduct, period: Period) {
  return {
    productCode: product.code,
    coverPeriod: 'annual' as const,
    startDate: period.start,
    endDate: period.end,
    days: periodDays(period),
    insurerIds: [pol.insurerId],
  };
}

/** A member's age on `day`: from the date of birth, else the age recorded when added, carried on by whole years. */
export function memberAge(r: Pick<PolicyRisk, 'dateOfBirth' | 'ageYears' | 'addedOn'>, day: string, from: string) {
  if (r.dateOfBirth) return ageOn(fromDbDate(r.dateOfBirth), day);
  const since = r.addedOn ? fromDbDate(r.addedOn) : from;
  return (r.ageYears ?? 0) + Math.max(0, ageOn(since, day));
}

/** A policy_risks row as a medical member (its age as stored: at the start of cover or when added). */
export function memberOf(r: PolicyRisk, ageYears = r.ageYears ?? 0): MedicalMember {
  return {
    name: r.name,
    relationship: (r.relationship ?? 'principal') as MedicalMember['relationship'],
    dateOfBirth: r.dateOfBirth ? fromDbDate(r.dateOfBirth) : null,
    ageYears,
    inSchool: r.inSchool === true,
    idNo: r.idNo,
  };
}

/** The medical risk of the policy's cover as bound (type, limits, riders) for these members over `period`. */
export function medicalRiskOf(
  pol: CoverPolicy,
  product: RatingCoverProduct,
  members: MedicalMember[],
  period: Period,
): MedicalRisk {
  const d = record(pol.coverDetails);
  const riders = Array.isArray(d.riders) ? d.riders.map(record) : [];
  return {
    ...base(pol, product, period),
    line: 'medical',
    coverType: d.cover_type === 'group' ? 'group' : 'family',
    inpatientLimitMinor: cents(d.inpatient_limit_minor),
    riders: riders.map((r) => ({ code: String(r.code) as MedicalRiderCode, limitMinor: cents(r.limit_minor) })),
    members,
  };
}

/** The standard risk of the policy's cover as bound (product, headcount, extensions) for these items over `period`. */
export function standardRiskOf(
  pol: CoverPolicy,
  product: RatingCoverProduct,
  items: Pick<PolicyRisk, 'name' | 'sumInsuredMinor' | 'idNo'>[],
  period: Period,
): StandardRisk {
  const d = record(pol.coverDetails);
  const listed = items.map((r) => ({ description: r.name, sumInsuredMinor: r.sumInsuredMinor, idNo: r.idNo }));
  const headcount = typeof d.headcount === 'number' && !listed.length ? d.headcount : listed.length || null;
  return {
    ...base(pol, product, period),
    line: 'standard',
    items: listed,
    headcount,
    totalSumInsuredMinor: listed.reduce((s, it) => s + (it.sumInsuredMinor ?? 0n), 0n),
    extensions: Array.isArray(d.extensions) ? d.extensions.filter((x): x is string => typeof x === 'string') : [],
  };
}
