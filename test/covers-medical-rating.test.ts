import { asRating } from './helpers/cover-products.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/lib/problem.ts';
import type { LinePriced, RatingCoverProduct, RatingCoverRate } from '../src/modules/covers/line.ts';
import {
  type MedicalMemberInput,
  type MedicalQuoteInput,
  type MedicalRisk,
  medicalLine,
} from '../src/modules/covers/medical/medical.ts';
import { liftToMinimum } from '../src/modules/covers/arith.ts';
import { medicalProducts } from '../src/seed/cover-medical.ts';
import { percentOf } from './helpers/money-oracle.ts';

// Expected figures are worked by hand from the seed's tables (src/seed/cover-medical.ts: base × limit factor ×
// insurer factor, rounded down to the shilling) in the comments, or come from the naive oracle
// (helpers/money-oracle.ts); never from the code under test.

const TODAY = '2026-12-01';
const KES = (shillings: number) => BigInt(shillings) * 100n;
const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);

/** A seed product as the rating cache would hold it. */
const seedProduct = (index = 0, over: Partial<RatingCoverProduct> = {}): RatingCoverProduct =>
  asRating(medicalProducts(index)[0], index, over);

const normalise = (input: unknown, forBind = false): MedicalRisk =>
  medicalLine.normalise(input as MedicalQuoteInput, { today: TODAY, prefix: 'medical', forBind });

function priced(product: RatingCoverProduct, risk: MedicalRisk): LinePriced {
  const r = medicalLine.price(product, risk);
  if ('ineligible' in r) throw new Error(`unexpectedly ineligible: ${r.ineligible}`);
  return r;
}

function refusal(product: RatingCoverProduct, risk: MedicalRisk): string {
  const r = medicalLine.price(product, risk);
  if (!('ineligible' in r)) throw new Error('expected a refusal');
  return r.ineligible;
}

/** The field names of the validation errors a request raises ([] when it passes). */
function fieldsOf(input: unknown, forBind = false): string[] {
  try {
    normalise(input, forBind);
    return [];
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    return (e.errors ?? []).map((x) => x.field);
  }
}

const principal = (age: number, more: MedicalMemberInput = {}) => ({ relationship: 'principal', age, ...more });
const spouse = (age: number) => ({ relationship: 'spouse', age });
const child = (age: number, inSchool = false) => ({ relationship: 'child', age, inSchool });
const employee = (age: number) => ({ relationship: 'employee', age });

function expectConsistent(p: LinePriced, members: number) {
  expect(sum(p.breakdown.map((b) => b.amountMinor))).toBe(p.basicMinor);
  expect(p.perInsuredMinor).toHaveLength(members);
  expect(sum(p.perInsuredMinor!)).toBe(p.basicMinor);
  expect(JSON.parse(JSON.stringify(p.terms))).toEqual(p.terms);
}

