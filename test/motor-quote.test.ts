import { beforeAll, describe, expect, it } from 'vitest';
import { EXCESS_TEXT, MOTOR_BENEFITS } from '../src/seed/demo-data.ts';
import { expectProblem, THIS_YEAR, TODAY, useKit, type HttpResult } from './kit.ts';

const t = useKit();
const api = t.api;
// Many quotes from one token: lift the per-minute limit, which has its own tests.
const org = t.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 10_000 } }, tokens: ['staff'] });
let token: string;
let insurerIds: Map<string, number>;
beforeAll(async () => {
  token = org.tokens.staff;
  insurerIds = await org.insurers();
});

const quote = (body: Record<string, unknown>, tok = token) => api.post('/motor/quote', { token: tok, body });
const id = (name: string) => insurerIds.get(name)!;

/** Whole shillings from cents, rounded half away from zero (computed here independently of src/lib/money.ts). */
const whole = (minor: number) => (minor < 0 ? -Math.round(-minor / 100) : Math.round(minor / 100));
const bps = (minor: number, rate: number) => Math.round((minor * rate) / 10_000);

/** Calendar arithmetic on Y-m-d strings, independent of src/lib/dates.ts. */
const ymd = (d: Date) => d.toISOString().slice(0, 10);
const plusDays = (s: string, n: number) => ymd(new Date(Date.parse(`${s}T00:00:00Z`) + n * 86_400_000));
/** A future start whose day of month exists in every month, so "one year less a day" is unambiguous. */
const futureStart = (() => {
  let s = plusDays(TODAY, 20);
  while (Number(s.slice(8)) > 28) s = plusDays(s, 1);
  return s;
})();
/** One year less a day; a cover starting on 29 February ends on 28 February next year (as annualEnd documents it). */
const annualEndOf = (s: string) =>
  s.endsWith('-02-29')
    ? `${Number(s.slice(0, 4)) + 1}-02-28`
    : plusDays(`${Number(s.slice(0, 4)) + 1}${s.slice(4)}`, -1);
const inclusiveDays = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;

/** Every `x` beside an `x_minor` is the rounding of the cents, at any depth (amounts[] beside amounts_minor[] too). */
function expectWholeFromMinor(v: unknown, path = '$'): number {
  let checked = 0;
  if (Array.isArray(v)) return v.reduce((n: number, x, i) => n + expectWholeFromMinor(x, `${path}[${i}]`), 0);
  if (!v || typeof v !== 'object') return 0;
  const o = v as Record<string, unknown>;
  for (const [k, minor] of Object.entries(o)) {
    if (!k.endsWith('_minor')) {
      checked += expectWholeFromMinor(minor, `${path}.${k}`);
      continue;
    }
    const base = k.slice(0, -'_minor'.length);
    expect(base in o, `${path}.${base} beside ${k}`).toBe(true);
    if (Array.isArray(minor)) {
      expect(o[base], `${path}.${base}`).toEqual(minor.map((m: number) => whole(m)));
    } else if (minor === null) {
      expect(o[base], `${path}.${base}`).toBeNull();
    } else {
      expect(Number.isInteger(minor), `${path}.${k} is integer cents`).toBe(true);
      expect(o[base], `${path}.${base}`).toBe(whole(minor as number));
    }
    checked += 1;
  }
  return checked;
}

const OPTION_FIELDS = [
  'insurer_id',
  'insurer_name',
  'monogram',
  'motor_product_id',
  'vehicle_class',
  'cover_type',
  'rate',
  'rate_bps',
  'value',
  'value_minor',
  'basic_premium',
  'basic_premium_minor',
  'taxes',
  'taxes_total',
  'taxes_total_minor',
  'total',
  'total_minor',
  'commission_rate_bps',
  'benefits',
  'limits_of_liability',
  'excess',
  'pll',
  'tonnage',
  'instalments',
  'ipf_offers',
  'ipf_reason',
];

// Private comprehensive, KES 1.5M (seed figures, demo-data.ts): the band each insurer applies and the rest of its terms.
const PRIVATE_1_5M: Record<
  string,
  { rateBps: number; basic: number; maxParts: number; commission: number; monogram: string }
