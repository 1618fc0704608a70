import { applyBps, type Cents } from '../../lib/money.ts';

/**
 * The claims arithmetic, pure and in cents (docs/claims.md "Claims: money"): the initial reserve and the policy excess. The
 * figures come from the organisation's data (claim_causes, motor_products.excess_terms), never from here.
 */

export interface ReserveRule {
  /** Share of the sum insured, in basis points. */
  reserveBps: number;
  /** Floor of the reserve (cents); the whole reserve when there is no sum insured. */
  reserveMinMinor: Cents;
}

/**
 * Initial reserve: the reporter's estimate when given, capped at the sum insured; otherwise the cause's share of the
 * sum insured, at least its floor, and never above the sum insured; without a sum insured, the floor.
 */
export function initialReserve(rule: ReserveRule, sumInsured: Cents | null, estimate: Cents | null): Cents {
  const cap = (v: Cents) => (sumInsured != null && sumInsured > 0n && v > sumInsured ? sumInsured : v);
  if (estimate != null) return cap(estimate);
  if (sumInsured == null || sumInsured <= 0n || rule.reserveBps === 0) return rule.reserveMinMinor;
  const share = applyBps(sumInsured, rule.reserveBps);
  return cap(share > rule.reserveMinMinor ? share : rule.reserveMinMinor);
}

export interface ExcessTerm {
  rate_bps: number;
  min_minor: number;
  basis: 'sum_insured' | 'claim';
}

export type ExcessTermName = 'own_damage' | 'theft' | 'theft_no_device' | 'third_party_property' | 'windscreen';

/**
 * Which of the product's terms applies to a cause's excess term: theft without an approved anti-theft device takes
 * `theft_no_device` where the product has one. `none` (or a term the product lacks) means no excess.
 */
export function excessTermFor(
  terms: Partial<Record<ExcessTermName, ExcessTerm>> | null,
  causeTerm: string,
  antiTheftDevice: boolean | null,
): ExcessTerm | null {
  if (!terms || causeTerm === 'none') return null;
  if (causeTerm === 'theft' && antiTheftDevice === false && terms.theft_no_device) return terms.theft_no_device;
  return terms[causeTerm as ExcessTermName] ?? null;
}

/**
 * The excess: `rate_bps` of its basis (the sum insured, or the approved claim when the basis is `claim` or no sum
 * insured is known), at least `min_minor`, and never more than the approved amount (a claim below the excess pays
 * nothing). Net payable is approved − excess.
 */
export function excessFor(term: ExcessTerm | null, approved: Cents, sumInsured: Cents | null): Cents {
  if (!term || approved <= 0n) return 0n;
  const basis = term.basis === 'sum_insured' && sumInsured != null ? sumInsured : approved;
  const rated = applyBps(basis, term.rate_bps);
  const min = BigInt(term.min_minor);
  const excess = rated > min ? rated : min;
  return excess > approved ? approved : excess;
}
