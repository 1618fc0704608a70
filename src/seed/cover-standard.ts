// Data, not logic: exempt from the ~300-line size rule for source files.
import type { DemoCoverProduct, DemoCoverRate } from './cover-types.ts';

/** One insurer's scale: rates and amounts `pct` % of the base figures below. */
interface Figures {
  kes: (shillings: number) => bigint;
  /** Contiguous bands on sums insured from 0: `uppers` in whole shillings (null: and above), one rate each. */
  siBands: (table: string, key: string, uppers: (number | null)[], rates: number[]) => DemoCoverRate[];
}

function figures(pct: number): Figures {
  const bps = (b: number) => Math.round((b * pct) / 100);
  const cents = (shillings: number) => BigInt(shillings) * 100n;
  return {
    kes: (shillings) => BigInt(Math.round((shillings * pct) / 100)) * 100n,
    siBands: (table, key, uppers, rates) =>
      uppers.map((up, i) => ({
        table,
        key,
        from: i === 0 ? 0n : cents(uppers[i - 1]!) + 1n,
        to: up === null ? null : cents(up),
        rateBps: bps(rates[i]),
      })),
  };
}

/**
 * The standard cover products of the insurer at `insurerIndex` on the panel (figures: covers/standard/rating.ts).
 * Market ranges: domestic package about 0.15 % (buildings) to 0.5–0.75 % (contents), here one blended scale; fire
 * and perils 0.1–0.3 %; personal accident 0.2–0.5 % of the benefit; golfer's cover about 2.5 % of the equipment with
 * a minimum near KES 2,500; WIBA KES 1,000–3,000 a head. Each insurer further down the panel charges 3 % more.
 */
export function standardProducts(insurerIndex: number): DemoCoverProduct[] {
  const f = figures(100 + 3 * insurerIndex);
  return [pa(f), domestic(f), wiba(f), fire(f), golfer(f)];
}

function pa(f: Figures): DemoCoverProduct {
  const { kes, siBands } = f;
  return {
    productLine: 'standard',
    code: 'PA',
    name: 'Personal accident',
    minPremiumMinor: kes(2_000),
    maxInstalments: 2,
    ipfEligible: false,
    renewable: true,
    excessText: 'Temporary total disability: the first 3 days; medical expenses: KES 1,000 each claim',
    terms: {
      basis: 'sum_insured',
      per_insured: true,
      head_label: 'insured persons',
      max_items: 50,
      max_item_sum_insured_minor: 1_000_000_000,
      extensions: [
        {
          code: 'medical_expenses_extension',
          name: 'Medical expenses extension',
          per: 'head',
          limit_minor: 20_000_000,
        },
      ],
      benefits: [
        { name: "Accidental death: the person's sum insured", limit_minor: null },
        { name: "Permanent total disability: the person's sum insured", limit_minor: null },
        { name: 'Temporary total disability: 1 % of the sum insured a week, up to 104 weeks', limit_minor: null },
        { name: 'Medical expenses after an accident', limit_minor: 5_000_000 },
        { name: 'Funeral expenses', limit_minor: 3_000_000 },
      ],
    },
    rates: [
      ...siBands('base', '', [1_000_000, 5_000_000, 500_000_000], [40, 30, 20]),
      { table: 'extension', key: 'medical_expenses_extension', from: 0, to: null, amountMinor: kes(500) },
    ],
  };
}

function domestic(f: Figures): DemoCoverProduct {
  const { kes, siBands } = f;
  return {
    productLine: 'standard',
    code: 'DOMESTIC',
    name: 'Domestic package',
    minPremiumMinor: kes(3_500),
    maxInstalments: 4,
    ipfEligible: false,
    renewable: true,
    excessText: 'KES 2,500 each claim; theft without forcible entry 10 % of the loss, at least KES 5,000',
    terms: {
      basis: 'sum_insured',
      per_insured: false,
      head_label: 'items',
      max_items: 100,
      extensions: [
        { code: 'riot_strike', name: 'Riot, strike and civil commotion', per: 'sum_insured' },
        { code: 'earthquake', name: 'Earthquake', per: 'sum_insured' },
        {
          code: 'all_risks_jewellery',
          name: 'All risks: jewellery and valuables',
          per: 'policy',
          limit_minor: 25_000_000,
        },
      ],
      benefits: [
        { name: "Owner's and occupier's liability", limit_minor: 100_000_000 },
        { name: 'Alternative accommodation: 10 % of the buildings sum insured', limit_minor: null },
        { name: 'Loss of keys and locks', limit_minor: 2_000_000 },
      ],
    },
    rates: [
      ...siBands('base', '', [5_000_000, 20_000_000, 100_000_000], [35, 25, 18]),
      ...siBands('extension', 'riot_strike', [null], [5]),
      ...siBands('extension', 'earthquake', [null], [5]),
      { table: 'extension', key: 'all_risks_jewellery', from: 0, to: null, amountMinor: kes(2_500) },
    ],
  };
}

