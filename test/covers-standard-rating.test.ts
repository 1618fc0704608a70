import { asRating } from './helpers/cover-products.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/lib/problem.ts';
import type { LinePriced, RatingCoverProduct, RatingCoverRate } from '../src/modules/covers/line.ts';
import { type StandardQuoteInput, type StandardRisk, standardLine } from '../src/modules/covers/standard/standard.ts';
import { standardProducts } from '../src/seed/cover-standard.ts';

// Pure: no database. Products are built from the demo seed (src/seed/cover-standard.ts) or generated tables; the
// expected figures of the worked examples are computed by hand in the comments.

const TODAY = '2026-03-10';

const seed = (code: string, index = 0) =>
  asRating(
    standardProducts(index).find((p) => p.code === code)!,
    index,
  );
const risk = (input: StandardQuoteInput, forBind = false) => standardLine.normalise(input, { today: TODAY, forBind });

function priced(product: RatingCoverProduct, r: StandardRisk): LinePriced {
  const out = standardLine.price(product, r);
  if ('ineligible' in out) throw new Error(`refused: ${out.ineligible}`);
  return out;
}
const refusal = (product: RatingCoverProduct, r: StandardRisk) => {
  const out = standardLine.price(product, r);
  return 'ineligible' in out ? out.ineligible : null;
};

const sum = (xs: bigint[]) => xs.reduce((s, x) => s + x, 0n);
const KES = (n: number) => BigInt(n) * 100n;

/** Field names of the ValidationError a normalise throws (fails the test if it throws anything else). */
function fieldsOf(input: unknown, opts: { prefix?: string; forBind?: boolean } = {}): string[] {
  try {
    standardLine.normalise(input as StandardQuoteInput, { today: TODAY, ...opts });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return ((e as ValidationError).errors ?? []).map((x) => x.field);
  }
  return [];
}