describe('medical normalise', () => {
  it('defaults to family cover, annual from today, product MEDICAL', () => {
    const risk = normalise({ inpatientLimit: 1_000_000, members: [principal(35)], insurerIds: [3, 1, 3] });
    expect(risk).toMatchObject({
      line: 'medical',
      productCode: 'MEDICAL',
      coverPeriod: 'annual',
      coverType: 'family',
      startDate: TODAY,
      endDate: '2027-11-30',
      days: 365,
      insurerIds: [3, 1],
      inpatientLimitMinor: 100_000_000n,
      riders: [],
    });
    expect(normalise({ inpatientLimit: 500_000, members: [principal(35)], insurerIds: [] }).insurerIds).toBeNull();
  });

  it('a past start date starts today; a future one is kept (2028 is a leap year: 366 days)', () => {
    const base = { inpatientLimit: 500_000, members: [principal(40)] };
    expect(normalise({ ...base, startDate: '2026-01-01' }).startDate).toBe(TODAY);
    const later = normalise({ ...base, startDate: '2027-03-01' });
    expect([later.startDate, later.endDate, later.days]).toEqual(['2027-03-01', '2028-02-29', 366]);
  });

  it('ages in whole years at the start of cover, from the date of birth when sent (it wins over age)', () => {
    const at = (dateOfBirth: string, startDate = '2027-06-15') =>
      normalise({ inpatientLimit: 500_000, startDate, members: [{ relationship: 'principal', dateOfBirth, age: 99 }] })
        .members[0].ageYears;
    expect(at('1990-06-15')).toBe(37); // the birthday itself
    expect(at('1990-06-16')).toBe(36); // a day short
    expect(at('2000-02-29', '2027-02-28')).toBe(26); // a 29 February birthday comes on 1 March
    expect(at('2000-02-29', '2027-03-01')).toBe(27);
  });

  it('normalises codes and relationships in any case, and in_school', () => {
    const risk = normalise({
      coverType: ' Group ',
      inpatientLimit: 500_000,
      riders: [{ code: 'Dental', limit: 10_000 }],
      members: [
        { relationship: 'EMPLOYEE', age: 30, name: ' Wanjiru ', idNo: '12345678' },
        { relationship: 'Child', age: 20, inSchool: true },
      ],
    });
    expect(risk.coverType).toBe('group');
    expect(risk.riders).toEqual([{ code: 'dental', limitMinor: 1_000_000n }]);
    expect(risk.members[0]).toEqual({
      name: 'Wanjiru',
      relationship: 'employee',
      dateOfBirth: null,
      ageYears: 30,
      inSchool: false,
      idNo: '12345678',
    });
    expect(risk.members[1].inSchool).toBe(true);
  });

  const ok = { inpatientLimit: 500_000, members: [principal(35)] };
  const cases: [string, unknown, string[], boolean?][] = [
    ['cover type', { ...ok, coverType: 'corporate' }, ['medical.cover_type']],
    ['cover type not text', { ...ok, coverType: 7 }, ['medical.cover_type']],
    ['inpatient limit missing', { members: ok.members }, ['medical.inpatient_limit']],
    ['inpatient limit zero', { ...ok, inpatientLimit: 0 }, ['medical.inpatient_limit']],
    ['inpatient limit fractional', { ...ok, inpatientLimit: 500_000.5 }, ['medical.inpatient_limit']],
    ['inpatient limit text', { ...ok, inpatientLimit: '500000' }, ['medical.inpatient_limit']],
    ['inpatient limit huge', { ...ok, inpatientLimit: 1e18 }, ['medical.inpatient_limit']],
    ['inpatient limit NaN', { ...ok, inpatientLimit: NaN }, ['medical.inpatient_limit']],
    ['riders not a list', { ...ok, riders: 'dental' }, ['medical.riders']],
    [
      'five riders',
      { ...ok, riders: Array.from({ length: 5 }, () => ({ code: 'dental', limit: 1 })) },
      ['medical.riders'],
    ],
    ['rider not an object', { ...ok, riders: [3] }, ['medical.riders.0']],
    ['rider code unknown', { ...ok, riders: [{ code: 'spa', limit: 10_000 }] }, ['medical.riders.0.code']],
    [
      'rider twice',
      {
        ...ok,
        riders: [
          { code: 'dental', limit: 10_000 },
          { code: 'DENTAL', limit: 20_000 },
        ],
      },
      ['medical.riders.1.code'],
    ],
    ['rider limit missing', { ...ok, riders: [{ code: 'dental' }] }, ['medical.riders.0.limit']],
    ['rider limit negative', { ...ok, riders: [{ code: 'optical', limit: -10 }] }, ['medical.riders.0.limit']],
    ['members missing', { inpatientLimit: 500_000 }, ['medical.members']],
    ['members empty', { ...ok, members: [] }, ['medical.members']],
    ['members not a list', { ...ok, members: { 0: principal(30) } }, ['medical.members']],
    ['501 members', { ...ok, members: Array.from({ length: 501 }, () => principal(30)) }, ['medical.members']],
    ['member not an object', { ...ok, members: [principal(30), 'spouse'] }, ['medical.members.1']],
    ['relationship missing', { ...ok, members: [principal(30), { age: 30 }] }, ['medical.members.1.relationship']],
    [
      'relationship unknown',
      { ...ok, members: [principal(30), { relationship: 'cousin', age: 30 }] },
      ['medical.members.1.relationship'],
    ],
    ['employee in a family', { ...ok, members: [principal(30), employee(30)] }, ['medical.members.1.relationship']],
    ['no principal', { ...ok, members: [spouse(30)] }, ['medical.members']],
    ['two principals', { ...ok, members: [principal(30), principal(31)] }, ['medical.members.1.relationship']],
    [
      'principal in a group',
      { ...ok, coverType: 'group', members: [employee(30), principal(30)] },
      ['medical.members.1.relationship'],
    ],
    [
      'group starting with a child',
      { ...ok, coverType: 'group', members: [child(3), employee(30)] },
      ['medical.members.0.relationship'],
    ],
    [
      'no age nor date of birth',
      { ...ok, members: [{ relationship: 'principal' }] },
      ['medical.members.0.date_of_birth'],
    ],
    ['age negative', { ...ok, members: [principal(-1)] }, ['medical.members.0.age']],
    ['age 121', { ...ok, members: [principal(121)] }, ['medical.members.0.age']],
    ['age fractional', { ...ok, members: [principal(30.5)] }, ['medical.members.0.age']],
    ['age text', { ...ok, members: [{ relationship: 'principal', age: '30' }] }, ['medical.members.0.age']],
    [
      'date of birth not a date',
      { ...ok, members: [{ relationship: 'principal', dateOfBirth: '1990-02-30' }] },
      ['medical.members.0.date_of_birth'],
    ],
    [
      'born after the start',
      { ...ok, members: [{ relationship: 'principal', dateOfBirth: '2026-12-02' }] },
      ['medical.members.0.date_of_birth'],
    ],
    [
      'older than 120',
      { ...ok, members: [{ relationship: 'principal', dateOfBirth: '1900-01-01' }] },
      ['medical.members.0.date_of_birth'],
    ],
    [
      'in_school not a boolean',
      { ...ok, members: [principal(30), { ...child(19), inSchool: 'yes' }] },
      ['medical.members.1.in_school'],
    ],
    ['name not text', { ...ok, members: [principal(30, { name: 42 as never })] }, ['medical.members.0.name']],
    ['name too long', { ...ok, members: [principal(30, { name: 'x'.repeat(201) })] }, ['medical.members.0.name']],
    ['id too long', { ...ok, members: [principal(30, { idNo: '9'.repeat(51) })] }, ['medical.members.0.id_no']],
    ['name required to bind', ok, ['medical.members.0.name'], true],
    ['blank name to bind', { ...ok, members: [principal(30, { name: '  ' })] }, ['medical.members.0.name'], true],
    ['start date', { ...ok, startDate: '2027-13-01' }, ['medical.start_date']],
    ['insurer ids not a list', { ...ok, insurerIds: 3 }, ['medical.insurer_ids']],
    ['insurer id not positive', { ...ok, insurerIds: [1, 0, 'x'] }, ['medical.insurer_ids.1', 'medical.insurer_ids.2']],
  ];
  it.each(cases)('refuses: %s', (_name, input, fields, forBind) => {
    expect(fieldsOf(input, forBind)).toEqual(fields);
  });

  it('collects every field error at once', () => {
    expect(
      fieldsOf({
        coverType: 'x',
        inpatientLimit: -1,
        riders: [{ code: 'spa', limit: 0 }],
        members: [{ relationship: 'boss' }],
        startDate: 'soon',
        insurerIds: ['a'],
      }),
    ).toEqual([
      'medical.cover_type',
      'medical.inpatient_limit',
      'medical.riders.0.code',
      'medical.riders.0.limit',
      'medical.start_date',
      'medical.insurer_ids.0',
      'medical.members.0.relationship',
      'medical.members.0.date_of_birth',
    ]);
  });

  it('a name is enough to bind; no prefix gives bare field names', () => {
    expect(fieldsOf({ ...ok, members: [principal(30, { name: 'Achieng Otieno' })] }, true)).toEqual([]);
    expect(() => medicalLine.normalise({ members: [] }, { today: TODAY })).toThrow(ValidationError);
    try {
      medicalLine.normalise({ members: [] }, { today: TODAY });
    } catch (e) {
      expect((e as ValidationError).errors!.map((x) => x.field)).toEqual(['inpatient_limit', 'members']);
    }
  });

  it('anything a client can send is a risk or a validation error, never another error', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withNullPrototype: true }), (input) => {
        try {
          normalise(input);
        } catch (e) {
          expect(e).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 500 },
    );
    const members = fc.array(
      fc.record(
        {
          relationship: fc.oneof(fc.constantFrom('principal', 'spouse', 'child', 'employee'), fc.anything()),
          age: fc.oneof(fc.integer({ min: -5, max: 130 }), fc.double(), fc.anything()),
          dateOfBirth: fc.oneof(fc.constant('1990-01-01'), fc.string(), fc.anything()),
          inSchool: fc.anything(),
          name: fc.anything(),
          idNo: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(fc.constantFrom('family', 'group', 'x', null), fc.anything(), members, (coverType, limit, ms) => {
        try {
          normalise({ coverType, inpatientLimit: limit, members: ms });
        } catch (e) {
          expect(e).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('medical price: hand-worked examples (seed, insurer 0 unless said)', () => {
  it('a family of four, KES 1M inpatient with outpatient 50k and maternity 100k', () => {
    const risk = normalise({
      inpatientLimit: 1_000_000,
      riders: [
        { code: 'outpatient', limit: 50_000 },
        { code: 'maternity', limit: 100_000 },
      ],
      members: [principal(35), spouse(33), child(8), child(16)],
    });
    const p = priced(seedProduct(0), risk);
    // Inpatient 1M (factor 135 %): ages 30–39 11,500 × 1.35 = 15,525; 0–17 5,500 × 1.35 = 7,425.
    //   15,525 + 15,525 + 7,425 + 7,425 = 45,900.
    // Outpatient 50k (150 %): 18–39 5,200 × 1.5 = 7,800; 0–17 4,000 × 1.5 = 6,000. 7,800 × 2 + 6,000 × 2 = 27,600.
    // Maternity 100k (270 %): 18–49 9,000 × 2.7 = 24,300 for the principal and spouse; no band for the children.
    //   24,300 × 2 = 48,600.
    // Basic 45,900 + 27,600 + 48,600 = 122,100 (above the 12,000 minimum).
    expect(p.basicMinor).toBe(KES(122_100));
    expect(p.breakdown).toEqual([
      { item: 'Inpatient, limit KES 1,000,000 (4 members)', amountMinor: KES(45_900) },
      { item: 'Outpatient, limit KES 50,000 (4 members)', amountMinor: KES(27_600) },
      { item: 'Maternity, limit KES 100,000 (2 of 4 members; ages 18–49 only)', amountMinor: KES(48_600) },
    ]);
    // Principal and spouse 15,525 + 7,800 + 24,300 = 47,625 each; each child 7,425 + 6,000 = 13,425.
    expect(p.perInsuredMinor).toEqual([KES(47_625), KES(47_625), KES(13_425), KES(13_425)]);
    expect(p.rateBps).toBeNull();
    expect(p.terms).toMatchObject({
      cover_type: 'family',
      inpatient_limit_minor: 100_000_000,
      waiting_periods: { illness_days: 30, maternity_months: 12 },
      headcount: 4,
      group_discount_bps: null,
      minimum_premium_applied: false,
    });
    expect((p.terms.riders as { code: string; members_not_covered: number[] }[])[1]).toEqual({
      code: 'maternity',
      name: 'Maternity',
      limit_minor: 10_000_000,
      premium_minor: 4_860_000,
      ages: '18–49',
      members_not_covered: [2, 3],
    });
    expect(p.benefits).toEqual([
      { name: 'Inpatient', limitMinor: KES(1_000_000) },
      { name: 'Outpatient', limitMinor: KES(50_000) },
      { name: 'Maternity', limitMinor: KES(100_000) },
    ]);
    expectConsistent(p, 4);
  });

  it('a group of 12 at KES 500k with outpatient 30k: 5 % headcount discount per member', () => {
    const risk = normalise({
      coverType: 'group',
      inpatientLimit: 500_000,
      riders: [{ code: 'outpatient', limit: 30_000 }],
      members: [employee(30), spouse(28), child(5), ...Array.from({ length: 9 }, () => employee(30))],
    });
    const p = priced(seedProduct(0), risk);
    // Employee 30: inpatient 11,500 + outpatient 5,200 = 16,700, less 5 % (835) = 15,865; ten of them 158,650.
    // Spouse 28: 9,800 + 5,200 = 15,000 less 750 = 14,250. Child 5: 5,500 + 4,000 = 9,500 less 475 = 9,025.
    // Inpatient 11,500 × 10 + 9,800 + 5,500 = 130,300; outpatient 5,200 × 11 + 4,000 = 61,200;
    // discount 835 × 10 + 750 + 475 = 9,575. Basic 130,300 + 61,200 − 9,575 = 181,925.
    expect(p.basicMinor).toBe(KES(181_925));
    expect(p.breakdown).toEqual([
      { item: 'Inpatient, limit KES 500,000 (12 members)', amountMinor: KES(130_300) },
      { item: 'Outpatient, limit KES 30,000 (12 members)', amountMinor: KES(61_200) },
      { item: 'Group discount (12 members, 5 %)', amountMinor: -KES(9_575) },
    ]);
    expect(p.perInsuredMinor!.slice(0, 4)).toEqual([KES(15_865), KES(14_250), KES(9_025), KES(15_865)]);
    expect(p.terms).toMatchObject({
      cover_type: 'group',
      headcount: 12,
      group_discount_bps: 500,
      waiting_periods: { illness_days: 0, maternity_months: 10 },
    });
    expect(medicalLine.describe(risk)).toBe('group medical cover (12 members)');
    expectConsistent(p, 12);
  });

  it('the second insurer: 3 % dearer, rounded down to the shilling; its group illness wait is 30 days', () => {
    const risk = normalise({ inpatientLimit: 1_000_000, members: [principal(35)] });
    // 11,500 × 135 % × 103 % = 15,990.75 → 15,990.
    expect(priced(seedProduct(1), risk).basicMinor).toBe(KES(15_990));
    const group = normalise({ coverType: 'group', inpatientLimit: 500_000, members: [30, 31, 32].map(employee) });
    // 11,500 × 103 % = 11,845 each, three members: band 3–9, no discount: 35,535.
    const p = priced(seedProduct(1), group);
    expect(p.basicMinor).toBe(KES(35_535));
    expect(p.terms.waiting_periods).toEqual({ illness_days: 30, maternity_months: 10 });
  });

  it('lifts a small premium to the minimum (KES 12,000)', () => {
    const p = priced(seedProduct(0), normalise({ inpatientLimit: 500_000, members: [principal(20)] }));
    // Principal 20 at 500k: 9,800; the minimum adds 2,200.
    expect(p.basicMinor).toBe(KES(12_000));
    expect(p.breakdown.at(-1)).toEqual({ item: 'Minimum premium adjustment', amountMinor: KES(2_200) });
    expect(p.perInsuredMinor).toEqual([KES(12_000)]);
    expect(p.terms.minimum_premium_applied).toBe(true);
  });

  it('spreads a minimum over members in proportion, the odd cent to the first', () => {
    const product = seedProduct(0, { minPremiumMinor: KES(20_000) });
    const p = priced(product, normalise({ inpatientLimit: 500_000, members: [principal(20), child(5)] }));
    // 9,800 + 5,500 = 15,300; shortfall 4,700.00 = 470,000 cents.
    // Principal: 470,000 × 980,000 / 1,530,000 = 301,045.75 → 301,045; child: 470,000 × 550,000 / 1,530,000 =
    // 168,954.25 → 168,954; 1 cent left over goes to the principal: 980,000 + 301,046 = 1,281,046; 718,954.
    expect(p.perInsuredMinor).toEqual([1_281_046n, 718_954n]);
    expect(p.basicMinor).toBe(KES(20_000));
    expectConsistent(p, 2);
  });

  it('covers a child of 19 in school (students up to 24), maternity by age alone', () => {
    const risk = normalise({
      inpatientLimit: 500_000,
      riders: [{ code: 'maternity', limit: 30_000 }],
      members: [principal(50), child(19, true)],
    });
    const p = priced(seedProduct(0), risk);
    // Principal 50: inpatient 19,800, no maternity band at 50. Child 19: 9,800 + maternity 9,000.
    expect(p.perInsuredMinor).toEqual([KES(19_800), KES(18_800)]);
    expect(p.breakdown[1].item).toBe('Maternity, limit KES 30,000 (1 of 2 members; ages 18–49 only)');
    expect((p.terms.riders as { members_not_covered: number[] }[])[0].members_not_covered).toEqual([0]);
  });
});

describe('medical price: refusals', () => {
  const family = (members: unknown[], more: Record<string, unknown> = {}) =>
    normalise({ inpatientLimit: 500_000, members, ...more });

  it('a limit the insurer does not offer', () => {
    const tenM = family([principal(30)], { inpatientLimit: 10_000_000 });
    expect(refusal(seedProduct(4), tenM)).toMatch(/offers no inpatient limit of KES 10,000,000/);
    expect(priced(seedProduct(0), tenM).basicMinor).toBe(KES(37_950)); // 11,500 × 3.30
    expect(refusal(seedProduct(0), family([principal(30)], { inpatientLimit: 750_000 }))).toMatch(
      /its limits: KES 500,000, KES 1,000,000, KES 2,000,000, KES 3,000,000, KES 5,000,000, KES 10,000,000/,
    );
    const op = family([principal(30)], { riders: [{ code: 'outpatient', limit: 300_000 }] });
    expect(refusal(seedProduct(4), op)).toMatch(/outpatient limit of KES 300,000/);
    expect(refusal(seedProduct(0), family([principal(30)], { riders: [{ code: 'dental', limit: 40_000 }] }))).toMatch(
      /dental limit of KES 40,000/,
    );
  });

  it('the family composition limits of the terms', () => {
    const p = seedProduct(0);
    expect(refusal(p, family([principal(66)]))).toBe('covers a principal aged 18–65 (member 1 is 66)');
    expect(refusal(p, family([principal(17)]))).toBe('covers a principal aged 18–65 (member 1 is 17)');
    expect(refusal(p, family([principal(40), spouse(38), spouse(30)]))).toBe(
      'covers at most 1 spouse per principal (member 3)',
    );
    expect(refusal(p, family([principal(40), spouse(17)]))).toBe('covers a spouse aged 18 or over (member 2 is 17)');
    expect(refusal(p, family([principal(40), child(18)]))).toMatch(/children up to 17 years old.*member 2 is 18, not/);
    expect(refusal(p, family([principal(60), child(25, true)]))).toMatch(
      /or 24 in school \(member 2 is 25, in school\)/,
    );
    expect(priced(p, family([principal(60), child(24, true), child(17)])).perInsuredMinor).toHaveLength(3);
    // A spouse of 81 passes the composition rules but no inpatient band covers the age (bands end at 80).
    expect(refusal(p, family([principal(65), spouse(81)]))).toBe(
      'rates inpatient cover for ages 0–80 (member 2 is 81)',
    );
  });

  it('the group composition: per employee, and the minimum group size', () => {
    const group = (members: unknown[]) => normalise({ coverType: 'group', inpatientLimit: 500_000, members });
    const p = seedProduct(0);
    expect(priced(p, group([employee(30), spouse(30), employee(40), spouse(41)])).basicMinor).toBeGreaterThan(0n);
    expect(refusal(p, group([employee(30), spouse(30), spouse(31)]))).toBe(
      'covers at most 1 spouse per employee (member 3)',
    );
    expect(refusal(p, group([employee(30), employee(70), child(3)]))).toBe(
      'covers an employee aged 18–65 (member 2 is 70)',
    );
    expect(refusal(p, group([employee(30), child(2)]))).toBe('covers groups of 3 or more members (this group has 2)');
    expect(refusal(seedProduct(3), group([30, 31, 32, 33].map(employee)))).toMatch(/groups of 5 or more/);
    expect(priced(seedProduct(3), group([30, 31, 32, 33, 34].map(employee))).basicMinor).toBeGreaterThan(0n);
  });

  it('malformed or missing terms and tables refuse, never crash', () => {
    const risk = family([principal(30)]);
    expect(refusal(seedProduct(0, { terms: null }), risk)).toBe('does not offer family medical cover');
    expect(refusal(seedProduct(0, { terms: 'x' }), risk)).toBe('does not offer family medical cover');
    const terms = medicalProducts(0)[0].terms;
    const broken = { ...terms, family: { ...(terms.family as object), child_max_age: -1 }, waiting_periods: {} };
    expect(refusal(seedProduct(0, { terms: broken }), risk)).toBe(
      'its medical terms are incomplete (family.child_max_age, waiting_periods.family.illness_days, ' +
        'waiting_periods.family.maternity_months)',
    );
    const noGroup = { ...terms, group: undefined };
    const group = normalise({ coverType: 'group', inpatientLimit: 500_000, members: [30, 31, 32].map(employee) });
    expect(refusal(seedProduct(0, { terms: noGroup }), group)).toBe('does not offer group medical cover');
    const noBands = seedProduct(0).rates.filter((r) => r.table !== 'group_headcount');
    expect(refusal(seedProduct(0, { rates: noBands }), group)).toBe('does not offer group medical cover');
    const badBps = seedProduct(0).rates.map((r) => (r.table === 'group_headcount' ? { ...r, rateBps: 20_000 } : r));
    expect(refusal(seedProduct(0, { rates: badBps }), group)).toMatch(/malformed/);
    const nullAmount = seedProduct(0).rates.map((r) => (r.table === 'inpatient' ? { ...r, amountMinor: null } : r));
    expect(refusal(seedProduct(0, { rates: nullAmount }), risk)).toMatch(/inpatient rate table is malformed/);
    const noDental = seedProduct(0).rates.filter((r) => r.table !== 'dental');
    const dental = family([principal(30)], { riders: [{ code: 'dental', limit: 10_000 }] });
    expect(refusal(seedProduct(0, { rates: noDental }), dental)).toBe('does not offer dental cover');
  });
});

describe('medical line', () => {
  it('insured: one member per person; cover details; describe', () => {
    const risk = normalise({
      inpatientLimit: 2_000_000,
      riders: [{ code: 'optical', limit: 20_000 }],
      members: [
        { relationship: 'principal', dateOfBirth: '1985-04-02', name: 'Achieng Otieno', idNo: '22334455' },
        child(20, true),
      ],
    });
    expect(medicalLine.insured(risk)).toEqual([
      {
        kind: 'member',
        name: 'Achieng Otieno',
        relationship: 'principal',
        dateOfBirth: '1985-04-02',
        ageYears: 41,
        inSchool: false,
        idNo: '22334455',
      },
      { kind: 'member', name: '', relationship: 'child', dateOfBirth: null, ageYears: 20, inSchool: true, idNo: null },
    ]);
    expect(medicalLine.coverDetails(risk)).toEqual({
      cover_type: 'family',
      inpatient_limit: 2_000_000,
      inpatient_limit_minor: 200_000_000,
      riders: [{ code: 'optical', limit: 20_000, limit_minor: 2_000_000 }],
      headcount: 2,
    });
    expect(medicalLine.describe(risk)).toBe('family medical cover');
  });
});

// ---- properties ---------------------------------------------------------------------------------------------------

interface Band {
  from: number;
  to: number;
  amount: bigint;
}

const asc = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Age bands from `lo` to `hi` (cut at random ages), premiums non-decreasing with age. */
const ageBands = (lo = 0, hi = 120): fc.Arbitrary<Band[]> =>
  fc.uniqueArray(fc.integer({ min: lo + 1, max: hi }), { maxLength: 6 }).chain((cuts) => {
    const sorted = [...cuts].sort((a, b) => a - b);
    return fc
      .array(fc.bigInt({ min: 0n, max: 5_000_000n }), { minLength: sorted.length + 1, maxLength: sorted.length + 1 })
      .map((amounts) => {
        const a = [...amounts].sort(asc);
        return [lo, ...sorted].map((from, i) => ({ from, to: i < sorted.length ? sorted[i] - 1 : hi, amount: a[i] }));
      });
  });

const rowsOf = (table: string, limitShillings: number, bands: Band[]): RatingCoverRate[] =>
  bands.map((b) => ({
    table,
    key: String(KES(limitShillings)),
    from: BigInt(b.from),
    to: BigInt(b.to),
    rateBps: null,
    amountMinor: b.amount,
  }));

const bandAmount = (bands: Band[], age: number) => bands.find((b) => age >= b.from && age <= b.to)?.amount;

/** Terms that let any composition through, so the properties exercise the arithmetic. */
const open = (head: string) => ({
  [`${head}_min_age`]: 0,
  [`${head}_max_age`]: 120,
  max_spouses: 500,
  spouse_min_age: 0,
  child_max_age: 120,
  student_max_age: 120,
});
const OPEN_TERMS = {
  family: open('principal'),
  group: open('employee'),
  waiting_periods: {
    family: { illness_days: 30, maternity_months: 12 },
    group: { illness_days: 0, maternity_months: 10 },
  },
};

function generated(rates: RatingCoverRate[], bps: number, minPremiumMinor: bigint): RatingCoverProduct {
  const headcount: RatingCoverRate = {
    table: 'group_headcount',
    key: '',
    from: 1n,
    to: null,
    rateBps: bps,
    amountMinor: null,
  };
  return seedProduct(0, { terms: OPEN_TERMS, minPremiumMinor, rates: [...rates, headcount] });
}

const ages = fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 0, maxLength: 12 });
const headAge = fc.integer({ min: 0, max: 120 });

/** A family (principal then spouses/children) or a group (an employee first), at the given ages. */
function membersAt(coverType: 'family' | 'group', head: number, others: number[]) {
  return [
    { relationship: coverType === 'family' ? 'principal' : 'employee', age: head },
    ...others.map((age, i) => ({ relationship: i % 3 === 0 ? 'spouse' : 'child', age })),
  ];
}

describe('medical price: properties', () => {
  it('the seed premiums rise (never fall) with age and with the limit, for every insurer', () => {
    for (let i = 0; i < 5; i++) {
      const product = seedProduct(i);
      for (const table of ['inpatient', 'outpatient', 'maternity', 'dental', 'optical']) {
        const rows = product.rates.filter((r) => r.table === table);
        const keys = [...new Set(rows.map((r) => r.key))].sort((a, b) => asc(BigInt(a), BigInt(b)));
        expect(keys.length).toBeGreaterThan(0);
        const byKey = keys.map((k) => rows.filter((r) => r.key === k).sort((a, b) => asc(a.from, b.from)));
        for (const band of byKey) {
          for (let j = 1; j < band.length; j++) {
            expect(band[j].from).toBe(band[j - 1].to! + 1n); // contiguous, no overlap
            expect(band[j].amountMinor! >= band[j - 1].amountMinor!).toBe(true);
          }
        }
        for (let k = 1; k < byKey.length; k++) {
          byKey[k].forEach((r, j) => expect(r.amountMinor! >= byKey[k - 1][j].amountMinor!).toBe(true));
        }
      }
    }
  });

  it('premium is non-decreasing in any member’s age (generated tables covering all ages)', () => {
    fc.assert(
      fc.property(
        ageBands(),
        ageBands(),
        fc.integer({ min: 0, max: 5000 }),
        fc.bigInt({ min: 0n, max: 20_000_000n }),
        fc.constantFrom('family' as const, 'group' as const),
        headAge,
        ages,
        fc.nat(),
        fc.integer({ min: 0, max: 120 }),
        (ip, op, bps, min, coverType, head, others, pick, delta) => {
          const product = generated(
            [...rowsOf('inpatient', 500_000, ip), ...rowsOf('outpatient', 50_000, op)],
            bps,
            min,
          );
          const base = { coverType, inpatientLimit: 500_000, riders: [{ code: 'outpatient', limit: 50_000 }] };
          const members = membersAt(coverType, head, others);
          const i = pick % members.length;
          const older = members.map((m, j) => (j === i ? { ...m, age: Math.min(120, m.age + delta) } : m));
          const before = priced(product, normalise({ ...base, members }));
          const after = priced(product, normalise({ ...base, members: older }));
          expect(after.basicMinor >= before.basicMinor).toBe(true);
          expectConsistent(after, members.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('premium is non-decreasing in the inpatient limit and in a rider’s limit (generated tables)', () => {
    const raise = (bands: Band[]) =>
      fc
        .array(fc.bigInt({ min: 0n, max: 1_000_000n }), { minLength: bands.length, maxLength: bands.length })
        .map((ups) => {
          let carry = 0n; // keeps the higher limit's premiums non-decreasing with age as well
          return bands.map((b, j) => ((carry += ups[j]), { ...b, amount: b.amount + carry }));
        });
    const tables = fc
      .tuple(ageBands(), ageBands(0, 120))
      .chain(([ip, op]) => fc.tuple(fc.constant(ip), raise(ip), fc.constant(op), raise(op)));
    fc.assert(
      fc.property(
        tables,
        fc.bigInt({ min: 0n, max: 20_000_000n }),
        headAge,
        ages,
        ([ip1, ip2, op1, op2], min, head, others) => {
          const product = generated(
            [
              ...rowsOf('inpatient', 500_000, ip1),
              ...rowsOf('inpatient', 1_000_000, ip2),
              ...rowsOf('dental', 10_000, op1),
              ...rowsOf('dental', 20_000, op2),
            ],
            0,
            min,
          );
          const members = membersAt('family', head, others);
          const at = (inpatientLimit: number, dental: number) =>
            priced(product, normalise({ inpatientLimit, riders: [{ code: 'dental', limit: dental }], members }))
              .basicMinor;
          expect(at(1_000_000, 10_000) >= at(500_000, 10_000)).toBe(true);
          expect(at(500_000, 20_000) >= at(500_000, 10_000)).toBe(true);
          expect(at(1_000_000, 20_000) >= at(1_000_000, 10_000)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('seed: a higher inpatient limit never costs less, for random families at every insurer', () => {
    const family = fc.record({
      insurer: fc.integer({ min: 0, max: 4 }),
      principal: fc.integer({ min: 18, max: 65 }),
      spouse: fc.option(fc.integer({ min: 18, max: 80 })),
      children: fc.array(fc.tuple(fc.integer({ min: 0, max: 24 }), fc.boolean()), { maxLength: 6 }),
      maternity: fc.option(fc.constantFrom(30_000, 100_000, 300_000)),
    });
    fc.assert(
      fc.property(family, (f) => {
        const members = [
          principal(f.principal),
          ...(f.spouse === null ? [] : [spouse(f.spouse)]),
          ...f.children.map(([age, school]) => child(age, age >= 18 || school)),
        ];
        const riders = f.maternity === null ? [] : [{ code: 'maternity', limit: f.maternity }];
        const product = seedProduct(f.insurer);
        let last = -1n;
        for (const limit of [500_000, 1_000_000, 2_000_000, 3_000_000, 5_000_000, 10_000_000]) {
          const r = medicalLine.price(product, normalise({ inpatientLimit: limit, riders, members }));
          if ('ineligible' in r) {
            expect(f.insurer === 4 && limit === 10_000_000).toBe(true);
            continue;
          }
          expectConsistent(r, members.length);
          expect(r.basicMinor >= last && r.basicMinor >= product.minPremiumMinor).toBe(true);
          last = r.basicMinor;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('each member pays their bands’ premiums less the group discount (oracle); a rider outside its bands costs 0', () => {
    fc.assert(
      fc.property(
        ageBands(),
        fc.integer({ min: 0, max: 100 }).chain((lo) => fc.tuple(fc.constant(lo), ageBands(lo, lo + 20))),
        fc.integer({ min: 0, max: 10_000 }),
        headAge,
        ages,
        (ip, [lo, mat], bps, head, others) => {
          const product = generated(
            [...rowsOf('inpatient', 500_000, ip), ...rowsOf('maternity', 30_000, mat)],
            bps,
            0n,
          );
          const members = membersAt('group', head, others);
          const risk = normalise({
            coverType: 'group',
            inpatientLimit: 500_000,
            riders: [{ code: 'maternity', limit: 30_000 }],
            members,
          });
          const p = priced(product, risk);
          const expected = members.map((m) => {
            const gross = bandAmount(ip, m.age)! + (m.age >= lo && m.age <= lo + 20 ? bandAmount(mat, m.age)! : 0n);
            return gross - percentOf(gross, bps);
          });
          expect(p.perInsuredMinor).toEqual(expected);
          expect(p.basicMinor).toBe(sum(expected));
          const notCovered = members.flatMap((m, i) => (m.age >= lo && m.age <= lo + 20 ? [] : [i]));
          expect((p.terms.riders as { members_not_covered: number[] }[])[0].members_not_covered).toEqual(notCovered);
          expectConsistent(p, members.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('liftToMinimum: sums to the larger of the total and the minimum, every share at least its own', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 10_000_000n }), { minLength: 1, maxLength: 20 }),
        fc.bigInt({ min: 0n, max: 100_000_000n }),
        (shares, min) => {
          const out = liftToMinimum(shares, min).shares;
          const total = sum(shares);
          expect(sum(out)).toBe(total > min ? total : min);
          out.forEach((s, i) => expect(s >= shares[i]).toBe(true));
          if (total > 0n && total < min) {
            // Proportional: each later share's lift is floor(shortfall × share / total).
            out.slice(1).forEach((s, j) => expect(s - shares[j + 1]).toBe(((min - total) * shares[j + 1]) / total));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