function wiba(f: Figures): DemoCoverProduct {
  const { kes } = f;
  return {
    productLine: 'standard',
    code: 'WIBA',
    name: 'Work injury benefits (WIBA)',
    minPremiumMinor: kes(5_000),
    maxInstalments: 2,
    ipfEligible: false,
    renewable: true,
    excessText: 'Nil (statutory cover)',
    terms: {
      basis: 'headcount',
      per_insured: true,
      head_label: 'employees',
      extensions: [
        {
          code: 'common_law_liability',
          name: "Common law liability (employer's liability)",
          per: 'head',
          limit_minor: 200_000_000,
        },
      ],
      benefits: [
        { name: "Death: 96 months' earnings", limit_minor: null },
        { name: "Permanent total disability: 96 months' earnings", limit_minor: null },
        { name: 'Temporary total disability: earnings up to 12 months', limit_minor: null },
        { name: 'Medical expenses as the Act provides', limit_minor: null },
        { name: 'Funeral expenses', limit_minor: 3_000_000 },
      ],
    },
    rates: [
      { table: 'per_head', key: '', from: 1, to: 10, amountMinor: kes(2_500) },
      { table: 'per_head', key: '', from: 11, to: 50, amountMinor: kes(2_000) },
      { table: 'per_head', key: '', from: 51, to: 200, amountMinor: kes(1_500) },
      { table: 'per_head', key: '', from: 201, to: null, amountMinor: kes(1_200) },
      { table: 'extension', key: 'common_law_liability', from: 1, to: null, amountMinor: kes(300) },
    ],
  };
}

function fire(f: Figures): DemoCoverProduct {
  const { kes, siBands } = f;
  return {
    productLine: 'standard',
    code: 'FIRE',
    name: 'Fire and perils',
    minPremiumMinor: kes(5_000),
    maxInstalments: 4,
    ipfEligible: true,
    renewable: true,
    excessText: '1 % of the loss, at least KES 10,000; allied perils 2.5 %, at least KES 20,000',
    terms: {
      basis: 'sum_insured',
      per_insured: false,
      head_label: 'items',
      max_items: 200,
      extensions: [
        { code: 'riot_strike', name: 'Riot, strike and civil commotion', per: 'sum_insured' },
        { code: 'burglary', name: 'Burglary', per: 'sum_insured' },
        { code: 'business_interruption', name: 'Business interruption (consequential loss)', per: 'sum_insured' },
      ],
      benefits: [
        { name: 'Fire, lightning and explosion', limit_minor: null },
        { name: 'Storm, flood and allied perils', limit_minor: null },
        { name: 'Removal of debris: 10 % of the sum insured', limit_minor: null },
        { name: "Architects' and surveyors' fees: 5 % of the sum insured", limit_minor: null },
      ],
    },
    rates: [
      ...siBands('base', '', [10_000_000, 50_000_000, 500_000_000, 2_000_000_000], [25, 18, 12, 10]),
      ...siBands('extension', 'riot_strike', [null], [5]),
      ...siBands('extension', 'burglary', [null], [10]),
      ...siBands('extension', 'business_interruption', [null], [8]),
    ],
  };
}

function golfer(f: Figures): DemoCoverProduct {
  const { kes, siBands } = f;
  return {
    productLine: 'standard',
    code: 'GOLFER',
    name: "Golfer's cover",
    minPremiumMinor: kes(2_500),
    maxInstalments: 1,
    ipfEligible: false,
    renewable: true,
    excessText: 'Equipment: KES 1,000 each claim',
    terms: {
      basis: 'sum_insured',
      per_insured: false,
      head_label: 'items',
      max_items: 10,
      extensions: [{ code: 'hole_in_one', name: 'Hole-in-one celebration', per: 'policy', limit_minor: 5_000_000 }],
      benefits: [
        { name: 'Personal accident on the course (death and disability)', limit_minor: 50_000_000 },
        { name: 'Public liability', limit_minor: 100_000_000 },
        { name: 'Personal effects in the clubhouse', limit_minor: 2_000_000 },
      ],
    },
    rates: [
      ...siBands('base', '', [100_000, 500_000], [250, 150]),
      { table: 'extension', key: 'hole_in_one', from: 0, to: null, amountMinor: kes(1_000) },
    ],
  };
}
