import { describe, expect, it } from 'vitest';
import type {
  BindMotorPolicyMutation,
  MotorQuoteQuery,
  SaveMotorQuoteMutation,
} from '../../rest-compat/generated/operations.ts';
import {
  bindFromRest,
  boundPolicyToRest,
  insuredFromRest,
  optionToRest,
  PORTAL_NOTE,
  quoteInputFromRest,
  redactBindReplay,
  REPLAY_NOTE,
  riskToRest,
  savedQuoteToRest,
  saveQuoteFromRest,
} from '../../rest-compat/mappers/motor.ts';
import { serverFiguresToRest } from '../../rest-compat/mappers/priced.ts';
import type { Resolved } from '../../rest-compat/route.ts';
import { BindRequest, MotorQuoteRequest, SaveQuoteRequest } from '../../rest-compat/schemas/motor.ts';
import '../../rest-compat/schemas/index.ts';
import { m } from './fixtures.ts';

type Quote = Resolved<MotorQuoteQuery>['motorQuote'];

const quote: Quote = {
  __typename: 'MotorQuote',
  message: '2 insurers quoted',
  quote: {
    class: 'Motor',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicleClass: 'private',
    coverType: 'comprehensive',
    coverPeriod: 'annual',
    days: 365,
    startDate: '2025-01-01',
    endDate: '2025-12-31',
    year: 2019,
    tonnage: null,
    pll: 0,
    value: { amount: 1_500_000, amountMinor: 150_000_000 },
  },
  options: [
    {
      insurerId: 3,
      insurerName: 'Jubilee',
      monogram: 'JB',
      motorProductId: 30,
      productVersion: 4,
      vehicleClass: 'private',
      coverType: 'comprehensive',
      rate: 4,
      rateBps: 400,
      value: { amount: 1_500_000, amountMinor: 150_000_000 },
      basicPremium: { amount: 60_000, amountMinor: 6_000_000 },
      taxes: [{ code: 'TL', name: 'Training levy', amount: { amount: 120, amountMinor: 12_000 } }],
      taxesTotal: { amount: 120, amountMinor: 12_000 },
      total: { amount: 60_120, amountMinor: 6_012_000 },
      commissionRateBps: 1000,
      benefits: [{ id: 'b1', name: 'Windscreen' }],
      limitsOfLiability: [
        { benefitId: 'b1', item: 'Windscreen', limit: { amount: 50_000 } },
        { benefitId: 'b2', item: 'Third party injury', limit: null },
      ],
      excess: '2.5% of the claim, minimum KES 15,000',
      pll: 0,
      tonnage: null,
      instalments: [
        {
          parts: 2,
          amounts: [
            { amount: 30_060, amountMinor: 3_006_000 },
            { amount: 30_060, amountMinor: 3_006_000 },
          ],
        },
      ],
      ipfOffers: [
        {
          lenderName: 'Premium Credit',
          tenorMonths: 10,
          deposit: { amount: 12_024, amountMinor: 1_202_400 },
          instalment: { amount: 5_050, amountMinor: 505_000 },
          aprBps: 1800,
        },
      ],
      ipfReason: null,
    },
  ],
};

