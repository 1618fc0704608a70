import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, type Org } from './kit.ts';

// POST /ipf/quote and GET /ipf/lenders (docs/premium-finance.md "Premium finance: quote, lenders and loans"). Expected figures are worked
// by hand below from the seeded panel (src/seed/demo-data.ts IPF_LENDERS: Mkopo Premium Finance, minimum KES 25,000,
// 4/6/10 months at 220/380/680 bps; Jamii Credit, minimum KES 30,000, 3/6 months at 190/400 bps; both rate_per_tenor
// with the deposit one instalment) by the rules at the top of src/modules/reference/ipf-terms.ts, never by its code.

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, sacco, microfinance] = t.useOrgs([
  { fast: true },
  { type: 'sacco', tokens: ['staff'] },
  { type: 'microfinance', tokens: ['staff'] },
]);

const quote = (body: unknown, token = o.tokens.staff) => o.api.post('/ipf/quote', { token, body });
const gqlQuote = (input: Record<string, unknown>, token = o.tokens.staff) =>
  o.api.gql(
    `query($i: IpfQuoteInput!) { ipfQuote(input: $i) { __typename
      ... on ValidationProblem { code fieldErrors { field code message } }
      ... on IpfQuote { premium { amount amountMinor } startDate ipfReason
        offers { lenderId lenderName tenorMonths aprBps
          deposit { amount amountMinor } instalment { amount amountMinor } charge { amount amountMinor }
          totalRepayable { amount amountMinor } schedule { instalment dueOn amount { amount amountMinor } } } } } }`,
    { i: input },
    { token },
  );

/** A GraphQL money as the REST pair, written out here (not the facade's mapper). */
const pair = (name: string, m: { amount: number; amountMinor: number }) => ({
  [name]: m.amount,
  [`${name}_minor`]: m.amountMinor,
});

// KES 43,211 = 4,321,100 cents. Each line: charge = premium × bps ÷ 10,000 rounded half away from zero to the cent;
// total = premium + charge; payments 2..n = total ÷ n rounded DOWN to a whole shilling; the deposit the rest;
// apr_bps = bps × 12 ÷ months.
//   Mkopo 4:  ×220 = 95,064.2 → 95,064;   total 4,416,164; ÷4 = 1,104,041 → 1,104,000; deposit 4,416,164 − 3×1,104,000 = 1,104,164; apr 660
//   Mkopo 6:  ×380 = 164,201.8 → 164,202; total 4,485,302; ÷6 = 747,550.3 → 747,500; deposit 4,485,302 − 5×747,500 = 747,802; apr 760
//   Mkopo 10: ×680 = 293,834.8 → 293,835; total 4,614,935; ÷10 = 461,493.5 → 461,400; deposit 4,614,935 − 9×461,400 = 462,335; apr 816
//   Jamii 3:  ×190 = 82,100.9 → 82,101;   total 4,403,201; ÷3 = 1,467,733.7 → 1,467,700; deposit 4,403,201 − 2×1,467,700 = 1,467,801; apr 760
//   Jamii 6:  ×400 = 172,844;             total 4,493,944; ÷6 = 748,990.7 → 748,900; deposit 4,493,944 − 5×748,900 = 749,444; apr 800
const HAND = [
  ['Mkopo Premium Finance', 4, 95_064, 4_416_164, 1_104_164, 1_104_000, 660],
  ['Mkopo Premium Finance', 6, 164_202, 4_485_302, 747_802, 747_500, 760],
  ['Mkopo Premium Finance', 10, 293_835, 4_614_935, 462_335, 461_400, 816],
  ['Jamii Credit', 3, 82_101, 4_403_201, 1_467_801, 1_467_700, 760],
  ['Jamii Credit', 6, 172_844, 4_493_944, 749_444, 748_900, 800],
] as const;

/** Whole shillings of cents, half away from zero, written out for the expectations. */
const whole = (minor: number) => Math.round(minor / 100);

let lenders: { id: number; name: string }[];
beforeAll(async () => {
  const r = await o.api.get('/ipf/lenders', { token: o.tokens.staff });
  expect(r.status, r.text).toBe(200);
  lenders = r.body.data;
});
const lenderId = (name: string) => lenders.find((l) => l.name === name)!.id;