describe('standard products: hand-worked examples (insurer 0 unless said)', () => {
  it('DOMESTIC: tiered rate, extensions, no minimum', () => {
    // Buildings 4,000,000 + contents 2,000,000 = 6,000,000. First 5,000,000 at 0.35% = 17,500; the next 1,000,000
    // at 0.25% = 2,500; base 20,000. Riot and strike 0.05% of 6,000,000 = 3,000; jewellery flat 2,500. Basic 25,500.
    // Effective rate 20,000 / 6,000,000 = 0.3333% → 33 bps.
    const r = risk({
      product: 'domestic',
      items: [
        { description: 'Buildings', sumInsured: 4_000_000 },
        { description: 'Contents', sumInsured: 2_000_000 },
      ],
      extensions: ['riot_strike', 'ALL_RISKS_JEWELLERY', 'riot_strike'],
    });
    expect(r.productCode).toBe('DOMESTIC');
    expect(r.extensions).toEqual(['riot_strike', 'all_risks_jewellery']);
    const p = priced(seed('DOMESTIC'), r);
    expect(p.breakdown).toEqual([
      { item: 'Basic premium: KES 5,000,000 at 0.35%', amountMinor: KES(17_500) },
      { item: 'Basic premium: KES 1,000,000 at 0.25%', amountMinor: KES(2_500) },
      { item: 'Extension: Riot, strike and civil commotion', amountMinor: KES(3_000) },
      { item: 'Extension: All risks: jewellery and valuables', amountMinor: KES(2_500) },
    ]);
    expect(p.basicMinor).toBe(KES(25_500));
    expect(p.rateBps).toBe(33);
    expect(p.perInsuredMinor).toBeNull();
    expect(p.terms).toMatchObject({
      product: 'DOMESTIC',
      basis: 'sum_insured',
      total_sum_insured_minor: 600_000_000,
      headcount: 2,
      rate_bps: 33,
      minimum_applied: false,
      extensions: [
        { code: 'riot_strike', name: 'Riot, strike and civil commotion', amount_minor: 300_000 },
        { code: 'all_risks_jewellery', name: 'All risks: jewellery and valuables', amount_minor: 250_000 },
      ],
    });
    expect(p.benefits[0]).toEqual({ name: 'Total sum insured', limitMinor: KES(6_000_000) });
    expect(p.benefits.at(-1)).toEqual({ name: 'All risks: jewellery and valuables', limitMinor: KES(250_000) });
  });

  it('DOMESTIC: a slice rounds half away from zero to the cent', () => {
    // KES 1,234,010 = 123,401,000 cents × 35 / 10,000 = 431,903.5 cents → 431,904 (KES 4,319.04), above the 3,500
    // minimum.
    const p = priced(seed('DOMESTIC'), risk({ product: 'DOMESTIC', items: [{ sumInsured: 1_234_010 }] }));
    expect(p.basicMinor).toBe(431_904n);
  });

  it('DOMESTIC at insurer 1: figures 3% up', () => {
    // 35 bps × 1.03 = 36.05 → 36 bps; KES 1,000,000 × 0.36% = 3,600, which is below the minimum 3,500 × 1.03 =
    // 3,605: adjustment 5.
    const p = priced(seed('DOMESTIC', 1), risk({ product: 'DOMESTIC', items: [{ sumInsured: 1_000_000 }] }));
    expect(p.breakdown).toEqual([
      { item: 'Basic premium: KES 1,000,000 at 0.36%', amountMinor: KES(3_600) },
      { item: 'Minimum premium adjustment', amountMinor: KES(5) },
    ]);
    expect(p.basicMinor).toBe(KES(3_605));
    expect(p.terms.minimum_applied).toBe(true);
  });

  it('PA: per person shares of the premium by sum insured, remainder to the first', () => {
    // 1,000,000 + 500,000 + 3,000,000 = 4,500,000. First 1,000,000 at 0.40% = 4,000; next 3,500,000 at 0.30% =
    // 10,500; base 14,500. Medical expenses extension 3 heads × 500 = 1,500. Basic 16,000 = 1,600,000 cents.
    // Shares: 1,600,000 × 1/4.5 = 355,555.5 → 355,555; × 0.5/4.5 = 177,777.7 → 177,777; × 3/4.5 = 1,066,666.6 →
    // 1,066,666; together 1,599,998, the 2 cents left to the first: 355,557.
    const r = risk({
      product: 'PA',
      items: [
        { description: 'Achieng Otieno', sumInsured: 1_000_000, idNo: '12345678' },
        { description: 'Brian Mwangi', sumInsured: 500_000 },
        { description: 'Chebet Koech', sumInsured: 3_000_000 },
      ],
      extensions: ['medical_expenses_extension'],
    });
    const p = priced(seed('PA'), r);
    expect(p.basicMinor).toBe(KES(16_000));
    expect(p.breakdown.map((b) => b.amountMinor)).toEqual([KES(4_000), KES(10_500), KES(1_500)]);
    expect(p.perInsuredMinor).toEqual([355_557n, 177_777n, 1_066_666n]);
    expect(p.rateBps).toBe(32); // 14,500 / 4,500,000 = 0.3222%
    expect(standardLine.insured(r)).toEqual([
      { kind: 'item', name: 'Achieng Otieno', sumInsuredMinor: KES(1_000_000), idNo: '12345678' },
      { kind: 'item', name: 'Brian Mwangi', sumInsuredMinor: KES(500_000), idNo: null },
      { kind: 'item', name: 'Chebet Koech', sumInsuredMinor: KES(3_000_000), idNo: null },
    ]);
  });

  it('PA: the minimum premium lifts a small benefit, and the one person carries it', () => {
    // 200,000 × 0.40% = 800 < minimum 2,000: adjustment 1,200.
    const p = priced(seed('PA'), risk({ product: 'pa', items: [{ description: 'A', sumInsured: 200_000 }] }));
    expect(p.breakdown.at(-1)).toEqual({ item: 'Minimum premium adjustment', amountMinor: KES(1_200) });
    expect(p.basicMinor).toBe(KES(2_000));
    expect(p.perInsuredMinor).toEqual([KES(2_000)]);
  });

  it('WIBA by headcount: each head at its band, priced as a whole', () => {
    // 60 employees: 10 × 2,500 = 25,000; 40 × 2,000 = 80,000; 10 × 1,500 = 15,000; base 120,000. Common law
    // liability 60 × 300 = 18,000. Basic 138,000.
    const r = risk({ product: 'WIBA', headcount: 60, extensions: ['common_law_liability'] });
    const p = priced(seed('WIBA'), r);
    expect(p.breakdown).toEqual([
      { item: 'Basic premium: 10 employees at KES 2,500 each', amountMinor: KES(25_000) },
      { item: 'Basic premium: 40 employees at KES 2,000 each', amountMinor: KES(80_000) },
      { item: 'Basic premium: 10 employees at KES 1,500 each', amountMinor: KES(15_000) },
      { item: "Extension: Common law liability (employer's liability)", amountMinor: KES(18_000) },
    ]);
    expect(p.basicMinor).toBe(KES(138_000));
    expect(p.rateBps).toBeNull();
    expect(p.perInsuredMinor).toBeNull();
    expect(standardLine.insured(r)).toEqual([]);
  });

  it('WIBA with listed employees: equal shares; the minimum for one employee', () => {
    // 3 × 2,500 = 7,500, shared 2,500 each. One employee: 2,500 < minimum 5,000.
    const three = risk({ product: 'WIBA', items: [{ description: 'A' }, { description: 'B' }, { description: 'C' }] });
    expect(three.headcount).toBe(3);
    expect(priced(seed('WIBA'), three).perInsuredMinor).toEqual([KES(2_500), KES(2_500), KES(2_500)]);
    const one = priced(seed('WIBA'), risk({ product: 'WIBA', items: [{ description: 'A' }] }));
    expect(one.basicMinor).toBe(KES(5_000));
    expect(one.perInsuredMinor).toEqual([KES(5_000)]);
  });

  it('FIRE: four bands, and a refusal above the last', () => {
    // 60,000,000: 10,000,000 at 0.25% = 25,000; 40,000,000 at 0.18% = 72,000; 10,000,000 at 0.12% = 12,000.
    const p = priced(seed('FIRE'), risk({ product: 'FIRE', items: [{ sumInsured: 60_000_000 }] }));
    expect(p.basicMinor).toBe(KES(109_000));
    const big = risk({ product: 'FIRE', items: [{ sumInsured: 1_500_000_000 }, { sumInsured: 500_000_001 }] });
    expect(refusal(seed('FIRE'), big)).toBe('the total sum insured is not offered above KES 2,000,000,000');
  });

  it('GOLFER: tiered, a flat extension, and the minimum absorbs what it can', () => {
    // 150,000: 100,000 at 2.5% = 2,500; 50,000 at 1.5% = 750; base 3,250 + hole in one 1,000 = 4,250.
    const golf = (si: number, ext: string[]) =>
      priced(seed('GOLFER'), risk({ product: 'GOLFER', items: [{ sumInsured: si }], extensions: ext }));
    expect(golf(150_000, ['hole_in_one']).basicMinor).toBe(KES(4_250));
    // 40,000 at 2.5% = 1,000 (+ 1,000 hole in one = 2,000), both below the minimum 2,500.
    expect(golf(40_000, []).basicMinor).toBe(KES(2_500));
    expect(golf(40_000, ['hole_in_one']).basicMinor).toBe(KES(2_500));
    expect(golf(40_000, ['hole_in_one']).breakdown.at(-1)).toEqual({
      item: 'Minimum premium adjustment',
      amountMinor: KES(500),
    });
  });
});

