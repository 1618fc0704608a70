/**
 * Medical rating: pure arithmetic over one insurer's medical product (cover product MEDICAL: its cover_rates rows and
 * terms), in integer cents. No I/O; property-tested in test/covers-medical-rating.test.ts.
 *
 * Rules:
 * - Inpatient: each member pays the premium of the `inpatient` band (at the chosen limit) covering their age in
 *   whole years at the start of cover. A member no band covers: the insurer refuses the risk.
 * - Riders: each member pays the rider table's premium (at the rider's limit) for their age. A member whose age no
 *   band of the rider covers is not covered by that rider and pays nothing for it (maternity: adults 18–49 in the
 *   demo); the breakdown says so and the option's terms list those members.
 * - Limits: the inpatient limit and each rider's limit must be a limit (a key) of the insurer's table; otherwise it
 *   refuses. A limit no insurer offers ends as the shared code's no_quote.
 * - Group: each member's premium (inpatient plus riders) less the headcount discount, `rate_bps` of the
 *   `group_headcount` band covering the number of members, applied to each member's premium to the cent (half away
 *   from zero). The first band's lower bound is the minimum group size: a smaller group is refused.
 * - Basic premium: the sum of the members' premiums, at least the product's minimum premium. A shortfall is the
 *   breakdown line "Minimum premium adjustment", spread over the members in proportion to their premiums (each
 *   share rounded down, the remainder to the first member), so the members' premiums sum to the basic premium.
 * - Composition (terms, checked here since insurers set them): a family's principal aged principal_min_age to
 *   principal_max_age, at most max_spouses spouses aged spouse_min_age or over, children up to child_max_age, or up
 *   to student_max_age when in school; a group the same per employee (employee_min_age to employee_max_age), each
 *   employee's spouse and children following them in the list. normalise() checks only the outline: one principal
 *   (family), an employee first (group).
 *
 * Rate tables (cover_rates; bands inclusive, `to` null: and above):
 * - `inpatient`: key the limit in cents as a decimal string ("100000000" = KES 1,000,000); from..to age in years;
 *   amount_minor the annual premium per person. Premiums are non-decreasing with age and with the limit.
 * - `outpatient`, `maternity`, `dental`, `optical`: the same, keyed by the rider's limit.
 * - `group_headcount`: key ''; from..to the number of members; rate_bps the discount.
 *
 * Terms (cover_products.terms):
 * - `family`: {principal_min_age, principal_max_age, max_spouses, spouse_min_age, child_max_age, student_max_age};
 *   absent: the insurer offers no family cover.
 * - `group`: {employee_min_age, employee_max_age, max_spouses, spouse_min_age, child_max_age, student_max_age};
 *   absent: no group cover.
 * - `waiting_periods`: {family: {illness_days, maternity_months}, group: {illness_days, maternity_months}}, stated
 *   in the option's terms.
 * - `benefit_names`: {inpatient, outpatient, maternity, dental, optical}: the benefits' names (else their codes).
 *
 * Demo figures: src/seed/cover-medical.ts.
 */
import { applyBps } from '../../../lib/money.ts';
import { kes, liftToMinimum } from '../arith.ts';
import type { BreakdownLine, Ineligible, LinePriced, RatingCoverProduct } from '../line.ts';
import type { MedicalRisk } from './types.ts';
import { agesCovered, byAge, headcountDiscount, limitRefusal } from './tables.ts';
import { compositionRefusal, type MedicalTerms, medicalTermsOf } from './terms.ts';

const INPATIENT = 'inpatient';

const sum = (xs: readonly bigint[]): bigint => xs.reduce((s, x) => s + x, 0n);

/** One priced benefit: inpatient or a rider, each member's premium for it. */
interface Part {
  code: string;
  name: string;
  limitMinor: bigint;
  amounts: bigint[];
  covered: boolean[];
}

