// Data, not logic: exempt from the ~300-line size rule for source files.
import type { DemoCoverProduct, DemoCoverRate } from './cover-types.ts';

/**
 * Demo medical figures (tables and terms documented in covers/medical/rating.ts). Premiums are annual, per person,
 * in whole shillings: the base figure of the age band × the limit's factor (%) × the insurer's factor (100 % + 3 % per
 * place on the panel), rounded down to the shilling. So premiums rise with age and with the limit, and insurers
 * differ. The last insurer of the panel offers no KES 10M inpatient limit nor KES 300,000 outpatient; the last two
 * take groups from 5 members, the others from 3.
 */

interface Schedule {
  /** Age bands in years (inclusive) and their base premium (whole shillings) at the factor-100 limit. */
  bands: { from: number; to: number; base: number }[];
  /** Limit in whole shillings → factor in percent. */
  limits: [number, number][];
}

const INPATIENT: Schedule = {
  bands: [
    { from: 0, to: 17, base: 5_500 },
    { from: 18, to: 29, base: 9_800 },
    { from: 30, to: 39, base: 11_500 },
    { from: 40, to: 49, base: 14_200 },
    { from: 50, to: 59, base: 19_800 },
    { from: 60, to: 69, base: 28_500 },
    { from: 70, to: 80, base: 41_000 },
  ],
  limits: [
    [500_000, 100],
    [1_000_000, 135],
    [2_000_000, 175],
    [3_000_000, 205],
    [5_000_000, 250],
    [10_000_000, 330],
  ],
};

const OUTPATIENT: Schedule = {
  bands: [
    { from: 0, to: 17, base: 4_000 },
    { from: 18, to: 39, base: 5_200 },
    { from: 40, to: 59, base: 6_800 },
    { from: 60, to: 80, base: 9_500 },
  ],
  limits: [
    [30_000, 100],
    [50_000, 150],
    [100_000, 260],
    [150_000, 360],
    [200_000, 450],
    [300_000, 620],
  ],
};

/** Maternity covers adults 18–49 only: no band for other ages, so other members neither pay for it nor have it. */
const MATERNITY: Schedule = {
  bands: [{ from: 18, to: 49, base: 9_000 }],
  limits: [
    [30_000, 100],
    [50_000, 150],
    [100_000, 270],
    [150_000, 380],
    [200_000, 480],
    [300_000, 680],
  ],
};

const SMALL_LIMITS: [number, number][] = [
  [10_000, 100],
  [20_000, 180],
  [30_000, 250],
  [50_000, 380],
];

const DENTAL: Schedule = {
  bands: [
    { from: 0, to: 17, base: 1_500 },
    { from: 18, to: 80, base: 2_200 },
  ],
  limits: SMALL_LIMITS,
};

const OPTICAL: Schedule = {
  bands: [
    { from: 0, to: 17, base: 1_200 },
    { from: 18, to: 80, base: 1_800 },
  ],
  limits: SMALL_LIMITS,
};

/** Group discounts by number of members (basis points); the first band's lower bound is the minimum group size. */
const HEADCOUNT: { from: number; to: number | null; bps: number }[] = [
  { from: 3, to: 9, bps: 0 },
  { from: 10, to: 24, bps: 500 },
  { from: 25, to: 49, bps: 1_000 },
  { from: 50, to: 99, bps: 1_500 },
  { from: 100, to: null, bps: 2_000 },
];

function tableRows(table: string, s: Schedule, insurerIndex: number, maxLimit: number): DemoCoverRate[] {
  const insurerPct = BigInt(100 + 3 * insurerIndex);
  return s.limits
    .filter(([limit]) => limit <= maxLimit)
    .flatMap(([limit, limitPct]) =>
      s.bands.map((b) => ({
        table,
        key: String(BigInt(limit) * 100n),
        from: b.from,
        to: b.to,
        amountMinor: ((BigInt(b.base) * BigInt(limitPct) * insurerPct) / 10_000n) * 100n,
      })),
    );
}

function headcountRows(insurerIndex: number): DemoCoverRate[] {
  const minimum = insurerIndex >= 3 ? 5 : 3;
  return HEADCOUNT.map((b, i) => ({
    table: 'group_headcount',
    key: '',
    from: i === 0 ? minimum : b.from,
    to: b.to,
    rateBps: b.bps,
  }));
}

function composition(head: 'principal' | 'employee') {
  return {
    [`${head}_min_age`]: 18,
    [`${head}_max_age`]: 65,
    max_spouses: 1,
    spouse_min_age: 18,
    child_max_age: 17,
    student_max_age: 24,
  };
}

/** The medical cover products of the insurer at `insurerIndex` on the panel (figures: covers/medical/rating.ts). */
export function medicalProducts(insurerIndex: number): DemoCoverProduct[] {
  const last = insurerIndex >= 4;
  const unlimited = Number.MAX_SAFE_INTEGER;
  return [
    {
      productLine: 'medical',
      code: 'MEDICAL',
      name: 'Medical Cover',
      minPremiumMinor: BigInt(12_000 * 100),
      maxInstalments: 4,
      ipfEligible: false,
      renewable: true,
      excessText: 'Nil excess on inpatient claims; waiting periods as stated in the terms',
      terms: {
        family: composition('principal'),
        group: composition('employee'),
        waiting_periods: {
          family: { illness_days: 30, maternity_months: 12 },
          group: { illness_days: insurerIndex % 2 === 0 ? 0 : 30, maternity_months: 10 },
        },
        benefit_names: {
          inpatient: 'Inpatient',
          outpatient: 'Outpatient',
          maternity: 'Maternity',
          dental: 'Dental',
          optical: 'Optical',
        },
      },
      rates: [
        ...tableRows('inpatient', INPATIENT, insurerIndex, last ? 5_000_000 : unlimited),
        ...tableRows('outpatient', OUTPATIENT, insurerIndex, last ? 200_000 : unlimited),
        ...tableRows('maternity', MATERNITY, insurerIndex, unlimited),
        ...tableRows('dental', DENTAL, insurerIndex, unlimited),
        ...tableRows('optical', OPTICAL, insurerIndex, unlimited),
        ...headcountRows(insurerIndex),
      ],
    },
  ];
}
