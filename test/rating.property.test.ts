import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TenantType } from '../src/generated/prisma/enums.ts';
import {
  basicPremium,
  ipfOffers,
  levies,
  priceOption,
  type RatingLender,
  type RatingLevy,
  type RatingProduct,
  type RatingRisk,
  splitInstalments,
} from '../src/modules/motor/rating.ts';
import { LEVIES } from '../src/seed/demo-data.ts';
import { percentOf, shillings } from './helpers/money-oracle.ts';

// Expected figures come from the README's rules ("Money", "Rating") as the naive second implementation in
// helpers/money-oracle.ts computes them (its own rounding), or from hand-worked tables; never from money.ts.

// Vehicle values from KES 1 to KES 50 million, in cents.
const valueMinor = fc.bigInt({ min: 100n, max: 5_000_000_000n });
const premiumMinor = fc.bigInt({ min: 0n, max: 500_000_000n });
const START_YEAR = 2026;

/** Strictly increasing band bounds; the last band is "and above" (null) so every value finds one. */
const rateBands = fc
  .uniqueArray(fc.bigInt({ min: 100n, max: 5_000_000_000n }), { minLength: 0, maxLength: 3 })
  .chain((bounds) =>
    fc.tuple(
      fc.constant([...bounds].sort((a, b) => (a < b ? -1 : 1))),
      fc.array(fc.integer({ min: 1, max: 1500 }), { minLength: bounds.length + 1, maxLength: bounds.length + 1 }),
    ),
  )
  .map(([bounds, rates]) => [
    ...bounds.map((up, i) => ({ upToValueMinor: up, rateBps: rates[i] })),
    { upToValueMinor: null, rateBps: rates[bounds.length] },
  ]);

const tonnageBands = fc
  .uniqueArray(fc.integer({ min: 500, max: 60_000 }), { minLength: 0, maxLength: 3 })
  .chain((bounds) =>
    fc.tuple(
      fc.constant([...bounds].sort((a, b) => a - b)),
      fc.array(fc.bigInt({ min: 100_000n, max: 5_000_000n }), {
        minLength: bounds.length + 1,
        maxLength: bounds.length + 1,
      }),
    ),
  )
  .map(([bounds, premiums]) => [
    ...bounds.map((up, i) => ({ upToTonnesMilli: up, premiumMinor: premiums[i] })),
    { upToTonnesMilli: null, premiumMinor: premiums[bounds.length] },
  ]);

const product: fc.Arbitrary<RatingProduct> = fc.record({
  id: fc.integer({ min: 1, max: 1000 }),
  insurerId: fc.integer({ min: 1, max: 1000 }),
  version: fc.integer({ min: 1, max: 50 }),
  vehicleClass: fc.constantFrom('private', 'commercial', 'psv', 'motorcycle'),
  coverType: fc.constantFrom('comprehensive', 'tpo', 'tpft'),
  minPremiumMinor: fc.option(fc.bigInt({ min: 0n, max: 10_000_000n }), { nil: null }),
  flatPremiumMinor: fc.bigInt({ min: 100_000n, max: 2_000_000n }),
  pllPerSeatMinor: fc.bigInt({ min: 0n, max: 200_000n }),
  maxInstalments: fc.integer({ min: 1, max: 4 }),
  ipfEligible: fc.boolean(),
  maxVehicleAgeYears: fc.constant(null),
  rateBands,
  tonnageBands: fc.oneof(fc.constant([] as RatingProduct['tonnageBands']), tonnageBands),
});

const levyTable: fc.Arbitrary<RatingLevy[]> = fc.array(
  fc.oneof(
    fc.record({
      code: fc.constantFrom('TL', 'PHCF', 'X'),
      name: fc.constant('percent levy'),
      basis: fc.constant('percent' as const),
      rateBps: fc.integer({ min: 0, max: 1000 }),
      amountMinor: fc.constant(null),
    }),
    fc.record({
      code: fc.constantFrom('SD', 'Y'),
      name: fc.constant('flat duty'),
      basis: fc.constant('flat' as const),
      rateBps: fc.constant(null),
      amountMinor: fc.bigInt({ min: 0n, max: 1_000_000n }),
    }),
  ),
  { maxLength: 5 },
);