describe('motor mapper: requests', () => {
  it('a quote, as its definition parses it: numeric strings read as numbers, one insurer_id as a list, blanks left out', () => {
    const parsed = (b: unknown) => quoteInputFromRest(MotorQuoteRequest.parse(b));
    expect(parsed({ class: 'Motor', scope: 'Comprehensive', year: '2019', value: '1500000', insurer_id: '3' })).toEqual(
      {
        class: 'Motor',
        coverage: undefined,
        scope: 'Comprehensive',
        coverPeriod: undefined,
        days: undefined,
        year: 2019,
        value: 1_500_000,
        tonnage: undefined,
        pll: undefined,
        insurerIds: [3],
        startDate: undefined,
      },
    );
    const tpo = { class: 'Motor', scope: 'TPO', year: 2019 };
    expect(parsed({ ...tpo, insurer_id: [3, '4'] }).insurerIds).toEqual([3, 4]);
    expect(MotorQuoteRequest.safeParse({ ...tpo, year: 'old' }).success).toBe(false);
    expect(parsed({ ...tpo, insurer_id: '' }).insurerIds).toBeUndefined();
  });

  it('the client: legacy `idno`, `pin` and `agentcode` as written (and `id_no`, `kra_pin`)', () => {
    expect(
      insuredFromRest({
        name: 'Achieng',
        phone: '0712345678',
        idno: '12345678',
        pin: 'A012345678Z',
        agentcode: 'AG01',
      }),
    ).toEqual({
      name: 'Achieng',
      phone: '0712345678',
      email: undefined,
      idNo: '12345678',
      kraPin: 'A012345678Z',
      riskManagerId: undefined,
      branchId: undefined,
      salesPersonId: undefined,
      agentCode: 'AG01',
      clientNo: undefined,
      force: undefined,
      type: undefined,
    });
    expect(insuredFromRest({ id_no: '1', kra_pin: 'P1', sales_person_id: '5' })).toMatchObject({
      idNo: '1',
      kraPin: 'P1',
      salesPersonId: 5,
    });
    expect(insuredFromRest({ idno: 'legacy', id_no: 'current' })).toMatchObject({ idNo: 'legacy' });
    // Absent reads as empty (its fields are named); anything but an object passes as sent, refused as `client`.
    expect(insuredFromRest(undefined)).toMatchObject({ name: undefined });
    expect(insuredFromRest('Achieng')).toBe('Achieng');
    expect(insuredFromRest(['Achieng'])).toEqual(['Achieng']);
  });

  it('save quote, as its definition parses it: the vehicle by `reg_no` or `regno`; one quote alone read as a list, junk refused', () => {
    const parse = (b: unknown) => SaveQuoteRequest.safeParse(b);
    const vehicle = { class: 'Motor', regno: 'KDA 123A', year: '2019', scope: 'TPO' };
    const out = saveQuoteFromRest(
      SaveQuoteRequest.parse({
        client: { name: 'A' },
        vehicle,
        quotes: [{ insurer_id: '3', total: '60120', benefits: ['b1'] }],
      }),
    );
    expect(out.vehicle).toMatchObject({ regNo: 'KDA 123A', year: 2019, scope: 'TPO' });
    expect(out.quotes).toEqual([
      { insurerId: 3, rate: undefined, basic: undefined, taxes: undefined, total: 60_120, benefits: ['b1'] },
    ]);
    const one = parse({ client: {}, vehicle: { ...vehicle, reg_no: 'KDA123A' }, quotes: { insurer_id: 3 } });
    expect(one.success && saveQuoteFromRest(one.data)).toMatchObject({
      vehicle: { regNo: 'KDA123A' },
      quotes: [{ insurerId: 3 }],
    });
    expect(parse({ client: {}, vehicle, quotes: 'none' }).success).toBe(false);
  });

  it('bind, as its definition parses it: policy figures as numbers, the vehicle by `regno` or `reg_no`, alone or in a list of one', () => {
    const body = {
      client: { name: 'A', pin: 'P1' },
      policy: {
        start_date: '2025-01-01',
        insurer_id: '3',
        class: 'Motor',
        scope: 'TPO',
        premium: '60120',
        premium_instalments: '2',
      },
      vehicles: [{ regno: 'KDA 123A', yom: '2019', chassis_no: 'JTD1' }],
    };
    const out = bindFromRest(BindRequest.parse(body));
    expect(out.client).toMatchObject({ name: 'A', kraPin: 'P1' });
    expect(out.policy).toMatchObject({ startDate: '2025-01-01', insurerId: 3, premium: 60_120, premiumInstalments: 2 });
    expect(out.vehicles).toEqual([expect.objectContaining({ regNo: 'KDA 123A', yom: 2019, chassisNo: 'JTD1' })]);
    const alone = bindFromRest(BindRequest.parse({ ...body, vehicles: { reg_no: 'KDB456B', yom: 2020 } }));
    expect(alone.vehicles).toEqual([expect.objectContaining({ regNo: 'KDB456B', yom: 2020 })]);
    const two = [...body.vehicles, { reg_no: 'KDB456B', yom: 2020 }];
    expect(BindRequest.safeParse({ ...body, vehicles: two }).success).toBe(false);
  });
});

