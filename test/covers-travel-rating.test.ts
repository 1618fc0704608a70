import { asRating } from './helpers/cover-products.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../src/lib/dates.ts';
import { ValidationError } from '../src/lib/problem.ts';
import type { LinePriced, RatingCoverProduct } from '../src/modules/covers/line.ts';
import { ageOn } from '../src/modules/covers/travel/normalise.ts';
import { type TravelQuoteInput, type TravelRisk, travelLine } from '../src/modules/covers/travel/travel.ts';
import { travelProducts } from '../src/seed/cover-travel.ts';
import { percentOf } from './helpers/money-oracle.ts';

// Pure: no database. Products come from the demo seed (src/seed/cover-travel.ts) or from generated tables; the
// figures of the worked examples are computed by hand in the comments, never by calling the code twice.

const TODAY = '2026-03-10';
const KES = (shillings: number) => BigInt(shillings) * 100n;
const total = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);

/** The seed's travel product of the insurer at `index`, as the rating cache holds it. */
const seeded = (index = 0, over: Partial<RatingCoverProduct> = {}): RatingCoverProduct =>
  asRating(travelProducts(index)[0], index, over);

const normalise = (input: unknown, forBind = false, prefix?: string) =>
  travelLine.normalise(input as TravelQuoteInput, { today: TODAY, forBind, prefix });

/** A 14-day Schengen trip on the Standard plan, 1–14 April 2026. */
const trip = (over: Partial<TravelQuoteInput> = {}): TravelQuoteInput => ({
  plan: 'STANDARD',
  region: 'schengen',
  destination: 'France, Italy',
  departureDate: '2026-04-01',
  returnDate: '2026-04-14',
  travellers: [{ name: 'Amina Otieno', age: 45, passportNo: 'AK1234567' }],
  ...over,
});

function priced(product: RatingCoverProduct, risk: TravelRisk): LinePriced {
  const out = travelLine.price(product, risk);
  if ('ineligible' in out) throw new Error(`refused: ${out.ineligible}`);
  return out;
}
const refusal = (product: RatingCoverProduct, risk: TravelRisk): string | null => {
  const out = travelLine.price(product, risk);
  return 'ineligible' in out ? out.ineligible : null;
};

/** The field names of the ValidationError that normalise throws (anything else thrown fails the test). */
function fieldsOf(input: unknown, forBind = false, prefix?: string): string[] {
  try {
    normalise(input, forBind, prefix);
  } catch (e) {
    if (e instanceof ValidationError) return (e.errors ?? []).map((x) => x.field);
    throw e;
  }
  return [];
}

