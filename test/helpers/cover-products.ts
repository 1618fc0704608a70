import type { RatingCoverProduct } from '../../src/modules/covers/line.ts';
import type { DemoCoverProduct } from '../../src/seed/cover-types.ts';

/** A demo cover product (src/seed/cover-*.ts) as the rating cache holds it, for the pure rating tests. */
export function asRating(p: DemoCoverProduct, index = 0, over: Partial<RatingCoverProduct> = {}): RatingCoverProduct {
  return {
    id: index + 1,
    insurerId: index + 1,
    insurer: { id: index + 1, name: `Insurer ${index}`, monogram: 'IN', commissionRateBps: 1000, status: 'active' },
    productLine: p.productLine,
    code: p.code,
    name: p.name,
    version: 1,
    minPremiumMinor: p.minPremiumMinor,
    maxInstalments: p.maxInstalments,
    ipfEligible: p.ipfEligible,
    renewable: p.renewable,
    excessText: p.excessText,
    terms: p.terms,
    rates: p.rates.map((r) => ({
      table: r.table,
      key: r.key ?? '',
      from: BigInt(r.from),
      to: r.to == null ? null : BigInt(r.to),
      rateBps: r.rateBps ?? null,
      amountMinor: r.amountMinor ?? null,
    })),
    ...over,
  };
}
