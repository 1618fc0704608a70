import type { CoverLine } from '../line.ts';
import type { StandardQuoteInput, StandardRisk } from './types.ts';
import { normaliseStandard } from './normalise.ts';
import { priceStandard } from './rating.ts';
import { kes } from '../arith.ts';

export type { StandardItem, StandardItemInput, StandardQuoteInput, StandardRisk } from './types.ts';

/** A few words for messages ("No insurer rates a domestic package …"), by the catalogue's product code. */
const PHRASES: Record<string, string> = {
  PA: 'personal accident cover',
  DOMESTIC: 'a domestic package',
  WIBA: 'work injury benefits (WIBA) cover',
  FIRE: 'fire and perils cover',
  GOLFER: "golfer's cover",
};

function describe(risk: StandardRisk): string {
  const what = PHRASES[risk.productCode] ?? `the standard product ${risk.productCode}`;
  if (risk.totalSumInsuredMinor > 0n) return `${what} for a sum insured of ${kes(risk.totalSumInsuredMinor)}`;
  return risk.headcount ? `${what} for ${risk.headcount} ${risk.headcount === 1 ? 'person' : 'persons'}` : what;
}

export const standardLine: CoverLine<StandardQuoteInput, StandardRisk> = {
  line: 'standard',
  label: 'Standard products',
  normalise: (input, opts) => normaliseStandard(input, opts),
  price: priceStandard,
  insured: (risk) =>
    risk.items.map((it, i) => ({
      kind: 'item',
      name: it.description ?? `Item ${i + 1}`,
      sumInsuredMinor: it.sumInsuredMinor,
      idNo: it.idNo,
    })),
  // The request's own fields (sums insured in whole shillings, as sent) beside the cents: normalise reads it back.
  coverDetails: (risk) => ({
    product: risk.productCode,
    coverPeriod: risk.coverPeriod,
    startDate: risk.startDate,
    endDate: risk.endDate,
    days: risk.days,
    items: risk.items.map((it) => ({
      description: it.description,
      sumInsured: it.sumInsuredMinor === null ? null : Number(it.sumInsuredMinor / 100n),
      sumInsuredMinor: it.sumInsuredMinor === null ? null : Number(it.sumInsuredMinor),
      idNo: it.idNo,
    })),
    headcount: risk.headcount,
    totalSumInsuredMinor: Number(risk.totalSumInsuredMinor),
    extensions: risk.extensions,
  }),
  describe,
};