describe('GET /ipf/lenders', () => {
  it('lists the panel with its terms, as GraphQL does', async () => {
    const r = await o.api.get('/ipf/lenders', { token: o.tokens.readonly });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((l: { name: string }) => l.name)).toEqual(['Mkopo Premium Finance', 'Jamii Credit']);
    expect(r.body.data[0]).toEqual({
      id: expect.any(Number),
      name: 'Mkopo Premium Finance',
      pricing: 'rate_per_tenor',
      deposit_rule: 'one_instalment',
      deposit_bps: null,
      min_premium: 25_000,
      min_premium_minor: 2_500_000,
      max_premium: null,
      max_premium_minor: null,
      grace_days: 30,
      tenors: [
        { months: 4, charge_bps: 220 },
        { months: 6, charge_bps: 380 },
        { months: 10, charge_bps: 680 },
      ],
      fee_bands: [],
    });
    const g = await o.api.gql(
      '{ ipfLenders { id name minPremium { amountMinor } tenors { months chargeBps } } }',
      {},
      {
        token: o.tokens.staff,
      },
    );
    expect(g.body.data.ipfLenders).toEqual(
      r.body.data.map((l: any) => ({
        id: l.id,
        name: l.name,
        minPremium: { amountMinor: l.min_premium_minor },
        tenors: l.tenors.map((x: any) => ({ months: x.months, chargeBps: x.charge_bps })),
      })),
    );
  });
});

describe('POST /ipf/quote', () => {
  it('prices every lender and tenor for a premium, figures worked by hand, schedule from today', async () => {
    const r = await quote({ premium: 43_211 });
    expect(r.status, r.text).toBe(200);
    const q = r.body.data;
    expect([q.premium, q.premium_minor, q.start_date, q.ipf_reason]).toEqual([43_211, 4_321_100, TODAY, null]);
    expect(q.offers.map((x: any) => [x.lender_name, x.tenor_months])).toEqual(HAND.map((h) => [h[0], h[1]]));
    for (const [i, [name, months, charge, total, deposit, instalment, apr]] of HAND.entries()) {
      const x = q.offers[i];
      expect(x).toMatchObject({
        lender_id: lenderId(name),
        charge_minor: charge,
        charge: whole(charge),
        total_repayable_minor: total,
        total_repayable: whole(total),
        deposit_minor: deposit,
        deposit: whole(deposit),
        instalment_minor: instalment,
        instalment: whole(instalment),
        apr_bps: apr,
      });
      expect(x.schedule).toHaveLength(months);
      expect(x.schedule[0]).toEqual({ instalment: 1, due_on: TODAY, amount: whole(deposit), amount_minor: deposit });
      for (const l of x.schedule.slice(1)) expect(l.amount_minor).toBe(instalment);
      expect(x.schedule.reduce((s: number, l: any) => s + l.amount_minor, 0)).toBe(total);
    }
    // Monthly on the signing day: 15 June, 15 July … 15 March 2027 for ten months.
    expect(q.offers[2].schedule.map((l: any) => l.due_on)).toEqual([
      '2026-06-15',
      '2026-07-15',
      '2026-08-15',
      '2026-09-15',
      '2026-10-15',
      '2026-11-15',
      '2026-12-15',
      '2027-01-15',
      '2027-02-15',
      '2027-03-15',
    ]);
  });

  it('narrows to a lender and a tenor; a start on the 31st falls due on each month’s last day when shorter', async () => {
    const r = await quote({
      premium: 43_211,
      lender_id: lenderId('Jamii Credit'),
      tenor_months: 6,
      start_date: '2026-08-31',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.start_date).toBe('2026-08-31');
    expect(r.body.data.offers).toHaveLength(1);
    const x = r.body.data.offers[0];
    expect([x.lender_name, x.tenor_months, x.deposit_minor, x.instalment_minor]).toEqual([
      'Jamii Credit',
      6,
      749_444,
      748_900,
    ]);
    expect(x.schedule.map((l: any) => l.due_on)).toEqual([
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
      '2027-01-31',
    ]);
    // A past start date starts today.
    expect((await quote({ premium: 43_211, start_date: '2026-01-01' })).body.data.start_date).toBe(TODAY);
  });

  it('says why nothing is offered: a premium under every minimum, or under one lender’s', async () => {
    const low = await quote({ premium: 20_000 });
    expect(low.status, low.text).toBe(200);
    expect(low.body.data.offers).toEqual([]);
    expect(low.body.data.ipf_reason).toBe(
      'Mkopo Premium Finance finances premiums from KES 25,000; Jamii Credit finances premiums from KES 30,000',
    );
    const mid = await quote({ premium: 27_000 });
    expect(mid.body.data.ipf_reason).toBeNull();
    expect(mid.body.data.offers.map((x: any) => `${x.lender_name}/${x.tenor_months}`)).toEqual([
      'Mkopo Premium Finance/4',
      'Mkopo Premium Finance/6',
      'Mkopo Premium Finance/10',
    ]);
    const jamii = await quote({ premium: 27_000, lender_id: lenderId('Jamii Credit') });
    expect(jamii.body.data.ipf_reason).toBe('Jamii Credit finances premiums from KES 30,000');
  });

  it('quotes a visible policy pending payment at its gross premium, as the motor quote offered it', async () => {
    const pol = await o.pendingPolicy({ policy: { payment_mode: 'ipf' }, instalments: 1 });
    const r = await quote({ policy: pol.uuid });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.premium_minor).toBe(pol.premium.total_minor);
    // The motor quote's ipf_offers for the same insurer and risk: the same arithmetic, so the same figures.
    const motor = await o.api.post('/motor/quote', {
      token: o.tokens.staff,
      body: { class: 'Motor', scope: 'Comprehensive', year: 2023, value: 1_500_000 },
    });
    const option = motor.body.options.find((x: any) => x.total_minor === pol.premium.total_minor);
    expect(option, 'the bound option in the motor quote').toBeDefined();
    expect(
      r.body.data.offers.map((x: any) => [
        x.lender_name,
        x.tenor_months,
        x.deposit_minor,
        x.instalment_minor,
        x.apr_bps,
      ]),
    ).toEqual(
      option.ipf_offers.map((x: any) => [
        x.lender_name,
        x.tenor_months,
        x.deposit_minor,
        x.instalment_minor,
        x.apr_bps,
      ]),
    );
    // `policy_uuid` is accepted too.
    expect((await quote({ policy_uuid: pol.uuid })).body.data.premium_minor).toBe(pol.premium.total_minor);
  });

  it('REST and GraphQL answer the same offers', async () => {
    const input = { premium: 43_211, tenor_months: 6 };
    const rest = (await quote(input)).body.data;
    const g = await gqlQuote({ premium: 43_211, tenorMonths: 6 });
    const q = g.body.data.ipfQuote;
    expect(q.__typename).toBe('IpfQuote');
    expect({
      ...pair('premium', q.premium),
      start_date: q.startDate,
      ipf_reason: q.ipfReason,
      offers: q.offers.map((x: any) => ({
        lender_id: x.lenderId,
        lender_name: x.lenderName,
        tenor_months: x.tenorMonths,
        ...pair('deposit', x.deposit),
        ...pair('instalment', x.instalment),
        ...pair('charge', x.charge),
        ...pair('total_repayable', x.totalRepayable),
        apr_bps: x.aprBps,
        schedule: x.schedule.map((l: any) => ({
          instalment: l.instalment,
          due_on: l.dueOn,
          ...pair('amount', l.amount),
        })),
      })),
    }).toEqual(rest);
    expect(rest.offers.map((x: any) => x.lender_name)).toEqual(['Mkopo Premium Finance', 'Jamii Credit']);
  });
});