describe('standard products: refusals', () => {
  it('refuses what a product cannot rate, in plain words', () => {
    expect(refusal(seed('DOMESTIC'), risk({ product: 'DOMESTIC', headcount: 3 }))).toMatch(/list the items/);
    const noSi = risk({ product: 'DOMESTIC', items: [{ sumInsured: 10 }, { description: 'TV' }] });
    expect(refusal(seed('DOMESTIC'), noSi)).toBe('rated on the sum insured: item 2 has none');
    const ext = risk({ product: 'DOMESTIC', items: [{ sumInsured: 10 }], extensions: ['burglary'] });
    expect(refusal(seed('DOMESTIC'), ext)).toBe('the extension "burglary" is not offered');
    const many = risk({ product: 'GOLFER', items: Array.from({ length: 11 }, () => ({ sumInsured: 1 })) });
    expect(refusal(seed('GOLFER'), many)).toBe('at most 10 items a policy');
    const rich = risk({ product: 'PA', items: [{ sumInsured: 10_000_000 }, { sumInsured: 10_000_001 }] });
    expect(refusal(seed('PA'), rich)).toBe('a sum insured above KES 10,000,000 an item is not offered (item 2)');
  });

  it('refuses malformed terms and rate rows instead of failing', () => {
    const r = risk({ product: 'DOMESTIC', items: [{ sumInsured: 100_000 }], extensions: ['riot_strike'] });
    const base = seed('DOMESTIC');
    const withTerms = (terms: unknown) => ({ ...base, terms });
    const withRates = (rates: RatingCoverRate[]) => ({ ...base, rates });
    const t = base.terms as Record<string, unknown>;
    for (const bad of [null, 'x', [], { ...t, basis: 'premium' }, { ...t, extensions: {} }, { ...t, max_items: -1 }]) {
      expect(refusal(withTerms(bad), r)).toMatch(/^malformed product terms/);
    }
    expect(refusal(withTerms({ ...t, extensions: [{ code: 'riot_strike', name: 'R', per: 'x' }] }), r)).toMatch(
      /malformed/,
    );
    expect(refusal(withTerms({ ...t, benefits: [{ name: 'B', limit_minor: 1.5 }] }), r)).toMatch(/malformed/);
    expect(refusal(withRates([]), r)).toMatch(/^malformed rating data \(the total sum insured: no bands\)/);
    const gap = base.rates.map((x) => (x.table === 'base' && x.from > 0n ? { ...x, from: x.from + 1n } : x));
    expect(refusal(withRates(gap), r)).toMatch(/gap or overlap/);
    const noRate = base.rates.map((x) => (x.table === 'base' ? { ...x, rateBps: null } : x));
    expect(refusal(withRates(noRate), r)).toMatch(/no rate/);
    const noExt = base.rates.filter((x) => x.table !== 'extension');
    expect(refusal(withRates(noExt), r)).toMatch(/Riot, strike and civil commotion: no bands/);
  });
});