> = {
  'Pwani Mutual': { rateBps: 275, basic: 41_250, maxParts: 1, commission: 1100, monogram: 'PM' },
  'Simba General': { rateBps: 350, basic: 52_500, maxParts: 4, commission: 1000, monogram: 'SG' },
  'Twiga Assurance': { rateBps: 350, basic: 52_500, maxParts: 3, commission: 1000, monogram: 'TA' },
  'Baobab General': { rateBps: 400, basic: 60_000, maxParts: 4, commission: 1000, monogram: 'BG' },
  'Kilima Insurance': { rateBps: 475, basic: 71_250, maxParts: 2, commission: 1250, monogram: 'KI' },
};
const LENDER_TENORS: Record<string, Record<number, number>> = {
  'Mkopo Premium Finance': { 4: 220, 6: 380, 10: 680 },
  'Jamii Credit': { 3: 190, 6: 400 },
};

describe('POST /motor/quote: a private car, comprehensive, KES 1.5M', () => {
  let r: HttpResult;
  beforeAll(async () => {
    r = await quote({
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      year: THIS_YEAR - 3,
      value: 1_500_000,
      start_date: futureStart,
    });
  });

  it('answers 200 with a message and the request echo', () => {
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(typeof r.body.message).toBe('string');
    expect(r.body.message.length).toBeGreaterThan(0);
    const end = annualEndOf(futureStart);
    expect(r.body.quote).toEqual({
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      vehicle_class: 'private',
      cover_type: 'comprehensive',
      cover_period: 'annual',
      days: inclusiveDays(futureStart, end),
      start_date: futureStart,
      end_date: end,
      year: THIS_YEAR - 3,
      tonnage: null,
      pll: 0,
      value: 1_500_000,
      value_minor: 150_000_000,
    });
  });

  it('gives one option per insurer rating the class, cheapest first', () => {
    const names = r.body.options.map((o: any) => o.insurer_name);
    expect(names).toEqual(['Pwani Mutual', 'Simba General', 'Twiga Assurance', 'Baobab General', 'Kilima Insurance']);
    const totals = r.body.options.map((o: any) => o.total_minor);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
  });

  it('carries every field of the spec on every option, with the seeded figures', async () => {
    const products = await t.db.tenant(org.id, (tx) =>
      tx.motorProduct.findMany({ where: { vehicleClass: 'private', coverType: 'comprehensive' } }),
    );
    const comprehensiveBenefits = MOTOR_BENEFITS.filter((b) => b.covers.includes('comprehensive'));
    for (const o of r.body.options) {
      const e = PRIVATE_1_5M[o.insurer_name];
      expect(Object.keys(o)).toEqual(expect.arrayContaining(OPTION_FIELDS));
      expect(o.insurer_id).toBe(id(o.insurer_name));
      expect(o.monogram).toBe(e.monogram);
      expect(o.motor_product_id).toBe(products.find((p) => p.insurerId === o.insurer_id)!.id);
      expect(o.vehicle_class).toBe('private');
      expect(o.cover_type).toBe('comprehensive');
      expect(o.rate_bps).toBe(e.rateBps);
      expect(o.rate).toBe(e.rateBps / 100);
      expect([o.value, o.value_minor]).toEqual([1_500_000, 150_000_000]);
      expect([o.basic_premium, o.basic_premium_minor]).toEqual([e.basic, e.basic * 100]);
      expect(o.commission_rate_bps).toBe(e.commission);
      expect(o.excess).toBe(EXCESS_TEXT);
      expect(o.pll).toBe(0);
      expect(o.tonnage).toBeNull();

      expect(o.benefits.map((b: any) => b.name)).toEqual(comprehensiveBenefits.map((b) => b.name));
      for (const b of o.benefits) expect(b.id).toMatch(/^mb_[0-9a-f]{16}$/);
      expect(o.limits_of_liability).toEqual(
        comprehensiveBenefits.map((b, i) => ({
          benefit_id: o.benefits[i].id,
          item: b.name,
          limit: b.limitMinor == null ? null : Number(b.limitMinor) / 100,
        })),
      );

      expect(o.instalments.map((i: any) => i.parts)).toEqual(Array.from({ length: e.maxParts }, (_, i) => i + 1));
      for (const plan of o.instalments) {
        expect(Object.keys(plan).sort()).toEqual(['amounts', 'amounts_minor', 'parts']);
        expect(plan.amounts_minor).toHaveLength(plan.parts);
        expect(plan.amounts_minor.reduce((s: number, x: number) => s + x, 0)).toBe(o.total_minor);
        expect(plan.amounts.reduce((s: number, x: number) => s + x, 0)).toBe(o.total);
      }
    }
    // The option list's benefit ids are the ones GET /motor/benefits hands out.
    const benefits = await api.get('/motor/benefits', { token });
    const ids = new Map(benefits.body.data.map((b: any) => [b.name, b.id]));
    for (const b of r.body.options[0].benefits) expect(ids.get(b.name)).toBe(b.id);
  });

  it("adds the tenant's levies: TL 0.20 % and PHCF 0.25 % of basic, SD KES 40; total = basic + taxes", () => {
    for (const o of r.body.options) {
      const basic = o.basic_premium_minor;
      expect(o.taxes).toEqual([
        { code: 'TL', name: expect.any(String), amount: whole(bps(basic, 20)), amount_minor: bps(basic, 20) },
        { code: 'PHCF', name: expect.any(String), amount: whole(bps(basic, 25)), amount_minor: bps(basic, 25) },
        { code: 'SD', name: expect.any(String), amount: 40, amount_minor: 4_000 },
      ]);
      const taxes = o.taxes.reduce((s: number, x: any) => s + x.amount_minor, 0);
      expect(o.taxes_total_minor).toBe(taxes);
      expect(o.total_minor).toBe(basic + taxes);
    }
    const byName = Object.fromEntries(r.body.options.map((o: any) => [o.insurer_name, o]));
    // PHCF on KES 41,250 is 103.125: half a cent rounds away from zero to 103.13; the gross 41,475.63 shows as 41,476.
    expect(byName['Pwani Mutual'].taxes[1].amount_minor).toBe(10_313);
    expect([byName['Pwani Mutual'].total, byName['Pwani Mutual'].total_minor]).toEqual([41_476, 4_147_563]);
    expect([byName['Simba General'].total, byName['Simba General'].total_minor]).toEqual([52_776, 5_277_625]);
  });

  it('derives every whole-shilling field from its cents', () => {
    expect(expectWholeFromMinor(r.body)).toBeGreaterThan(50);
  });

  it('offers premium finance from each lender whose minimum the premium meets, except with Pwani Mutual', () => {
    for (const o of r.body.options) {
      if (o.insurer_name === 'Pwani Mutual') {
        expect(o.ipf_offers).toEqual([]);
        expect(o.ipf_reason).toEqual(expect.any(String));
        continue;
      }
      expect(o.ipf_reason).toBeNull();
      expect(o.ipf_offers.map((x: any) => `${x.lender_name}/${x.tenor_months}`).sort()).toEqual([
        'Jamii Credit/3',
        'Jamii Credit/6',
        'Mkopo Premium Finance/10',
        'Mkopo Premium Finance/4',
        'Mkopo Premium Finance/6',
      ]);
      for (const x of o.ipf_offers) {
        expect(Object.keys(x).sort()).toEqual([
          'apr_bps',
          'deposit',
          'deposit_minor',
          'instalment',
          'instalment_minor',
          'lender_name',
          'tenor_months',
        ]);
        const chargeBps = LENDER_TENORS[x.lender_name][x.tenor_months];
        expect(x.deposit_minor + x.instalment_minor * (x.tenor_months - 1)).toBe(
          o.total_minor + bps(o.total_minor, chargeBps),
        );
        expect(x.apr_bps).toBe(Math.round((chargeBps * 12) / x.tenor_months));
      }
    }
  });
});