describe('travel rating: hand-worked examples on the demo seed', () => {
  it('prices a 14-day Schengen trip for two, one of them 70 (age loading +50 %)', () => {
    // 1–14 April inclusive = 14 days → band 11–15 days. Insurer 0 (factor 1.00), Standard plan (factor 1.00):
    // Schengen 11–15 days = KES 3,000 per traveller. Born 1955-06-01: on 2026-04-01 70 years 10 months = 850 months,
    // in the 840–971 band, +50 % → 3,000 + 1,500 = 4,500. The other, 45, at base: 3,000. Basic 7,500.00.
    const risk = normalise(
      trip({
        travellers: [
          { name: 'Amina', age: 45 },
          { name: 'Joseph', dateOfBirth: '1955-06-01' },
        ],
      }),
    );
    expect(risk.days).toBe(14);
    const p = priced(seeded(0), risk);
    expect(p.basicMinor).toBe(KES(7_500));
    expect(p.perInsuredMinor).toEqual([KES(3_000), KES(4_500)]);
    expect(p.breakdown).toEqual([
      { item: 'Base premium (2 travellers × KES 3,000)', amountMinor: KES(6_000) },
      { item: 'Age loading +50 % (1 traveller)', amountMinor: KES(1_500) },
    ]);
    expect(p.rateBps).toBeNull();
    expect(p.terms).toEqual({
      plan: 'STANDARD',
      plan_name: 'Standard',
      region: 'schengen',
      destination: 'France, Italy',
      medical_limit: 50_000,
      medical_limit_currency: 'EUR',
      days: 14,
      day_band: { from: 11, to: 15 },
      premium_per_traveller_minor: 300_000,
      travellers: [
        { name: 'Amina', age: 45, loading_bps: 0 },
        { name: 'Joseph', age: 70, loading_bps: 5_000 },
      ],
    });
    expect(p.benefits[0]).toEqual({ name: 'Emergency medical expenses, EUR 50,000', limitMinor: null });
    expect(JSON.parse(JSON.stringify(p.terms))).toEqual(p.terms);
  });

  it('varies by insurer: +3 % per place on the panel, rounded to the whole shilling', () => {
    // Insurer 1: 3,000 × 1.03 = 3,090.00.
    expect(priced(seeded(1), normalise(trip())).basicMinor).toBe(KES(3_090));
    // Insurer 3, Premier worldwide, 40 days (band 31–60): 11,000 × 1.60 × 1.09 = 19,184.00.
    const premier = normalise(trip({ plan: 'premier', region: 'Worldwide', returnDate: '2026-05-10' }));
    expect(premier.days).toBe(40);
    expect(priced(seeded(3), premier).basicMinor).toBe(KES(19_184));
    // Insurer 4, Basic Africa, 7 days: 1,200 × 0.70 × 1.12 = 940.80 → 941.00 (and above the 1,000 minimum? no:
    // 941 < 1,000, so the minimum lifts it by 59.00).
    const basic = normalise(trip({ plan: 'Basic', region: 'Africa', returnDate: '2026-04-07' }));
    const p = priced(seeded(4), basic);
    expect(p.basicMinor).toBe(KES(1_000));
    expect(p.breakdown).toEqual([
      { item: 'Base premium (1 traveller × KES 941)', amountMinor: KES(941) },
      { item: 'Minimum premium adjustment', amountMinor: KES(59) },
    ]);
    // Insurer 2, Basic Africa, 10 days (band 8–10): 1,500 × 0.70 × 1.06 = 1,113.00, above the minimum.
    const ten = normalise(trip({ plan: 'BASIC', region: 'africa', returnDate: '2026-04-10' }));
    expect(priced(seeded(2), ten).basicMinor).toBe(KES(1_113));
  });

  it('shares a minimum-premium lift over the travellers in proportion, the remainder to the first', () => {
    const africa5 = { plan: 'BASIC', region: 'africa', returnDate: '2026-04-05' };
    // Basic Africa 5 days on insurer 0: 1,200 × 0.70 = 840 each. Ages 30 and 75 (+50 %): 840 and 1,260 = 2,100.
    // A 3,000 minimum lifts by 900: 900 × 840/2,100 = 360 and 900 × 1,260/2,100 = 540 → 1,200 and 1,800.
    const two = normalise(trip({ ...africa5, travellers: [{ age: 30 }, { age: 75 }] }));
    const p = priced(seeded(0, { minPremiumMinor: KES(3_000) }), two);
    expect(p.perInsuredMinor).toEqual([KES(1_200), KES(1_800)]);
    expect(p.breakdown.at(-1)).toEqual({ item: 'Minimum premium adjustment', amountMinor: KES(900) });
    // Three at 840.00 = 2,520.00 = 252,000 cents; minimum 300,001 cents lifts by 48,001: 48,001 × 84,000 / 252,000 =
    // 16,000.33 → 16,000 each, 48,000 in all; the 1 cent left goes to the first.
    const three = normalise(trip({ ...africa5, travellers: [{ age: 30 }, { age: 31 }, { age: 32 }] }));
    const q = priced(seeded(0, { minPremiumMinor: 300_001n }), three);
    expect(q.perInsuredMinor).toEqual([100_001n, 100_000n, 100_000n]);
    expect(q.basicMinor).toBe(300_001n);
  });

  it('shares a lift evenly when every premium is zero', () => {
    // Rows of 0.00 and a 1,000.00 minimum over three travellers: 100,000 / 3 = 33,333 each, 1 cent to the first.
    const base = seeded(0, { minPremiumMinor: KES(1_000) });
    const free = { ...base, rates: base.rates.map((r) => (r.table === 'trip' ? { ...r, amountMinor: 0n } : r)) };
    const risk = normalise(trip({ travellers: [{ age: 30 }, { age: 31 }, { age: 32 }] }));
    expect(priced(free, risk).perInsuredMinor).toEqual([33_334n, 33_333n, 33_333n]);
  });
});