const risk: fc.Arbitrary<RatingRisk> = fc.record({
  valueMinor,
  tonnesMilli: fc.option(fc.integer({ min: 0, max: 80_000 }), { nil: null }),
  pll: fc.integer({ min: 0, max: 60 }),
  yearOfManufacture: fc.integer({ min: 1990, max: START_YEAR }),
  startYear: fc.constant(START_YEAR),
});

/** A lender as the seed makes them: a rate per tenor, the deposit one instalment, no ceiling. */
const rateLender = (l: Pick<RatingLender, 'name' | 'minPremiumMinor' | 'tenors'>, id = 1): RatingLender => ({
  id,
  maxPremiumMinor: null,
  pricing: 'rate_per_tenor',
  depositRule: 'one_instalment',
  depositBps: null,
  maxInstalmentToIncomeBps: 3000,
  defaultGraceDays: 30,
  feeBands: [],
  ...l,
});

const lenders: fc.Arbitrary<RatingLender[]> = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom('Mkopo', 'Jamii', 'Other'),
      minPremiumMinor: fc.bigInt({ min: 0n, max: 5_000_000n }),
      tenors: fc.uniqueArray(
        fc.record({ months: fc.integer({ min: 1, max: 12 }), chargeBps: fc.integer({ min: 0, max: 1500 }) }),
        { minLength: 1, maxLength: 4, selector: (t) => t.months },
      ),
    }),
    { minLength: 1, maxLength: 3, selector: (l) => l.name },
  )
  .map((ls) => ls.map((l, i) => rateLender(l, i + 1)));

const sum = (xs: bigint[]) => xs.reduce((s, x) => s + x, 0n);