describe('POST /ipf/quote refusals', () => {
  it('tenor_months outside 3–10, not offered, or not a number: errors.tenor_months', async () => {
    for (const tenor of [2, 11, 3.5])
      expectProblem(await quote({ premium: 43_211, tenor_months: tenor }), 422, 'validation_failed', 'tenor_months');
    // Beyond the bounds is a shape refusal: a stable code beside the words.
    for (const [tenor, code] of [
      [2, 'too_small'],
      [11, 'too_large'],
      [3.5, 'not_a_whole_number'],
    ] as const)
      expect((await quote({ premium: 43_211, tenor_months: tenor })).body.errors, String(tenor)).toEqual([
        expect.objectContaining({ field: 'tenor_months', code }),
      ]);
    const five = await quote({ premium: 43_211, tenor_months: 5 });
    expectProblem(five, 422, 'validation_failed', 'tenor_months');
    expect(five.body.errors).toEqual([{ field: 'tenor_months', message: 'No lender on the panel offers 5 months' }]);
    const jamii = await quote({ premium: 43_211, tenor_months: 4, lender_id: lenderId('Jamii Credit') });
    expect(jamii.body.errors).toEqual([{ field: 'tenor_months', message: 'Jamii Credit does not offer 4 months' }]);
    expectProblem(await quote({ premium: 43_211, tenor_months: 'six' }), 422, 'validation_failed', 'tenor_months');
    const g = await gqlQuote({ premium: 43_211, tenorMonths: 11 });
    expect(g.body.data.ipfQuote.fieldErrors).toEqual([
      { field: 'input.tenorMonths', code: 'too_large', message: expect.any(String) },
    ]);
  });

  it('no premium source, both or a bad premium name premium; an unusable policy names policy', async () => {
    const active = await o.activePolicy();
    const theirs = await o.pendingPolicy();
    for (const [body, field] of [
      [{}, 'premium'],
      [{ premium: 43_211, policy: theirs.uuid }, 'premium'],
      [{ premium: 0 }, 'premium'],
      [{ premium: -5 }, 'premium'],
      [{ premium: 'lots' }, 'premium'],
      [{ premium: 1e12 }, 'premium'],
      [{ premium: 1_000_000_001 }, 'premium'],
      [{ policy: 'not-a-uuid' }, 'policy'],
      [{ policy: randomUUID() }, 'policy'],
      [{ policy: active.uuid }, 'policy'],
      [{ policy: 42 }, 'policy'],
      [{ policy_uuid: randomUUID() }, 'policy'],
    ] as const) {
      const r = await quote(body);
      expectProblem(r, 422, 'validation_failed', field);
      expect(
        r.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toEqual([field]);
      for (const e of r.body.errors) expect(e.message, r.text).not.toMatch(/^(premium|policy):/);
    }
    expect((await quote({ premium: 'abc' })).body.errors).toEqual([
      { field: 'premium', code: 'not_a_number', message: 'must be a number' },
    ]);
    for (const [premium, code] of [
      [1_000_000_001, 'too_large'],
      [1e12, 'too_large'],
      [0, 'too_small'],
      [-5, 'too_small'],
      // A premium may carry cents, but not less than one: 0.004 was quoted as KES 0 (outside check).
      [0.004, 'too_small'],
    ] as const)
      expect((await quote({ premium })).body.errors, String(premium)).toEqual([
        { field: 'premium', code, message: 'an amount in shillings from 0.01 to 1,000,000,000' },
      ]);
    // A policy out of the agent's reach reads as missing.
    const agentsView = await quote({ policy: theirs.uuid }, o.tokens.agent);
    expectProblem(agentsView, 422, 'validation_failed', 'policy');
    // GraphQL names its own spelling.
    const g = await gqlQuote({ premium: -5 });
    expect(g.body.data.ipfQuote.fieldErrors).toEqual([
      { field: 'input.premium', code: 'too_small', message: expect.any(String) },
    ]);
  });

  it('a lender not on the panel, an impossible start date', async () => {
    expectProblem(await quote({ premium: 43_211, lender_id: 987_654 }), 422, 'validation_failed', 'lender_id');
    expectProblem(await quote({ premium: 43_211, start_date: '2026-02-30' }), 422, 'validation_failed', 'start_date');
  });

  it('needs the quote scope', async () => {
    expectProblem(await quote({ premium: 43_211 }, o.tokens.readonly), 403, 'insufficient_scope');
  });
});

describe('ipf_not_offered: SACCO and microfinance organisations', () => {
  const cases = (org: () => Org) => [
    () => org().api.post('/ipf/quote', { token: org().tokens.staff, body: { premium: 43_211 } }),
    () => org().api.get('/ipf/lenders', { token: org().tokens.staff }),
    () => org().api.get('/ipf/loans', { token: org().tokens.staff }),
    () => org().api.get(`/ipf/loans/${randomUUID()}`, { token: org().tokens.staff }),
  ];
  const GRAPHQL = [
    '{ ipfQuote(input: { premium: 43211 }) { __typename } }',
    '{ ipfLenders { id } }',
    '{ ipfLoans { edges { node { uuid } } } }',
    `{ ipfLoan(uuid: "${randomUUID()}") { uuid } }`,
  ];
  for (const [name, org] of [
    ['sacco', () => sacco],
    ['microfinance', () => microfinance],
  ] as const) {
    it(`${name}: quote, lenders, loans and a loan answer 403 on REST and GraphQL`, async () => {
      for (const call of cases(org)) expectProblem(await call(), 403, 'ipf_not_offered');
      for (const query of GRAPHQL) {
        const g = await org().api.gql(query, {}, { token: org().tokens.staff });
        expect(g.body.errors?.[0]?.extensions?.code, query).toBe('ipf_not_offered');
      }
    });
  }
});