describe('POST /motor/quote: class, coverage and scope mapping', () => {
  it.each([
    ['Motor', undefined, 'private'],
    ['motor', 'Private', 'private'],
    ['MOTOR', 'own goods', 'commercial'],
    ['Motor', 'matatu', 'psv'],
    ['Tuktuk', 'taxi', 'psv'],
    ['tuktuk', 'hire', 'psv'],
    ['Tuktuk', undefined, 'commercial'],
    ['Tuktuk', 'Private', 'commercial'],
    ['Tuktuk', 'own goods', 'commercial'],
    ['Motorcycle', undefined, 'motorcycle'],
    ['Motorcycle', 'taxi', 'motorcycle'],
  ])('class %s, coverage %s → %s', async (cls, coverage, vehicleClass) => {
    const r = await quote({ class: cls, ...(coverage ? { coverage } : {}), scope: 'TPO', year: THIS_YEAR - 2 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.quote.class).toBe(cls);
    expect(r.body.quote.coverage).toBe(coverage ?? 'Private');
    expect(r.body.quote.vehicle_class).toBe(vehicleClass);
    expect(r.body.options.length).toBeGreaterThan(0);
    for (const o of r.body.options) expect(o.vehicle_class).toBe(vehicleClass);
    // Who rates what (seed panel): Baobab no motorcycles, Pwani no commercial, Kilima no PSV.
    const excluded: string[] = (
      {
        private: [],
        commercial: ['Pwani Mutual'],
        psv: ['Kilima Insurance'],
        motorcycle: ['Baobab General'],
      } as Record<string, string[]>
    )[vehicleClass];
    expect(r.body.options.map((o: any) => o.insurer_name).sort()).toEqual(
      [...insurerIds.keys()].filter((n) => !excluded.includes(n)).sort(),
    );
  });

  it.each([
    ['Comprehensive', 'comprehensive'],
    ['comprehensive', 'comprehensive'],
    ['TPO', 'tpo'],
    ['third party only', 'tpo'],
    ['Third Party Only', 'tpo'],
  ])('scope %s → cover type %s', async (scope, coverType) => {
    const r = await quote({ class: 'Motor', scope, year: THIS_YEAR - 2, value: 800_000 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.quote.scope).toBe(scope);
    expect(r.body.quote.cover_type).toBe(coverType);
    for (const o of r.body.options) expect(o.cover_type).toBe(coverType);
  });

  it('TPO premiums are the flat figures and are below the finance minimum', async () => {
    const r = await quote({ class: 'Motor', scope: 'TPO', year: THIS_YEAR - 2 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.quote.value).toBeNull();
    expect(r.body.quote.value_minor).toBeNull();
    expect(Object.fromEntries(r.body.options.map((o: any) => [o.insurer_name, o.basic_premium_minor]))).toEqual({
      'Twiga Assurance': 320_000,
      'Pwani Mutual': 450_000,
      'Simba General': 500_000,
      'Kilima Insurance': 600_000,
      'Baobab General': 750_000,
    });
    for (const o of r.body.options) {
      expect(o.rate).toBeNull();
      expect(o.rate_bps).toBeNull();
      expect(o.benefits.map((b: any) => b.name)).toEqual(
        MOTOR_BENEFITS.filter((b) => b.covers.includes('tpo')).map((b) => b.name),
      );
      expect(o.ipf_offers).toEqual([]);
      expect(o.ipf_reason).toEqual(expect.any(String));
      if (o.insurer_name !== 'Pwani Mutual') expect(o.ipf_reason).toMatch(/25,000/);
    }
    expectWholeFromMinor(r.body);
  });
});

describe('POST /motor/quote: cover period and start date', () => {
  const base = { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 2_000_000 };

  it('time on risk ends `days` after the start and costs the annual premium', async () => {
    const annual = await quote({ ...base, start_date: futureStart });
    const tor = await quote({ ...base, start_date: futureStart, cover_period: 'tor', days: 30 });
    expect(tor.status, tor.text).toBe(200);
    expect(tor.body.quote).toMatchObject({
      cover_period: 'tor',
      days: 30,
      start_date: futureStart,
      end_date: plusDays(futureStart, 30),
    });
    const totals = (x: HttpResult) =>
      x.body.options.map((o: any) => [o.insurer_id, o.basic_premium_minor, o.total_minor]);
    expect(totals(tor)).toEqual(totals(annual));
  });

  it('accepts days 1 and 364', async () => {
    for (const days of [1, 364]) {
      const r = await quote({ ...base, cover_period: 'tor', days });
      expect(r.status, r.text).toBe(200);
      expect(r.body.quote.end_date).toBe(plusDays(TODAY, days));
    }
  });

  it('starts a past start date today (Nairobi calendar), and annual cover ends a year less a day later', async () => {
    const r = await quote({ ...base, start_date: '2020-01-15' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.quote.start_date).toBe(TODAY);
    expect(r.body.quote.end_date).toBe(annualEndOf(TODAY));
  });

  it('starts today when no start date is sent, and keeps a future one', async () => {
    const none = await quote(base);
    expect(none.body.quote.start_date).toBe(TODAY);
    const later = await quote({ ...base, start_date: futureStart });
    expect(later.body.quote.start_date).toBe(futureStart);
    expect(later.body.quote.end_date).toBe(annualEndOf(futureStart));
  });
});

describe('POST /motor/quote: insurer_id', () => {
  const base = { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 1_000_000 };

  it('a single integer limits the options to that insurer', async () => {
    const r = await quote({ ...base, insurer_id: id('Simba General') });
    expect(r.status, r.text).toBe(200);
    expect(r.body.options.map((o: any) => o.insurer_id)).toEqual([id('Simba General')]);
  });

  it('an array limits the options to those insurers, still cheapest first', async () => {
    const r = await quote({ ...base, insurer_id: [id('Kilima Insurance'), id('Twiga Assurance')] });
    expect(r.status, r.text).toBe(200);
    // KES 1M: Twiga 4.00 % (40,000) beats Kilima 4.75 % (47,500).
    expect(r.body.options.map((o: any) => o.insurer_name)).toEqual(['Twiga Assurance', 'Kilima Insurance']);
  });

  it('absent, null, "" and an empty list are no filter: every insurer on the panel, as documented', async () => {
    const all = await quote(base);
    expect(all.status, all.text).toBe(200);
    const names = all.body.options.map((o: any) => o.insurer_name);
    expect(names.length).toBeGreaterThan(1);
    for (const insurer_id of [null, '', []]) {
      const r = await quote({ ...base, insurer_id });
      expect(r.status, `${JSON.stringify(insurer_id)}: ${r.text}`).toBe(200);
      expect(r.body.options.map((o: any) => o.insurer_name)).toEqual(names);
    }
  });

  it('a motorcycle with only Baobab General (which does not rate motorcycles) is no_quote', async () => {
    const r = await quote({
      class: 'Motorcycle',
      scope: 'TPO',
      year: THIS_YEAR - 1,
      insurer_id: [id('Baobab General')],
    });
    expectProblem(r, 422, 'no_quote');
    expect(r.body.detail).toEqual(expect.any(String));
  });

  it('an id the organisation does not have is 422 validation_failed on insurer_id, not silently dropped', async () => {
    const r = await quote({ ...base, insurer_id: [id('Simba General'), 987_654_321] });
    expectProblem(r, 422, 'validation_failed', 'insurer_id');
    expect(r.body.errors[0].message).toContain('987654321');
  });

  it('motorcycles are rated by the other insurers', async () => {
    const r = await quote({ class: 'Motorcycle', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 150_000 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.options.map((o: any) => o.insurer_name).sort()).toEqual([
      'Kilima Insurance',
      'Pwani Mutual',
      'Simba General',
      'Twiga Assurance',
    ]);
    // Motorcycle minimum premiums apply at this value (e.g. Simba 3 % of 150,000 = 4,500 < minimum 5,000).
    expect(r.body.options.find((o: any) => o.insurer_name === 'Simba General').basic_premium_minor).toBe(500_000);
  });
});

describe('POST /motor/quote: validation', () => {
  const ok = { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 1_000_000 };
  // Each refusal names its field with a stable code (docs/api-conventions.md "Errors"), the same through REST and
  // through GraphQL, whose values reach the module's own checks without REST's schema in front.
  it.each([
    ['comprehensive without value', 'value', 'required', { ...ok, value: undefined }],
    ['value 0', 'value', 'too_small', { ...ok, value: 0 }],
    ['value under a cent', 'value', 'too_small', { ...ok, value: 0.004 }],
    ['value past KES 1 billion', 'value', 'too_large', { ...ok, value: 1_000_000_001 }],
    ['tor without days', 'days', 'required', { ...ok, cover_period: 'tor' }],
    ['days 0', 'days', 'too_small', { ...ok, cover_period: 'tor', days: 0 }],
    ['days 365', 'days', 'too_large', { ...ok, cover_period: 'tor', days: 365 }],
    ['an unknown class', 'class', 'invalid_value', { ...ok, class: 'Spaceship' }],
    ['an unknown scope', 'scope', 'invalid_value', { ...ok, scope: 'Fire and theft of the moon' }],
    ['an unknown cover period', 'cover_period', 'invalid_value', { ...ok, cover_period: 'fortnight' }],
    ['year missing', 'year', 'required', { ...ok, year: undefined }],
    ['year 1900', 'year', 'too_small', { ...ok, year: 1900 }],
    ['year the year after next', 'year', 'too_large', { ...ok, year: THIS_YEAR + 2 }],
    ['pll −1', 'pll', 'too_small', { ...ok, pll: -1 }],
    ['pll 201', 'pll', 'too_large', { ...ok, pll: 201 }],
    ['tonnage 200.5', 'tonnage', 'too_large', { ...ok, tonnage: 200.5 }],
  ])('%s → 422 validation_failed on %s, %s', async (_label, field, code, body) => {
    const r = await quote(body);
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field, code, message: expect.any(String) })]),
    );
    // GraphQL's input requires a year: one missing is refused before the module (a variable error naming it).
    if (body.year === undefined) return;
    const input = Object.fromEntries(
      Object.entries(body).map(([k, v]) => [k === 'cover_period' ? 'coverPeriod' : k, v]),
    );
    const g = await api.gql(
      `query Q($input: MotorQuoteInput!) { motorQuote(input: $input) { ... on Problem { fieldErrors { field code } } } }`,
      { input },
      { token },
    );
    expect(g.body.data.motorQuote.fieldErrors, JSON.stringify(g.body)).toEqual(
      expect.arrayContaining([{ field: `input.${field === 'cover_period' ? 'coverPeriod' : field}`, code }]),
    );
  });

  it("accepts next year's models", async () => {
    const r = await quote({ ...ok, year: THIS_YEAR + 1 });
    expect(r.status, r.text).toBe(200);
  });
});