describe('splitInstalments', () => {
  it('splits any total into n parts that sum exactly, later parts equal whole shillings', () => {
    fc.assert(
      fc.property(premiumMinor, fc.integer({ min: 1, max: 4 }), (total, n) => {
        const parts = splitInstalments(total, n);
        // README: parts 2..n are the total divided evenly, rounded down to a whole shilling; part 1 the rest.
        const share = total / BigInt(n);
        const whole = share - (share % 100n);
        expect(parts).toEqual([total - whole * BigInt(n - 1), ...Array.from({ length: n - 1 }, () => whole)]);
        expect(parts).toHaveLength(n);
        expect(sum(parts)).toBe(total);
        const [first, ...later] = parts;
        expect(first >= 0n).toBe(true);
        for (const p of later) {
          expect(p % 100n).toBe(0n);
          expect(p).toBe(later[0]);
          // The first part carries the rounding remainder, so it is never the smaller one, and never by a shilling per part.
          expect(first >= p).toBe(true);
          expect(first - p < 100n * BigInt(n)).toBe(true);
        }
        // The whole-shilling figures shown to the caller add up to the whole-shilling total as well.
        expect(parts.map(shillings).reduce((s, x) => s + x, 0)).toBe(shillings(total));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses zero parts', () => {
    expect(() => splitInstalments(100n, 0)).toThrow(RangeError);
  });
});

describe('levies', () => {
  it('percent levies are basis points of the basic premium, flat ones their amount', () => {
    fc.assert(
      fc.property(premiumMinor, levyTable, (basic, table) => {
        const lines = levies(basic, table);
        expect(lines.map((l) => l.code)).toEqual(table.map((l) => l.code));
        lines.forEach((line, i) => {
          const l = table[i];
          expect(line.amountMinor).toBe(l.basis === 'percent' ? percentOf(basic, l.rateBps!) : l.amountMinor);
        });
      }),
    );
  });

  it('the domain worked example: basic KES 45,000 → TL 90.00, PHCF 112.50, SD 40.00, gross 45,242.50', () => {
    const lines = levies(4_500_000n, LEVIES);
    expect(lines.map((l) => [l.code, l.amountMinor])).toEqual([
      ['TL', 9_000n],
      ['PHCF', 11_250n],
      ['SD', 4_000n],
    ]);
    const flat45k: RatingProduct = {
      id: 1,
      insurerId: 1,
      version: 1,
      vehicleClass: 'private',
      coverType: 'tpo',
      minPremiumMinor: null,
      flatPremiumMinor: 4_500_000n,
      pllPerSeatMinor: 50_000n,
      maxInstalments: 1,
      ipfEligible: true,
      maxVehicleAgeYears: null,
      rateBands: [],
      tonnageBands: [],
    };
    const priced = priceOption(
      flat45k,
      { valueMinor: null, tonnesMilli: null, pll: 0, yearOfManufacture: 2020, startYear: 2026 },
      LEVIES,
      { tenantType: 'brokerage', lenders: [] },
    );
    if ('ineligible' in priced) throw new Error(priced.ineligible);
    expect(priced.taxesMinor).toBe(24_250n);
    expect(priced.totalMinor).toBe(4_524_250n);
    expect(shillings(priced.totalMinor)).toBe(45_243);
  });
});

describe('hand-worked figures', () => {
  it('KES 1,234,567 comprehensive at 3.5 % with the demo levies, in 3 instalments, financed over 4 months', () => {
    const p: RatingProduct = {
      id: 1,
      insurerId: 1,
      version: 1,
      vehicleClass: 'private',
      coverType: 'comprehensive',
      minPremiumMinor: 1_500_000n,
      flatPremiumMinor: null,
      pllPerSeatMinor: 50_000n,
      maxInstalments: 3,
      ipfEligible: true,
      maxVehicleAgeYears: 10,
      rateBands: [{ upToValueMinor: null, rateBps: 350 }],
      tonnageBands: [],
    };
    const r: RatingRisk = {
      valueMinor: 123_456_700n,
      tonnesMilli: null,
      pll: 0,
      yearOfManufacture: 2023,
      startYear: 2026,
    };
    const lender = rateLender({ name: 'Mkopo', minPremiumMinor: 2_500_000n, tenors: [{ months: 4, chargeBps: 220 }] });
    const priced = priceOption(p, r, LEVIES, { tenantType: 'brokerage', lenders: [lender] });
    if ('ineligible' in priced) throw new Error(priced.ineligible);
    // 1,234,567 × 3.5 % = 43,209.845: half a cent, rounded away from zero to 43,209.85.
    expect(priced.basicMinor).toBe(4_320_985n);
    // TL 0.2 % = 86.4197 → 86.42; PHCF 0.25 % = 108.024625 → 108.02; stamp duty KES 40.
    expect(priced.taxes.map((x) => [x.code, x.amountMinor])).toEqual([
      ['TL', 8_642n],
      ['PHCF', 10_802n],
      ['SD', 4_000n],
    ]);
    expect(priced.totalMinor).toBe(4_344_429n);
    // 43,444.29 / 3 = 14,481.43 → 14,481 for parts 2 and 3; part 1 takes the rest, 14,482.29.
    expect(priced.instalments[2]).toEqual({ parts: 3, amountsMinor: [1_448_229n, 1_448_100n, 1_448_100n] });
    // Finance: 2.2 % of 43,444.29 = 955.77438 → 955.77; 44,400.06 over 4: 11,100 × 3 and a deposit of 11,100.06.
    expect(priced.ipfOffers).toEqual([
      {
        lenderName: 'Mkopo',
        tenorMonths: 4,
        depositMinor: 1_110_006n,
        instalmentMinor: 1_110_000n,
        aprBps: 660,
        chargeMinor: 95_577n,
      },
    ]);
    // KES 200,000 at 3.5 % is 7,000, below the KES 15,000 minimum premium; 11 years old is past the limit of 10.
    expect(basicPremium(p, { ...r, valueMinor: 20_000_000n })).toEqual({ basicMinor: 1_500_000n, rateBps: 350 });
    expect(basicPremium(p, { ...r, yearOfManufacture: 2015 })).toHaveProperty('ineligible');
    expect(basicPremium(p, { ...r, yearOfManufacture: 2016 })).not.toHaveProperty('ineligible');
  });
});

describe('priceOption', () => {
  it('taxes total the levy lines, the total is basic + taxes, and every instalment plan sums to the total', () => {
    fc.assert(
      fc.property(
        product,
        risk,
        levyTable,
        lenders,
        fc.constantFrom<TenantType>('brokerage', 'agency', 'sacco', 'microfinance'),
        (p, r, table, ls, tenantType) => {
          const priced = priceOption(p, r, table, { tenantType, lenders: ls });
          if ('ineligible' in priced) throw new Error(`unexpectedly ineligible: ${priced.ineligible}`);
          expect(priced.taxes).toEqual(
            table.map((l) => ({
              code: l.code,
              name: l.name,
              amountMinor: l.basis === 'percent' ? percentOf(priced.basicMinor, l.rateBps!) : l.amountMinor,
            })),
          );
          expect(priced.taxesMinor).toBe(sum(priced.taxes.map((t) => t.amountMinor)));
          expect(priced.totalMinor).toBe(priced.basicMinor + priced.taxesMinor);
          expect(priced.pllMinor).toBe(BigInt(r.pll) * p.pllPerSeatMinor);
          expect(priced.productVersion).toBe(p.version);
          expect(priced.instalments.map((i) => i.parts)).toEqual(
            Array.from({ length: p.maxInstalments }, (_, i) => i + 1),
          );
          for (const plan of priced.instalments) {
            expect(plan.amountsMinor).toHaveLength(plan.parts);
            expect(sum(plan.amountsMinor)).toBe(priced.totalMinor);
            expect(plan.amountsMinor.map(shillings).reduce((s, x) => s + x, 0)).toBe(shillings(priced.totalMinor));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('comprehensive: max(value × band rate, minimum), never below the minimum; pll seats added on top', () => {
    fc.assert(
      fc.property(product, risk, (p0, r) => {
        const p = { ...p0, coverType: 'comprehensive' as const };
        const band = p.rateBands.find((b) => b.upToValueMinor === null || r.valueMinor! <= b.upToValueMinor)!;
        const basic = basicPremium(p, r);
        if ('ineligible' in basic) throw new Error(basic.ineligible);
        const rated = percentOf(r.valueMinor!, band.rateBps);
        const min = p.minPremiumMinor ?? 0n;
        expect(basic.rateBps).toBe(band.rateBps);
        expect(basic.basicMinor).toBe(rated > min ? rated : min);
        expect(basic.basicMinor >= min).toBe(true);
        const priced = priceOption(p, r, [], { tenantType: 'brokerage', lenders: [] });
        if ('ineligible' in priced) throw new Error(priced.ineligible);
        expect(priced.basicMinor).toBe(basic.basicMinor + BigInt(r.pll) * p.pllPerSeatMinor);
        expect(priced.basicMinor >= min).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('TPO: the flat premium, or for commercial vehicles the tonnage band (the lowest without a tonnage)', () => {
    fc.assert(
      fc.property(product, risk, (p0, r) => {
        const p = { ...p0, coverType: 'tpo' as const };
        const basic = basicPremium(p, r);
        if ('ineligible' in basic) throw new Error(basic.ineligible);
        expect(basic.rateBps).toBeNull();
        if (p.vehicleClass === 'commercial' && p.tonnageBands.length) {
          const band =
            r.tonnesMilli == null
              ? p.tonnageBands[0]
              : p.tonnageBands.find((b) => b.upToTonnesMilli === null || r.tonnesMilli! <= b.upToTonnesMilli)!;
          expect(basic.basicMinor).toBe(band.premiumMinor);
        } else {
          expect(basic.basicMinor).toBe(p.flatPremiumMinor);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("comprehensive needs a value, and respects the insurer's vehicle age limit", () => {
    fc.assert(
      fc.property(product, risk, fc.integer({ min: 1, max: 20 }), (p0, r, maxAge) => {
        const p = { ...p0, coverType: 'comprehensive' as const, maxVehicleAgeYears: maxAge };
        expect(basicPremium(p, { ...r, valueMinor: null })).toHaveProperty('ineligible');
        const age = r.startYear - r.yearOfManufacture;
        const basic = basicPremium(p, r);
        expect('ineligible' in basic).toBe(age > maxAge);
      }),
    );
  });
});

describe('ipfOffers', () => {
  it('deposit + instalment × (months − 1) = total + finance charge, to the cent', () => {
    fc.assert(
      fc.property(
        premiumMinor,
        product,
        lenders,
        fc.constantFrom<TenantType>('brokerage', 'agency'),
        (total, p0, ls, tenantType) => {
          const p = { ...p0, ipfEligible: true };
          const { offers, reason } = ipfOffers(total, p, tenantType, ls);
          const eligible = ls.filter((l) => total >= l.minPremiumMinor);
          if (!eligible.length) {
            expect(offers).toEqual([]);
            expect(reason).toMatch(/minimum/);
            return;
          }
          expect(reason).toBeNull();
          expect(offers).toHaveLength(eligible.reduce((n, l) => n + l.tenors.length, 0));
          for (const o of offers) {
            const tenor = ls
              .find((l) => l.name === o.lenderName && l.tenors.some((t) => t.months === o.tenorMonths))!
              .tenors.find((t) => t.months === o.tenorMonths)!;
            expect(o.chargeMinor).toBe(percentOf(total, tenor.chargeBps));
            expect(o.depositMinor + o.instalmentMinor * BigInt(o.tenorMonths - 1)).toBe(total + o.chargeMinor);
            expect(o.instalmentMinor % 100n === 0n || o.tenorMonths === 1).toBe(true);
            expect(o.aprBps).toBe(Math.round((tenor.chargeBps * 12) / tenor.months));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('is refused with a reason for SACCO and microfinance organisations, whatever the premium', () => {
    fc.assert(
      fc.property(
        premiumMinor,
        product,
        lenders,
        fc.constantFrom<TenantType>('sacco', 'microfinance'),
        (total, p, ls, tenantType) => {
          const { offers, reason } = ipfOffers(
            total,
            { ...p, ipfEligible: true },
            tenantType,
            ls.map((l) => ({ ...l, minPremiumMinor: 0n })),
          );
          expect(offers).toEqual([]);
          expect(reason).toMatch(/brokerage and agency/);
        },
      ),
    );
  });

  it('is refused with a reason when the insurer does not accept finance or no lender is on the panel', () => {
    fc.assert(
      fc.property(premiumMinor, product, lenders, (total, p, ls) => {
        const notEligible = ipfOffers(total, { ...p, ipfEligible: false }, 'brokerage', ls);
        expect(notEligible.offers).toEqual([]);
        expect(notEligible.reason).toMatch(/does not accept premium finance/);
        const noLender = ipfOffers(total, { ...p, ipfEligible: true }, 'brokerage', []);
        expect(noLender.offers).toEqual([]);
        expect(noLender.reason).toBeTruthy();
      }),
    );
  });

  it('the seeded lenders: KES 25,000 is the smallest premium financed', () => {
    const ls: RatingLender[] = [
      rateLender({
        name: 'Mkopo Premium Finance',
        minPremiumMinor: 2_500_000n,
        tenors: [{ months: 4, chargeBps: 220 }],
      }),
      rateLender({ name: 'Jamii Credit', minPremiumMinor: 3_000_000n, tenors: [{ months: 3, chargeBps: 190 }] }, 2),
    ];
    const p = { ipfEligible: true } as RatingProduct;
    expect(ipfOffers(2_499_999n, p, 'brokerage', ls).reason).toMatch(/KES 25,000/);
    expect(ipfOffers(2_500_000n, p, 'brokerage', ls).offers.map((o) => o.lenderName)).toEqual([
      'Mkopo Premium Finance',
    ]);
    expect(ipfOffers(3_000_000n, p, 'brokerage', ls).offers).toHaveLength(2);
  });
});
