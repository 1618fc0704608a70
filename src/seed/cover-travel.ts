// Data, not logic: exempt from the ~300-line size rule for source files.
import type { DemoCoverProduct, DemoCoverRate } from './cover-types.ts';

/**
 * Single-trip travel of the demo panel (rules and tables: covers/travel/rating.ts). Figures after
 * ../shared/notes/domain.md "Medical and travel": plan × region × day band gives the premium per traveller; ages
 * 6 months to 69 at the base rate, 70 to 80 with a 50 % loading; the Schengen visa asks EUR 30,000 of medical cover,
 * so every limit is stated in euros (no exchange rate in rating) and the Basic plan (EUR 15,000) is not sold for
 * Schengen. Each insurer's premiums are the panel's figures + 3 % per place on the panel, so options differ.
 */

/** Inclusive trip lengths in days: the market's bands up to 7, 10, 15, 21, 30, 60, 92, 183 and 365 days. */
const DAY_BANDS: readonly [number, number][] = [
  [1, 7],
  [8, 10],
  [11, 15],
  [16, 21],
  [22, 30],
  [31, 60],
  [61, 92],
  [93, 183],
  [184, 365],
];

/** The Standard plan's premium per traveller in whole shillings, one figure a day band (never falling). */
const STANDARD_PREMIUM: Record<'africa' | 'schengen' | 'worldwide', readonly number[]> = {
  africa: [1_200, 1_500, 1_800, 2_200, 2_700, 4_200, 5_600, 8_400, 12_600],
  schengen: [2_000, 2_500, 3_000, 3_600, 4_400, 6_900, 9_200, 13_800, 20_700],
  worldwide: [3_200, 4_000, 4_800, 5_800, 7_000, 11_000, 14_700, 22_000, 33_000],
};

/** The plans; `factorBps` scales the Standard figures (seed only, not part of the terms). */
const PLANS = [
  {
    code: 'BASIC',
    name: 'Basic',
    medical_limit_eur: 15_000,
    benefits: ['Emergency evacuation and repatriation', 'Personal accident EUR 10,000', 'Delayed baggage EUR 100'],
    factorBps: 7_000,
    regions: ['africa', 'worldwide'] as const,
  },
  {
    code: 'STANDARD',
    name: 'Standard',
    medical_limit_eur: 50_000,
    benefits: [
      'Emergency evacuation and repatriation',
      'Personal accident EUR 25,000',
      'Lost baggage EUR 1,000',
      'Trip cancellation EUR 1,500',
    ],
    factorBps: 10_000,
    regions: ['africa', 'schengen', 'worldwide'] as const,
  },
  {
    code: 'PREMIER',
    name: 'Premier',
    medical_limit_eur: 150_000,
    benefits: [
      'Emergency evacuation and repatriation',
      'Personal accident EUR 50,000',
      'Lost baggage EUR 2,500',
      'Trip cancellation EUR 5,000',
      'Personal liability EUR 500,000',
    ],
    factorBps: 16_000,
    regions: ['africa', 'schengen', 'worldwide'] as const,
  },
];

/** Age loading by age in whole months at departure: 6 months–69 years 11 months at base, 70–80 years + 50 %. */
const AGE_LOADING: DemoCoverRate[] = [
  { table: 'age_loading', from: 6, to: 839, rateBps: 0 },
  { table: 'age_loading', from: 840, to: 971, rateBps: 5_000 },
];

/** shillings × plan factor × insurer factor, rounded half up to a whole shilling, in cents. */
function premiumMinor(shillings: number, planBps: number, insurerBps: number): bigint {
  const scaled = BigInt(shillings) * BigInt(planBps) * BigInt(insurerBps);
  return ((scaled + 50_000_000n) / 100_000_000n) * 100n;
}

/** The travel cover products of the insurer at `insurerIndex` on the panel (figures: covers/travel/rating.ts). */
export function travelProducts(insurerIndex: number): DemoCoverProduct[] {
  const insurerBps = 10_000 + 300 * insurerIndex;
  const trip: DemoCoverRate[] = PLANS.flatMap((plan) =>
    plan.regions.flatMap((region) =>
      DAY_BANDS.map(([from, to], band) => ({
        table: 'trip',
        key: `${plan.code}:${region}`,
        from,
        to,
        amountMinor: premiumMinor(STANDARD_PREMIUM[region][band], plan.factorBps, insurerBps),
      })),
    ),
  );
  return [
    {
      productLine: 'travel',
      code: 'TRAVEL',
      name: 'Single-Trip Travel',
      minPremiumMinor: BigInt(1_000 * 100),
      maxInstalments: 1,
      ipfEligible: false,
      renewable: false,
      excessText: 'Emergency medical expenses: EUR 50 each and every claim',
      terms: {
        plans: PLANS.map(({ code, name, medical_limit_eur, benefits }) => ({
          code,
          name,
          medical_limit_eur,
          benefits,
        })),
        schengen_min_medical_eur: 30_000,
      },
      rates: [...trip, ...AGE_LOADING],
    },
  ];
}