describe('standard products: validation', () => {
  it('names every invalid field, in REST spelling, all at once', () => {
    expect(
      fieldsOf({
        product: 'no such!',
        items: [
          { description: 7, sumInsured: 0, idNo: 'x'.repeat(41) },
          'x',
          { sumInsured: 1.5 },
          { sumInsured: '100' },
          { sumInsured: Number.NaN },
          { sumInsured: 1e16 },
          { sumInsured: -5 },
        ],
        headcount: 2,
        extensions: ['ok', 5, 'no spaces', ''],
        startDate: '2026-02-30',
        insurerIds: [1, 'x'],
      }),
    ).toEqual([
      'product',
      'items.0.description',
      'items.0.sum_insured',
      'items.0.id_no',
      'items.1',
      'items.2.sum_insured',
      'items.3.sum_insured',
      'items.4.sum_insured',
      'items.5.sum_insured',
      'items.6.sum_insured',
      'headcount',
      'extensions.1',
      'extensions.2',
      'extensions.3',
      'insurer_ids',
      'start_date',
    ]);
  });

  it('a sum insured beyond its bounds carries a stable code beside the words', () => {
    const codes = (sumInsured: unknown) => {
      try {
        standardLine.normalise({ product: 'x', items: [{ sumInsured }] } as unknown as StandardQuoteInput, {
          today: TODAY,
        });
      } catch (e) {
        return ((e as ValidationError).errors ?? [])
          .filter((x) => x.field === 'items.0.sum_insured')
          .map((x) => x.code);
      }
      return [];
    };
    expect(codes(0)).toEqual(['too_small']);
    expect(codes(-5)).toEqual(['too_small']);
    expect(codes(1e16)).toEqual(['too_large']);
    expect(codes(1.5)).toEqual(['not_a_whole_number']);
    expect(codes('100')).toEqual(['not_a_number']);
    expect(codes(Number.NaN)).toEqual(['not_a_number']);
  });

  it('each rule on its own', () => {
    expect(fieldsOf({})).toEqual(['product', 'items']);
    for (const bad of [null, 'DOMESTIC', [1], 42]) expect(fieldsOf(bad)).toEqual(['product', 'items']);
    expect(fieldsOf({ product: 5, headcount: 1 })).toEqual(['product']);
    expect(fieldsOf({ product: 'X'.repeat(41), headcount: 1 })).toEqual(['product']);
    expect(fieldsOf({ product: 'PA', items: [] })).toEqual(['items']);
    expect(fieldsOf({ product: 'PA', items: 'two' })).toEqual(['items']);
    expect(fieldsOf({ product: 'PA', items: Array.from({ length: 501 }, () => ({ sumInsured: 1 })) })).toEqual([
      'items',
    ]);
    expect(fieldsOf({ product: 'PA', items: [{ description: 'x'.repeat(201) }] })).toEqual(['items.0.description']);
    for (const h of [0, -1, 1.5, '3', 100_001, Number.POSITIVE_INFINITY]) {
      expect(fieldsOf({ product: 'WIBA', headcount: h })).toEqual(['headcount']);
    }
    expect(fieldsOf({ product: 'WIBA', headcount: 2, items: [{}] })).toEqual(['headcount']);
    expect(fieldsOf({ product: 'WIBA', headcount: 1, extensions: 'riot_strike' })).toEqual(['extensions']);
    expect(
      fieldsOf({ product: 'WIBA', headcount: 1, extensions: Array.from({ length: 21 }, (_, i) => `e${i}`) }),
    ).toEqual(['extensions']);
    expect(fieldsOf({ product: 'WIBA', headcount: 1, extensions: ['x'.repeat(41)] })).toEqual(['extensions.0']);
    expect(fieldsOf({ product: 'WIBA', headcount: 1, insurerIds: 3 })).toEqual(['insurer_ids']);
    expect(fieldsOf({ product: 'WIBA', headcount: 1, insurerIds: [0] })).toEqual(['insurer_ids']);
    expect(
      fieldsOf({ product: 'WIBA', headcount: 1, insurerIds: Array.from({ length: 51 }, (_, i) => i + 1) }),
    ).toEqual(['insurer_ids']);
    expect(fieldsOf({ product: 'WIBA', headcount: 1, startDate: 20260401 })).toEqual(['start_date']);
  });

  it('a bind needs the name of every item or person; a prefix spells nested fields', () => {
    const input = { product: 'PA', items: [{ sumInsured: 1 }, { description: ' ', sumInsured: 1 }] };
    expect(fieldsOf(input)).toEqual([]);
    expect(fieldsOf(input, { forBind: true })).toEqual(['items.0.description', 'items.1.description']);
    expect(fieldsOf({ ...input, headcount: 'x' }, { prefix: 'standard', forBind: true })).toEqual([
      'standard.items.0.description',
      'standard.items.1.description',
      'standard.headcount',
    ]);
  });

  it('sets the cover period, dates and insurers', () => {
    const past = risk({
      product: ' fire ',
      items: [{ sumInsured: 1 }],
      startDate: '2026-01-01',
      insurerIds: [3, 3, 1],
    });
    expect(past).toMatchObject({
      line: 'standard',
      productCode: 'FIRE',
      coverPeriod: 'annual',
      startDate: TODAY,
      endDate: '2027-03-09',
      days: 365,
      insurerIds: [3, 1],
      headcount: 1,
      totalSumInsuredMinor: 100n,
    });
    const leap = risk({ product: 'WIBA', headcount: 4, startDate: '2027-06-01', insurerIds: [] });
    expect(leap).toMatchObject({ startDate: '2027-06-01', endDate: '2028-05-31', days: 366, insurerIds: null });
    expect(leap.items).toEqual([]);
    expect(standardLine.describe(leap)).toBe('work injury benefits (WIBA) cover for 4 persons');
    expect(standardLine.describe(past)).toBe('fire and perils cover for a sum insured of KES 1');
    const details = standardLine.coverDetails(past);
    expect(JSON.parse(JSON.stringify(details))).toEqual(details);
    // The stored cover reads back as a request: the same risk (but for the insurers, which are the quote's).
    expect(risk(details as StandardQuoteInput)).toEqual({ ...past, insurerIds: null });
  });
});