describe('travel rating: refusals', () => {
  it('refuses a plan below the Schengen minimum medical limit, and rates it elsewhere', () => {
    const risk = normalise(trip({ plan: 'basic' }));
    expect(refusal(seeded(0), risk)).toBe(
      "the Basic plan's medical limit (EUR 15,000) is below the Schengen visa minimum of EUR 30,000",
    );
    expect(refusal(seeded(0), normalise(trip({ plan: 'basic', region: 'worldwide' })))).toBeNull();
    // Terms without the minimum rate no Schengen trip, but still Africa.
    const noMin = seeded(0, { terms: { plans: (seeded(0).terms as { plans: unknown }).plans } });
    expect(refusal(noMin, normalise(trip()))).toMatch(/no Schengen minimum/);
    expect(refusal(noMin, normalise(trip({ region: 'africa' })))).toBeNull();
  });

  it('rates 6 months to 80 years (971 months) and refuses outside, naming the traveller', () => {
    // Departure 2026-04-01. Born 2025-10-01: exactly 6 months. Born 1945-05-01: 80 years 11 months = 971 months.
    const at = (dateOfBirth: string) => normalise(trip({ travellers: [{ age: 40 }, { dateOfBirth }] }));
    const loading = (dob: string) => (priced(seeded(0), at(dob)).terms.travellers as { loading_bps: number }[])[1];
    expect(loading('2025-10-01').loading_bps).toBe(0);
    expect(loading('1956-04-02').loading_bps).toBe(0); // 69 years 11 months (839)
    expect(loading('1956-04-01').loading_bps).toBe(5_000); // 70 years (840)
    expect(loading('1945-05-01').loading_bps).toBe(5_000); // 971 months
    expect(refusal(seeded(0), at('1945-04-01'))).toBe('travellers aged 6 months to 80 years only (traveller 2 is 81)');
    expect(refusal(seeded(0), at('2025-10-02'))).toBe(
      'travellers aged 6 months to 80 years only (traveller 2 is 5 months old)',
    );
    expect(refusal(seeded(0), normalise(trip({ travellers: [{ age: 81 }] })))).toMatch(/traveller 1 is 81/);
  });

  it('refuses a plan it does not offer, a region or a trip length it does not rate', () => {
    expect(refusal(seeded(0), normalise(trip({ plan: 'gold' })))).toBe(
      'does not offer a GOLD plan (BASIC, STANDARD, PREMIER)',
    );
    const p = seeded(0);
    const noWorld = { ...p, rates: p.rates.filter((r) => r.key !== 'PREMIER:worldwide') };
    expect(refusal(noWorld, normalise(trip({ plan: 'PREMIER', region: 'worldwide' })))).toBe(
      'does not rate the Premier plan for a worldwide trip',
    );
    const upTo30 = { ...p, rates: p.rates.filter((r) => r.table !== 'trip' || r.from <= 30n) };
    const long = normalise(trip({ returnDate: '2026-05-10' }));
    expect(refusal(upTo30, long)).toBe('does not rate a trip of 40 days on the Standard plan');
  });

  it('refuses, never throws, on malformed terms and rate rows', () => {
    const risk = normalise(trip());
    const plans = (seeded(0).terms as { plans: Record<string, unknown>[] }).plans;
    const bad: unknown[] = [
      null,
      'terms',
      [],
      {},
      { plans: [] },
      { plans: 'x' },
      { plans: [null] },
      { plans: [{ code: 'STANDARD', name: 'S' }] },
      { plans: [{ code: '', name: 'S', medical_limit_eur: 1 }] },
      { plans: [{ ...plans[1], medical_limit_eur: -5 }] },
      { plans: [{ ...plans[1], medical_limit_eur: 1.5 }] },
      { plans: [{ ...plans[1], benefits: [1] }] },
      { plans: [plans[1], { ...plans[1], code: 'standard' }] },
      { plans, schengen_min_medical_eur: '30000' },
    ];
    for (const terms of bad) expect(refusal(seeded(0, { terms }), risk)).toMatch(/^its travel terms are malformed: /);
    const p = seeded(0);
    const noAges = { ...p, rates: p.rates.filter((r) => r.table !== 'age_loading') };
    expect(refusal(noAges, risk)).toBe('its rates have no age bands (age_loading)');
    const nullBps = { ...p, rates: p.rates.map((r) => (r.table === 'age_loading' ? { ...r, rateBps: null } : r)) };
    expect(refusal(nullBps, risk)).toMatch(/has no valid loading/);
    const nullAmount = { ...p, rates: p.rates.map((r) => (r.table === 'trip' ? { ...r, amountMinor: null } : r)) };
    expect(refusal(nullAmount, risk)).toMatch(/has no premium/);
  });

  it('matches plan codes in any case, on the request and in the terms', () => {
    const p = seeded(0);
    const lower = {
      ...p,
      terms: { ...(p.terms as object), plans: [{ code: 'standard', name: 'S', medical_limit_eur: 50_000 }] },
    };
    expect(priced(lower, normalise(trip({ plan: ' Standard ' }))).basicMinor).toBe(KES(3_000));
  });
});