describe('POST /motor/quote: tonnage and passenger legal liability', () => {
  it('commercial TPO is priced by tonnage band', async () => {
    const q = (tonnage: number) =>
      quote({
        class: 'Motor',
        coverage: 'own goods',
        scope: 'TPO',
        year: THIS_YEAR - 4,
        tonnage,
        insurer_id: id('Simba General'),
      });
    const [light, heavy] = await Promise.all([q(2), q(10)]);
    expect(light.status, light.text).toBe(200);
    expect(heavy.status, heavy.text).toBe(200);
    expect(light.body.quote.tonnage).toBe(2);
    expect(heavy.body.quote.tonnage).toBe(10);
    const [l] = light.body.options;
    const [h] = heavy.body.options;
    // Simba: up to 3 t KES 5,500; 8–15 t KES 10,000.
    expect([l.tonnage, l.basic_premium_minor]).toEqual([2, 550_000]);
    expect([h.tonnage, h.basic_premium_minor]).toEqual([10, 1_000_000]);
  });

  it('adds KES 500 per passenger to the basic premium (levies on the sum)', async () => {
    const q = (pll?: number) =>
      quote({
        class: 'Motor',
        coverage: 'matatu',
        scope: 'TPO',
        year: THIS_YEAR - 4,
        ...(pll === undefined ? {} : { pll }),
      });
    const [none, fourteen] = await Promise.all([q(), q(14)]);
    expect(none.status, none.text).toBe(200);
    expect(fourteen.status, fourteen.text).toBe(200);
    expect(none.body.quote.pll).toBe(0);
    expect(fourteen.body.quote.pll).toBe(14);
    const basics = (x: HttpResult) =>
      Object.fromEntries(x.body.options.map((o: any) => [o.insurer_name, o.basic_premium_minor]));
    const without = basics(none);
    for (const o of fourteen.body.options) {
      expect(o.pll).toBe(14);
      expect(o.basic_premium_minor - without[o.insurer_name]).toBe(14 * 50_000);
      expect(o.taxes[0].amount_minor).toBe(bps(o.basic_premium_minor, 20));
    }
    expect(fourteen.body.options.find((o: any) => o.insurer_name === 'Simba General').basic_premium_minor).toBe(
      800_000 + 700_000,
    );
  });
});