// ---- properties ---------------------------------------------------------------------------------------------------

/** Contiguous bands from 0 over `maxBound` units, the last open or closed, with generated rates or amounts. */
function bandsArb(table: string, key: string, maxBound: bigint, kind: 'rate' | 'amount') {
  return fc
    .uniqueArray(fc.bigInt({ min: 1n, max: maxBound }), { minLength: 0, maxLength: 4 })
    .chain((bounds) =>
      fc.tuple(
        fc.constant([...bounds].sort((a, b) => (a < b ? -1 : 1))),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: bounds.length + 1, maxLength: bounds.length + 1 }),
      ),
    )
    .map(([bounds, figures]): RatingCoverRate[] =>
      figures.map((fig, i) => ({
        table,
        key,
        from: i === 0 ? 0n : bounds[i - 1] + 1n,
        to: i < bounds.length ? bounds[i] : null,
        rateBps: kind === 'rate' ? fig : null,
        amountMinor: kind === 'amount' ? BigInt(fig) * 100n : null,
      })),
    );
}

const EXT_TERMS = [
  { code: 'by_rate', name: 'By rate', per: 'sum_insured' },
  { code: 'by_head', name: 'By head', per: 'head' },
  { code: 'flat', name: 'Flat', per: 'policy' },
];

function productArb(basis: 'sum_insured' | 'headcount') {
  const maxBound = basis === 'sum_insured' ? 100_000_000_000n : 2_000n;
  return fc
    .record({
      base: bandsArb(
        basis === 'sum_insured' ? 'base' : 'per_head',
        '',
        maxBound,
        basis === 'sum_insured' ? 'rate' : 'amount',
      ),
      byRate: bandsArb('extension', 'by_rate', 100_000_000_000n, 'rate'),
      byHead: bandsArb('extension', 'by_head', 2_000n, 'amount'),
      flat: fc.bigInt({ min: 0n, max: 1_000_000n }),
      min: fc.bigInt({ min: 0n, max: 10_000_000n }),
    })
    .map((g): RatingCoverProduct => ({
      ...seed('DOMESTIC'),
      minPremiumMinor: g.min,
      terms: { basis, per_insured: true, extensions: EXT_TERMS },
      rates: [
        ...g.base,
        ...g.byRate,
        ...g.byHead,
        { table: 'extension', key: 'flat', from: 0n, to: null, rateBps: null, amountMinor: g.flat },
      ],
    }));
}