describe('travel normalise: every rule with its field name', () => {
  it('builds the risk: trip period, inclusive days, product code, insurers deduplicated', () => {
    const r = normalise(trip({ insurerIds: [3, 3, 1], region: 'Europe / Schengen' }));
    expect(r).toMatchObject({ line: 'travel', productCode: 'TRAVEL', coverPeriod: 'trip', plan: 'STANDARD' });
    expect(r).toMatchObject({ startDate: '2026-04-01', endDate: '2026-04-14', days: 14, insurerIds: [3, 1] });
    expect(r.region).toBe('schengen');
    expect(normalise(trip({ insurerIds: [] })).insurerIds).toBeNull();
    expect(normalise(trip({ insurerIds: null })).insurerIds).toBeNull();
    const sameDay = normalise(trip({ departureDate: TODAY, returnDate: TODAY }));
    expect([sameDay.startDate, sameDay.days]).toEqual([TODAY, 1]);
  });

  it('accepts the region spellings in any case', () => {
    const cases: [string, string][] = [
      ['Africa', 'africa'],
      ['SCHENGEN', 'schengen'],
      ['Europe', 'schengen'],
      ['europe/schengen', 'schengen'],
      ['World Wide', 'worldwide'],
    ];
    for (const [sent, region] of cases) expect(normalise(trip({ region: sent })).region).toBe(region);
  });

  it('collects every missing field at once, with a prefix when nested', () => {
    expect(fieldsOf({})).toEqual(['plan', 'region', 'departure_date', 'return_date', 'travellers']);
    expect(fieldsOf({}, false, 'travel')).toEqual([
      'travel.plan',
      'travel.region',
      'travel.departure_date',
      'travel.return_date',
      'travel.travellers',
    ]);
    for (const junk of [null, undefined, 'x', 42, [], [trip()]]) expect(fieldsOf(junk)).toContain('plan');
  });

  it('plan, region and destination', () => {
    for (const plan of ['', '  ', 7, 'NO SPACES', 'x'.repeat(41), {}])
      expect(fieldsOf(trip({ plan: plan as string }))).toEqual(['plan']);
    for (const region of [null, 'mars', 'constructor', 5])
      expect(fieldsOf(trip({ region: region as string }))).toEqual(['region']);
    expect(fieldsOf(trip({ destination: 5 as unknown as string }))).toEqual(['destination']);
    expect(fieldsOf(trip({ destination: 'x'.repeat(201) }))).toEqual(['destination']);
    expect(normalise(trip({ destination: '  ' })).destination).toBeNull();
  });

  it('departure today up to 365 days ahead; return on or after it; at most 365 days', () => {
    const bad: [Partial<TravelQuoteInput>, string][] = [
      [{ departureDate: null }, 'departure_date'],
      [{ departureDate: '2026-02-30' }, 'departure_date'],
      [{ departureDate: 20260401 as unknown as string }, 'departure_date'],
      [{ departureDate: '2026-03-09', returnDate: '2026-03-20' }, 'departure_date'],
      [{ departureDate: addDays(TODAY, 366), returnDate: addDays(TODAY, 370) }, 'departure_date'],
      [{ returnDate: null }, 'return_date'],
      [{ returnDate: '14/04/2026' }, 'return_date'],
      [{ returnDate: '2026-03-31' }, 'return_date'],
      [{ departureDate: '2026-04-01', returnDate: '2027-04-01' }, 'return_date'], // 366 days
    ];
    for (const [over, field] of bad) expect(fieldsOf(trip(over)), JSON.stringify(over)).toEqual([field]);
    expect(normalise(trip({ departureDate: '2026-04-01', returnDate: '2027-03-31' })).days).toBe(365);
    expect(normalise(trip({ departureDate: addDays(TODAY, 365), returnDate: addDays(TODAY, 365) })).days).toBe(1);
  });

  it('travellers: 1 to 50, each an object with date_of_birth or age', () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ age: 30 }));
    for (const travellers of [null, 'x', {}, [], many(51), many(1000)])
      expect(fieldsOf(trip({ travellers: travellers as [] }))).toEqual(['travellers']);
    expect(normalise(trip({ travellers: many(50) })).travellers).toHaveLength(50);
    expect(fieldsOf(trip({ travellers: [{ age: 30 }, 'x' as never] }))).toEqual(['travellers.1']);
    const one = (t: Record<string, unknown>) => fieldsOf(trip({ travellers: [t] }));
    expect(one({})).toEqual(['travellers.0.date_of_birth']);
    for (const dateOfBirth of ['1990-13-01', 19900101, '2026-03-11', '1905-01-01'])
      expect(one({ dateOfBirth }), String(dateOfBirth)).toEqual(['travellers.0.date_of_birth']);
    for (const age of [-1, 1.5, '30', Number.NaN, Infinity, 121, 1e300, 0])
      expect(one({ age }), String(age)).toEqual(['travellers.0.age']);
    expect(one({ age: 30, name: 9 })).toEqual(['travellers.0.name']);
    expect(one({ age: 30, passportNo: 'AB' })).toEqual(['travellers.0.passport_no']);
    expect(one({ age: 30, passportNo: 'AK-12345' })).toEqual(['travellers.0.passport_no']);
    expect(fieldsOf(trip({ travellers: [{ age: 30 }] }), true)).toEqual(['travellers.0.name']);
    expect(fieldsOf(trip({ travellers: [{ age: 30, name: '  ' }] }), true)).toEqual(['travellers.0.name']);
    const t = normalise(
      trip({ travellers: [{ name: ' Amina ', dateOfBirth: '1990-04-02', age: 5, passportNo: ' ak 1234567 ' }] }),
    );
    // date_of_birth wins over age: on 2026-04-01 born 1990-04-02 is 35 years 11 months (431 months).
    expect(t.travellers[0]).toEqual({
      name: 'Amina',
      dateOfBirth: '1990-04-02',
      ageYears: 35,
      ageMonths: 431,
      passportNo: 'AK1234567',
    });
    expect(normalise(trip({ travellers: [{ age: 70 }] })).travellers[0].ageMonths).toBe(840);
  });

  it('insurer_ids: a list of up to 100 positive ids', () => {
    expect(fieldsOf(trip({ insurerIds: 'x' as never }))).toEqual(['insurer_ids']);
    expect(fieldsOf(trip({ insurerIds: Array.from({ length: 101 }, (_, i) => i + 1) }))).toEqual(['insurer_ids']);
    for (const id of [-2, 0, 1.5, '3', null, 2 ** 60])
      expect(fieldsOf(trip({ insurerIds: [1, id as number] }))).toEqual(['insurer_ids.1']);
  });

  it('never throws anything but a ValidationError, whatever is sent', () => {
    const value = fc.oneof(
      fc.anything(),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    );
    const input = fc.record(
      {
        plan: fc.oneof(value, fc.constantFrom('BASIC', 'standard', 'Premier')),
        region: fc.oneof(value, fc.constantFrom('africa', 'Europe', 'worldwide')),
        destination: value,
        departureDate: value,
        returnDate: value,
        travellers: fc.oneof(
          value,
          fc.array(
            fc.record({ name: value, dateOfBirth: value, age: value, passportNo: value }, { requiredKeys: [] }),
            { maxLength: 60 },
          ),
        ),
        insurerIds: fc.oneof(value, fc.array(value)),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(input, fc.boolean(), (i, forBind) => {
        try {
          normalise(i, forBind);
        } catch (e) {
          expect(e).toBeInstanceOf(ValidationError);
        }
      }),
    );
  });
});

