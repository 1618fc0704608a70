/**
 * The hand-written baselines' rating rows (quote-baseline.ts, hand/bind.ts): the premium-finance lenders with their
 * tenors and fee bands, and the levy table, from the rows plain SQL reads into the shapes the project's pure rating
 * code (src/modules/motor/rating.ts) takes. Each baseline reads the rows itself, in its own statements.
 */
import type { RatingLender, RatingLevy } from '../../../src/modules/motor/rating.ts';

type Row = Record<string, any>;

export const big = (v: string | null): bigint | null => (v === null ? null : BigInt(v));

/** Lenders (ipf_lenders rows) with their tenors and fee bands (rows of ipf_tenors and ipf_fee_bands, in order). */
export function ratingLenders(lenders: Row[], tenors: Row[], feeBands: Row[]): RatingLender[] {
  return lenders.map((l) => ({
    id: l.id,
    name: l.name,
    minPremiumMinor: BigInt(l.min_premium_minor),
    maxPremiumMinor: big(l.max_premium_minor),
    pricing: l.pricing,
    depositRule: l.deposit_rule,
    depositBps: l.deposit_bps,
    maxInstalmentToIncomeBps: l.max_instalment_to_income_bps,
    defaultGraceDays: l.default_grace_days,
    tenors: tenors.filter((x) => x.lender_id === l.id).map((x) => ({ months: x.months, chargeBps: x.charge_bps })),
    feeBands: feeBands
      .filter((b) => b.lender_id === l.id)
      .map((b) => ({ upToPremiumMinor: big(b.up_to_premium_minor), feeMinor: BigInt(b.fee_minor) })),
  }));
}

/** The levy table (levies rows, in order). */
export function ratingLevies(levies: Row[]): RatingLevy[] {
  return levies.map((l) => ({
    code: l.code,
    name: l.name,
    basis: l.basis,
    rateBps: l.rate_bps,
    amountMinor: big(l.amount_minor),
  }));
}