describe('POST /motor/quote: premium finance by organisation', () => {
  it('a SACCO organisation gets no finance offers, only a reason', async () => {
    const sacco = await t.newOrg({ type: 'sacco', tokens: ['staff'] });
    const tok = sacco.tokens.staff;
    const r = await quote({ class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 3_000_000 }, tok);
    expect(r.status, r.text).toBe(200);
    expect(r.body.options.length).toBe(5);
    for (const o of r.body.options) {
      expect(o.ipf_offers).toEqual([]);
      expect(o.ipf_reason).toMatch(/brokerage and agency/);
    }
  });
});

describe('POST /motor/quote stores nothing', () => {
  it('leaves quotes, options, policies, clients and the audit log as they were', async () => {
    const counts = () =>
      t.db.system((tx) =>
        Promise.all([
          tx.quote.count(),
          tx.quoteOption.count(),
          tx.policy.count(),
          tx.client.count(),
          tx.auditLog.count(),
          tx.idempotencyKey.count(),
        ]),
      );
    const before = await counts();
    for (const body of [
      { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 1_000_000 },
      { class: 'Tuktuk', coverage: 'hire', scope: 'TPO', year: THIS_YEAR - 1 },
      { class: 'Motorcycle', scope: 'TPO', year: THIS_YEAR - 1, insurer_id: id('Baobab General') },
    ]) {
      await quote(body);
    }
    expect(await counts()).toEqual(before);
  });
});