describe('travel line: ages, insured, cover details, describe', () => {
  it('counts ages in whole months at departure', () => {
    expect(ageOn('1955-06-01', '2026-04-01')).toEqual({ years: 70, months: 850 });
    expect(ageOn('2000-02-29', '2001-02-28')).toEqual({ years: 0, months: 11 });
    expect(ageOn('2000-02-29', '2001-03-01')).toEqual({ years: 1, months: 12 });
    expect(ageOn('2000-01-31', '2000-02-29')).toEqual({ years: 0, months: 0 });
    expect(ageOn('2000-01-31', '2000-03-01')).toEqual({ years: 0, months: 1 });
  });

  it('holds one traveller each, with the passport as id, and stores the cover as JSON', () => {
    const risk = normalise(
      trip({ travellers: [{ name: 'Amina', dateOfBirth: '1980-01-15', passportNo: 'AK1' + '23456' }, { age: 9 }] }),
    );
    expect(travelLine.insured(risk)).toEqual([
      { kind: 'traveller', name: 'Amina', dateOfBirth: '1980-01-15', ageYears: 46, idNo: 'AK123456' },
      { kind: 'traveller', name: 'Traveller 2', dateOfBirth: null, ageYears: 9, idNo: null },
    ]);
    const details = travelLine.coverDetails(risk);
    expect(details).toMatchObject({ plan: 'STANDARD', region: 'schengen', departure_date: '2026-04-01', days: 14 });
    expect(JSON.parse(JSON.stringify(details))).toEqual(details);
    expect(travelLine.describe(risk)).toBe('a Schengen trip (14 days)');
    const africa = normalise(trip({ region: 'africa', departureDate: TODAY, returnDate: TODAY }));
    expect(travelLine.describe(africa)).toBe('a trip within Africa (1 day)');
  });
});