function partsOf(product: RatingCoverProduct, risk: MedicalRisk, terms: MedicalTerms): Part[] | Ineligible {
  const wanted = [{ code: INPATIENT, limitMinor: risk.inpatientLimitMinor }, ...risk.riders];
  const parts: Part[] = [];
  for (const { code, limitMinor } of wanted) {
    const name = terms.benefitNames[code] ?? code;
    const refusal = limitRefusal(product, code, name.toLowerCase(), limitMinor);
    if (refusal) return { ineligible: refusal };
    const premiums = byAge(product, code, limitMinor, risk.members);
    if ('ineligible' in premiums) return premiums;
    parts.push({ code, name, limitMinor, ...premiums });
  }
  const inpatient = parts[0];
  const outside = inpatient.covered.indexOf(false);
  if (outside >= 0) {
    const ages = agesCovered(product, INPATIENT, inpatient.limitMinor);
    const age = risk.members[outside].ageYears;
    return {
      ineligible: `rates ${inpatient.name.toLowerCase()} cover for ages ${ages} (member ${outside + 1} is ${age})`,
    };
  }
  return parts;
}

function partLine(product: RatingCoverProduct, p: Part): BreakdownLine {
  const n = p.covered.length;
  const inBands = p.covered.filter(Boolean).length;
  const who =
    inBands === n
      ? `${n} ${n === 1 ? 'member' : 'members'}`
      : `${inBands} of ${n} members; ages ${agesCovered(product, p.code, p.limitMinor)} only`;
  return { item: `${p.name}, limit ${kes(p.limitMinor)} (${who})`, amountMinor: sum(p.amounts) };
}

function optionTerms(product: RatingCoverProduct, risk: MedicalRisk, terms: MedicalTerms, parts: Part[], bps: number) {
  const c = terms.composition;
  return {
    cover_type: risk.coverType,
    inpatient_limit_minor: Number(risk.inpatientLimitMinor),
    riders: parts.slice(1).map((p) => ({
      code: p.code,
      name: p.name,
      limit_minor: Number(p.limitMinor),
      premium_minor: Number(sum(p.amounts)),
      ages: agesCovered(product, p.code, p.limitMinor),
      members_not_covered: p.covered.flatMap((ok, i) => (ok ? [] : [i])),
    })),
    waiting_periods: {
      illness_days: terms.waitingPeriods.illnessDays,
      maternity_months: terms.waitingPeriods.maternityMonths,
    },
    composition: {
      [`${c.head}_min_age`]: c.headMinAge,
      [`${c.head}_max_age`]: c.headMaxAge,
      max_spouses: c.maxSpouses,
      spouse_min_age: c.spouseMinAge,
      child_max_age: c.childMaxAge,
      student_max_age: c.studentMaxAge,
    },
    headcount: risk.members.length,
    group_discount_bps: risk.coverType === 'group' ? bps : null,
  };
}

export function priceMedical(product: RatingCoverProduct, risk: MedicalRisk): LinePriced | Ineligible {
  const terms = medicalTermsOf(product.terms, risk.coverType);
  if ('ineligible' in terms) return terms;
  const refusal = compositionRefusal(terms.composition, risk.members);
  if (refusal) return { ineligible: refusal };
  const discount = risk.coverType === 'group' ? headcountDiscount(product, risk.members.length) : { bps: 0 };
  if ('ineligible' in discount) return discount;
  const parts = partsOf(product, risk, terms);
  if ('ineligible' in parts) return parts;

  const gross = risk.members.map((_, i) => sum(parts.map((p) => p.amounts[i])));
  const discounts = gross.map((g) => applyBps(g, discount.bps));
  const net = gross.map((g, i) => g - discounts[i]);
  const perInsuredMinor = liftToMinimum(net, product.minPremiumMinor).shares;
  const basicMinor = sum(perInsuredMinor);
  const breakdown = parts.map((p) => partLine(product, p));
  if (discount.bps > 0) {
    const n = risk.members.length;
    breakdown.push({ item: `Group discount (${n} members, ${discount.bps / 100} %)`, amountMinor: -sum(discounts) });
  }
  if (basicMinor > sum(net)) breakdown.push({ item: 'Minimum premium adjustment', amountMinor: basicMinor - sum(net) });
  return {
    basicMinor,
    rateBps: null,
    breakdown,
    perInsuredMinor,
    terms: {
      ...optionTerms(product, risk, terms, parts, discount.bps),
      minimum_premium_applied: basicMinor > sum(net),
    },
    benefits: parts.map((p) => ({ name: p.name, limitMinor: p.limitMinor })),
  };
}