describe('motor mapper: answers', () => {
  it('the risk as priced', () => {
    expect(riskToRest(quote.quote)).toEqual({
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      vehicle_class: 'private',
      cover_type: 'comprehensive',
      cover_period: 'annual',
      days: 365,
      start_date: '2025-01-01',
      end_date: '2025-12-31',
      year: 2019,
      tonnage: null,
      pll: 0,
      value: 1_500_000,
      value_minor: 150_000_000,
    });
    expect(riskToRest({ ...quote.quote, value: null })).toMatchObject({ value: null, value_minor: null });
  });

  it('an option: unlimited cover is a null limit; instalment amounts in two parallel lists', () => {
    expect(optionToRest(quote.options[0])).toEqual({
      insurer_id: 3,
      insurer_name: 'Jubilee',
      monogram: 'JB',
      motor_product_id: 30,
      vehicle_class: 'private',
      cover_type: 'comprehensive',
      rate: 4,
      rate_bps: 400,
      value: 1_500_000,
      value_minor: 150_000_000,
      basic_premium: 60_000,
      basic_premium_minor: 6_000_000,
      taxes: [{ code: 'TL', name: 'Training levy', amount: 120, amount_minor: 12_000 }],
      taxes_total: 120,
      taxes_total_minor: 12_000,
      total: 60_120,
      total_minor: 6_012_000,
      commission_rate_bps: 1000,
      benefits: [{ id: 'b1', name: 'Windscreen' }],
      limits_of_liability: [
        { benefit_id: 'b1', item: 'Windscreen', limit: 50_000 },
        { benefit_id: 'b2', item: 'Third party injury', limit: null },
      ],
      excess: '2.5% of the claim, minimum KES 15,000',
      pll: 0,
      tonnage: null,
      instalments: [{ parts: 2, amounts: [30_060, 30_060], amounts_minor: [3_006_000, 3_006_000] }],
      ipf_offers: [
        {
          tenor_months: 10,
          deposit: 12_024,
          deposit_minor: 1_202_400,
          instalment: 5_050,
          instalment_minor: 505_000,
          apr_bps: 1800,
          lender_name: 'Premium Credit',
        },
      ],
      ipf_reason: null,
      product_version: 4,
    });
  });

  it('premium_mismatch: the server figures (snake_cased by the executor) as money pairs', () => {
    const extra = {
      server: [
        {
          insurer_id: 3,
          basic_premium: { amount: 60_000, amount_minor: 6_000_000 },
          taxes: { amount: 120, amount_minor: 12_000 },
          total: { amount: 60_120, amount_minor: 6_012_000 },
        },
      ],
    };
    expect(serverFiguresToRest(extra)).toEqual({
      server: [
        {
          insurer_id: 3,
          basic_premium: 60_000,
          basic_premium_minor: 6_000_000,
          taxes: 120,
          taxes_minor: 12_000,
          total: 60_120,
          total_minor: 6_012_000,
        },
      ],
    });
    expect(serverFiguresToRest({ matches: [] })).toEqual({ matches: [] });
  });

  it('a saved quote', () => {
    const saved: Resolved<SaveMotorQuoteMutation>['saveMotorQuote'] = {
      __typename: 'SavedQuote',
      databaseId: 9,
      uuid: 'q-1',
      quoteNo: 'Q-2025-000009',
      clientNo: 'C-000012',
      validUntil: '2025-01-15',
      productLine: 'motor',
      quoteStatus: 'presented',
      options: [{ optionId: 1, insurerId: 3, insurerName: 'Jubilee', rate: null, total: m(60_120, 6_012_000) }],
    };
    expect(savedQuoteToRest(saved)).toEqual({
      message: 'Quote saved',
      id: 9,
      uuid: 'q-1',
      quote_no: 'Q-2025-000009',
      client_no: 'C-000012',
      valid_until: '2025-01-15',
      data: {
        uuid: 'q-1',
        product_line: 'motor',
        status: 'presented',
        options: [
          { option_id: 1, insurer_id: 3, insurer_name: 'Jubilee', rate: null, total: 60_120, total_minor: 6_012_000 },
        ],
      },
    });
  });

  it('a bound policy: the client key shown once (the portal note when the client had one), redacted on a replay', () => {
    const bound: Resolved<BindMotorPolicyMutation>['bindMotorPolicy'] = {
      __typename: 'BoundPolicy',
      clientNo: 'C-000012',
      clientKey: 'ck_portal_1',
      portalNote: null,
      policy: {
        databaseId: 1,
        uuid: 'pol-1',
        policyNo: 'MTR-2025-000001',
        riskNote: 'RN-000001',
        status: 'pending_payment',
        productLine: 'motor',
        startDate: '2025-01-01',
        endDate: '2025-12-31',
        paymentMode: 'full',
        instalments: 2,
        basicPremium: m(60_000, 6_000_000),
        taxes: m(120, 12_000),
        total: m(60_120, 6_012_000),
        debitNotes: [
          { number: 'DN-MTR-2025-000001-1/2', instalmentNo: 1, dueOn: '2025-01-01', amount: m(30_060, 3_006_000) },
          { number: 'DN-MTR-2025-000001-2/2', instalmentNo: 2, dueOn: '2025-02-01', amount: m(30_060, 3_006_000) },
        ],
      },
    };
    const body = boundPolicyToRest(bound, new URL('https://api.example.test/api/v1/motor/save'));
    expect(body).toEqual({
      message: 'Policy saved, pending payment',
      id: 1,
      uuid: 'pol-1',
      risknote: 'RN-000001',
      policy_no: 'MTR-2025-000001',
      client_no: 'C-000012',
      client_key: 'ck_portal_1',
      status: 'pending_payment',
      product_line: 'motor',
      start_date: '2025-01-01',
      end_date: '2025-12-31',
      payment_mode: 'full',
      instalments: 2,
      premium: {
        basic_premium: 60_000,
        basic_premium_minor: 6_000_000,
        taxes: 120,
        taxes_minor: 12_000,
        total: 60_120,
        total_minor: 6_012_000,
      },
      debit_note: {
        number: 'DN-MTR-2025-000001',
        due_on: '2025-01-01',
        amount: 60_120,
        amount_minor: 6_012_000,
        instalments: [
          {
            number: 'DN-MTR-2025-000001-1/2',
            instalment_no: 1,
            due_on: '2025-01-01',
            amount: 30_060,
            amount_minor: 3_006_000,
          },
          {
            number: 'DN-MTR-2025-000001-2/2',
            instalment_no: 2,
            due_on: '2025-02-01',
            amount: 30_060,
            amount_minor: 3_006_000,
          },
        ],
      },
      portal: { client_no: 'C-000012', client_key: 'ck_portal_1' },
      links: { policy: 'https://api.example.test/api/v1/policies/pol-1' },
    });
    expect(redactBindReplay(body)).toEqual({
      ...body,
      client_key: null,
      portal: { client_no: 'C-000012', client_key: null },
      replay_note: REPLAY_NOTE,
    });
    const known = boundPolicyToRest({ ...bound, clientKey: null }, new URL('https://api.example.test/'));
    expect(known.portal).toEqual({ client_no: 'C-000012', client_key: null, note: PORTAL_NOTE });
    expect(
      boundPolicyToRest({ ...bound, clientKey: null, portalNote: 'Ask the office' }, new URL('https://x.test/')).portal
        .note,
    ).toBe('Ask the office');
  });
});