describe('travel seed figures', () => {
  const regions = ['africa', 'schengen', 'worldwide'];
  it('day bands run 1–365 without gaps, premiums never fall with days, more cover never costs less', () => {
    for (let i = 0; i < 5; i++) {
      const p = seeded(i);
      const plans = (p.terms as { plans: { code: string }[] }).plans.map((x) => x.code);
      expect(plans).toEqual(['BASIC', 'STANDARD', 'PREMIER']);
      for (const region of regions) {
        let below: bigint[] | null = null;
        for (const plan of plans) {
          const band = p.rates.filter((r) => r.table === 'trip' && r.key === `${plan}:${region}`);
          if (plan === 'BASIC' && region === 'schengen') {
            expect(band).toEqual([]); // below the Schengen minimum: refused by terms
            continue;
          }
          expect(band[0].from).toBe(1n);
          expect(band.at(-1)!.to).toBe(365n);
          band.slice(1).forEach((r, k) => expect(r.from).toBe(band[k].to! + 1n));
          const amounts = band.map((r) => r.amountMinor!);
          amounts.slice(1).forEach((a, k) => expect(a).toBeGreaterThanOrEqual(amounts[k]));
          if (below) amounts.forEach((a, k) => expect(a).toBeGreaterThanOrEqual(below![k]));
          below = amounts;
        }
      }
      if (i > 0) expect(seeded(i).rates[0].amountMinor!).toBeGreaterThan(seeded(i - 1).rates[0].amountMinor!);
    }
  });
});

// ---- properties over generated tables ---------------------------------------------------------------------------

/** Contiguous bands from `lo` to `hi` cut at the given points, each with a never-falling value. */
const bands = (lo: number, hi: number, maxCuts: number, step: fc.Arbitrary<number>) =>
  fc
    .uniqueArray(fc.integer({ min: lo, max: hi - 1 }), { maxLength: maxCuts })
    .chain((cuts) =>
      fc.tuple(
        fc.constant([...cuts].sort((a, b) => a - b)),
        fc.array(step, { minLength: cuts.length + 1, maxLength: cuts.length + 1 }),
      ),
    )
    .map(([cuts, steps]) => {
      const starts = [lo, ...cuts.map((c) => c + 1)];
      let value = 0;
      return starts.map((from, k) => ({ from, to: k < cuts.length ? cuts[k] : hi, value: (value += steps[k]) }));
    });

const AGE_LO = 6;
const AGE_HI = 971;

/** A travel product with generated day bands and age loadings (never falling), and a generated minimum. */
const product = fc
  .record({
    trip: bands(1, 365, 8, fc.integer({ min: 0, max: 5_000_000 })),
    ages: bands(AGE_LO, AGE_HI, 5, fc.integer({ min: 0, max: 10_000 })),
    minPremiumMinor: fc.bigInt({ min: 0n, max: 50_000_000n }),
  })
  .map(({ trip: days, ages, minPremiumMinor }) =>
    seeded(0, {
      minPremiumMinor,
      rates: [
        ...days.map((b) => ({
          table: 'trip',
          key: 'STANDARD:africa',
          from: BigInt(b.from),
          to: BigInt(b.to),
          rateBps: null,
          amountMinor: BigInt(b.value),
        })),
        ...ages.map((b) => ({
          table: 'age_loading',
          key: '',
          from: BigInt(b.from),
          to: BigInt(b.to),
          rateBps: b.value - ages[0].value,
          amountMinor: null,
        })),
      ],
    }),
  );