const extsArb = fc.subarray(['by_rate', 'by_head', 'flat']);
/** The premium, or null where the insurer refuses (a quantity above a closed last band). */
const premium = (p: RatingCoverProduct, r: StandardRisk) => {
  const out = standardLine.price(p, r);
  return 'ineligible' in out ? null : out.basicMinor;
};

function checkSums(out: ReturnType<typeof standardLine.price>) {
  if ('ineligible' in out) return;
  expect(sum(out.breakdown.map((b) => b.amountMinor))).toBe(out.basicMinor);
  if (out.perInsuredMinor) expect(sum(out.perInsuredMinor)).toBe(out.basicMinor);
  expect(out.basicMinor >= 0n).toBe(true);
}

describe('standard products: properties', () => {
  it('the premium never falls as the total sum insured grows (generated tables)', () => {
    const si = fc.array(fc.integer({ min: 1, max: 200_000_000 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        productArb('sum_insured'),
        si,
        fc.integer({ min: 1, max: 200_000_000 }),
        extsArb,
        (p, sis, more, ext) => {
          const items = sis.map((s) => ({ sumInsured: s }));
          const a = risk({ product: 'X', items, extensions: ext });
          const bigger = [...items];
          bigger[0] = { sumInsured: sis[0] + more };
          const b = risk({ product: 'X', items: bigger, extensions: ext });
          const pa = premium(p, a);
          const pb = premium(p, b);
          if (pb !== null) expect(pa === null || pa <= pb).toBe(true);
          checkSums(standardLine.price(p, a));
        },
      ),
    );
  });

  it('the premium never falls as the headcount grows (generated tables)', () => {
    fc.assert(
      fc.property(
        productArb('headcount'),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 500 }),
        extsArb,
        (p, h, more, ext) => {
          const pa = premium(p, risk({ product: 'X', headcount: h, extensions: ext }));
          const pb = premium(p, risk({ product: 'X', headcount: h + more, extensions: ext }));
          if (pb !== null) expect(pa === null || pa <= pb).toBe(true);
        },
      ),
    );
  });

  it('extensions never lower the premium', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'sum_insured' | 'headcount'>('sum_insured', 'headcount').chain(productArb),
        fc.array(fc.integer({ min: 1, max: 50_000_000 }), { minLength: 1, maxLength: 5 }),
        extsArb,
        extsArb,
        (p, sis, e1, e2) => {
          const items = sis.map((s) => ({ sumInsured: s }));
          const fewer = premium(p, risk({ product: 'X', items, extensions: e1 }));
          const more = premium(p, risk({ product: 'X', items, extensions: [...e1, ...e2] }));
          if (fewer !== null && more !== null) expect(fewer <= more).toBe(true);
        },
      ),
    );
  });

  it('seeded products, every insurer: monotone, exact breakdowns and shares', () => {
    const products = [0, 1, 2, 3, 4].flatMap((i) => standardProducts(i).map((p) => asRating(p, i)));
    const ext = (p: RatingCoverProduct) =>
      ((p.terms as { extensions: { code: string }[] }).extensions ?? []).map((e) => e.code);
    fc.assert(
      fc.property(
        fc.constantFrom(...products),
        fc.array(fc.integer({ min: 1, max: 20_000_000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.boolean(),
        (p, sis, more, withExt) => {
          const extensions = withExt ? ext(p) : [];
          const items = sis.map((s, i) => ({ description: `Item ${i}`, sumInsured: s }));
          const a = risk({ product: p.code, items, extensions });
          const b = risk({ product: p.code, items: [...items, { description: 'More', sumInsured: more }], extensions });
          checkSums(standardLine.price(p, a));
          checkSums(standardLine.price(p, b));
          const pa = premium(p, a);
          const pb = premium(p, b);
          if (pb !== null) expect(pa === null || pa <= pb).toBe(true);
        },
      ),
    );
  });
});