const GQL_QUOTE = `query Q($input: MotorQuoteInput!) {
  motorQuote(input: $input) {
    __typename
    ... on Problem { code status fieldErrors { field } }
    ... on MotorQuote {
      message
      quote { class coverage scope vehicleClass coverType coverPeriod days startDate endDate year tonnage pll value { amount amountMinor } }
      options {
        insurerId insurerName monogram motorProductId vehicleClass coverType rate rateBps
        value { amountMinor } basicPremium { amount amountMinor } taxes { code name amount { amount amountMinor } }
        taxesTotal { amountMinor } total { amount amountMinor } commissionRateBps benefits { id name }
        limitsOfLiability { benefitId item limit { amount } } excess pll tonnage
        instalments { parts amounts { amount amountMinor } }
        ipfOffers { lenderName tenorMonths deposit { amountMinor } instalment { amountMinor } aprBps } ipfReason
      }
    }
  }
}`;

describe('REST and GraphQL agree', () => {
  it.each([
    [
      'private comprehensive',
      { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 2, value: 2_345_678, start_date: futureStart },
    ],
    ['matatu TPO with pll', { class: 'Motor', coverage: 'matatu', scope: 'TPO', year: THIS_YEAR - 2, pll: 14 }],
    [
      'commercial TPO by tonnage, two insurers',
      {
        class: 'Motor',
        coverage: 'general cartage',
        scope: 'TPO',
        year: THIS_YEAR - 2,
        tonnage: 7.5,
        insurers: ['Simba General', 'Kilima Insurance'],
      },
    ],
  ])('%s', async (_label, spec: Record<string, any>) => {
    // Insurer ids exist only once the tenant is made, after the table is built: resolve names here.
    const { insurers, ...rest0 } = spec;
    const body: Record<string, any> = { ...rest0, ...(insurers ? { insurer_id: insurers.map(id) } : {}) };
    const rest = await quote(body);
    expect(rest.status, rest.text).toBe(200);
    const input = {
      class: body.class,
      coverage: body.coverage,
      scope: body.scope,
      year: body.year,
      value: body.value,
      pll: body.pll,
      tonnage: body.tonnage,
      insurerIds: body.insurer_id,
      startDate: body.start_date,
    };
    const g = await api.gql(GQL_QUOTE, { input: JSON.parse(JSON.stringify(input)) }, { token });
    expect(g.body.errors).toBeUndefined();
    const q = g.body.data.motorQuote;
    expect(q.__typename).toBe('MotorQuote');
    expect(q.message).toBe(rest.body.message);
    expect({
      class: q.quote.class,
      coverage: q.quote.coverage,
      scope: q.quote.scope,
      vehicle_class: q.quote.vehicleClass,
      cover_type: q.quote.coverType,
      cover_period: q.quote.coverPeriod,
      days: q.quote.days,
      start_date: q.quote.startDate,
      end_date: q.quote.endDate,
      year: q.quote.year,
      tonnage: q.quote.tonnage,
      pll: q.quote.pll,
      value: q.quote.value?.amount ?? null,
      value_minor: q.quote.value?.amountMinor ?? null,
    }).toEqual(rest.body.quote);
    expect(
      q.options.map((o: any) => ({
        insurer_id: o.insurerId,
        insurer_name: o.insurerName,
        monogram: o.monogram,
        motor_product_id: o.motorProductId,
        vehicle_class: o.vehicleClass,
        cover_type: o.coverType,
        rate: o.rate,
        rate_bps: o.rateBps,
        value_minor: o.value?.amountMinor ?? null,
        basic_premium: o.basicPremium.amount,
        basic_premium_minor: o.basicPremium.amountMinor,
        taxes: o.taxes.map((x: any) => ({
          code: x.code,
          name: x.name,
          amount: x.amount.amount,
          amount_minor: x.amount.amountMinor,
        })),
        taxes_total_minor: o.taxesTotal.amountMinor,
        total: o.total.amount,
        total_minor: o.total.amountMinor,
        commission_rate_bps: o.commissionRateBps,
        benefits: o.benefits,
        limits_of_liability: o.limitsOfLiability.map((l: any) => ({
          benefit_id: l.benefitId,
          item: l.item,
          limit: l.limit?.amount ?? null,
        })),
        excess: o.excess,
        pll: o.pll,
        tonnage: o.tonnage,
        instalments: o.instalments.map((i: any) => ({
          parts: i.parts,
          amounts: i.amounts.map((a: any) => a.amount),
          amounts_minor: i.amounts.map((a: any) => a.amountMinor),
        })),
        ipf_offers: o.ipfOffers.map((x: any) => ({
          lender_name: x.lenderName,
          tenor_months: x.tenorMonths,
          deposit_minor: x.deposit.amountMinor,
          instalment_minor: x.instalment.amountMinor,
          apr_bps: x.aprBps,
        })),
        ipf_reason: o.ipfReason,
      })),
    ).toEqual(
      rest.body.options.map((o: any) => ({
        insurer_id: o.insurer_id,
        insurer_name: o.insurer_name,
        monogram: o.monogram,
        motor_product_id: o.motor_product_id,
        vehicle_class: o.vehicle_class,
        cover_type: o.cover_type,
        rate: o.rate,
        rate_bps: o.rate_bps,
        value_minor: o.value_minor,
        basic_premium: o.basic_premium,
        basic_premium_minor: o.basic_premium_minor,
        taxes: o.taxes,
        taxes_total_minor: o.taxes_total_minor,
        total: o.total,
        total_minor: o.total_minor,
        commission_rate_bps: o.commission_rate_bps,
        benefits: o.benefits,
        limits_of_liability: o.limits_of_liability,
        excess: o.excess,
        pll: o.pll,
        tonnage: o.tonnage,
        instalments: o.instalments,
        ipf_offers: o.ipf_offers.map((x: any) => ({
          lender_name: x.lender_name,
          tenor_months: x.tenor_months,
          deposit_minor: x.deposit_minor,
          instalment_minor: x.instalment_minor,
          apr_bps: x.apr_bps,
        })),
        ipf_reason: o.ipf_reason,
      })),
    );
  });

  it('a validation failure is the same problem in both', async () => {
    const rest = await quote({ class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 2 });
    expectProblem(rest, 422, 'validation_failed');
    const g = await api.gql(
      GQL_QUOTE,
      { input: { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 2 } },
      { token },
    );
    expect(g.body.data.motorQuote).toMatchObject({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      status: 422,
    });
    // GraphQL names the field from the argument (`input.value`), REST from the body (`value`).
    expect(g.body.data.motorQuote.fieldErrors.map((e: any) => e.field)).toEqual(
      rest.body.errors.map((e: any) => `input.${e.field}`),
    );
  });
});