/** A risk as normalise makes it, built directly: the property is about price(), not the request. */
const riskOf = (days: number, ageMonths: number[]): TravelRisk => ({
  line: 'travel',
  productCode: 'TRAVEL',
  coverPeriod: 'trip',
  startDate: TODAY,
  endDate: addDays(TODAY, days - 1),
  days,
  insurerIds: null,
  plan: 'STANDARD',
  region: 'africa',
  destination: null,
  travellers: ageMonths.map((m) => ({
    name: null,
    dateOfBirth: null,
    ageYears: Math.floor(m / 12),
    ageMonths: m,
    passportNo: null,
  })),
});

const days = fc.integer({ min: 1, max: 365 });
const age = fc.integer({ min: AGE_LO, max: AGE_HI });
const ages = fc.array(age, { minLength: 1, maxLength: 12 });

describe('travel rating properties', () => {
  it('the premium never falls as the trip gets longer', () => {
    fc.assert(
      fc.property(product, days, days, ages, (p, a, b, m) => {
        const [short, long] = a <= b ? [a, b] : [b, a];
        expect(priced(p, riskOf(short, m)).basicMinor).toBeLessThanOrEqual(priced(p, riskOf(long, m)).basicMinor);
      }),
    );
  });

  it('the premium never falls as a traveller gets older, nor when a traveller is added', () => {
    fc.assert(
      fc.property(product, days, ages, age, age, (p, d, m, x, y) => {
        const [young, old] = x <= y ? [x, y] : [y, x];
        const basic = (list: number[]) => priced(p, riskOf(d, list)).basicMinor;
        expect(basic([...m, young])).toBeLessThanOrEqual(basic([...m, old]));
        expect(basic(m)).toBeLessThanOrEqual(basic([...m, young]));
      }),
    );
  });

  it('breakdown and per-traveller shares sum exactly to the basic premium: the oracle sum, at least the minimum', () => {
    fc.assert(
      fc.property(product, days, ages, (p, d, m) => {
        const out = priced(p, riskOf(d, m));
        // Oracle: each traveller's band amount plus its loading (percentOf: the README's rounding, its own code).
        const row = (t: string, x: number) =>
          p.rates.find((r) => r.table === t && BigInt(x) >= r.from && BigInt(x) <= r.to!)!;
        const base = row('trip', d).amountMinor!;
        const raw = total(m.map((months) => base + percentOf(base, row('age_loading', months).rateBps!)));
        expect(out.basicMinor).toBe(raw > p.minPremiumMinor ? raw : p.minPremiumMinor);
        expect(total(out.breakdown.map((b) => b.amountMinor))).toBe(out.basicMinor);
        expect(out.perInsuredMinor).toHaveLength(m.length);
        expect(total(out.perInsuredMinor!)).toBe(out.basicMinor);
        out.perInsuredMinor!.forEach((s) => expect(s).toBeGreaterThanOrEqual(0n));
      }),
    );
  });

  it('on the seed, every insurer prices a valid request with exact sums or refuses it in words', () => {
    const request = fc.record({
      plan: fc.constantFrom('basic', 'STANDARD', 'Premier', 'gold'),
      region: fc.constantFrom('africa', 'Europe', 'worldwide'),
      departureDate: fc.integer({ min: 0, max: 365 }).map((n) => addDays(TODAY, n)),
      length: fc.integer({ min: 1, max: 365 }),
      travellers: fc.array(fc.record({ age: fc.integer({ min: 1, max: 100 }) }), { minLength: 1, maxLength: 50 }),
    });
    fc.assert(
      fc.property(request, fc.integer({ min: 0, max: 4 }), ({ length, ...r }, i) => {
        const risk = normalise({ ...r, returnDate: addDays(r.departureDate, length - 1) });
        const out = travelLine.price(seeded(i), risk);
        if ('ineligible' in out) {
          expect(out.ineligible.length).toBeGreaterThan(0);
          return;
        }
        expect(total(out.breakdown.map((b) => b.amountMinor))).toBe(out.basicMinor);
        expect(total(out.perInsuredMinor!)).toBe(out.basicMinor);
        expect(out.basicMinor).toBeGreaterThanOrEqual(seeded(i).minPremiumMinor);
      }),
    );
  });
});
