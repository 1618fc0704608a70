import { describe, expect, it } from 'vitest';
import { renewalQuoteFromRest, renewalQuoteToRest, renewFromRest } from '../../rest-compat/mappers/renewal.ts';
import type { RenewalQuoteMutation } from '../../rest-compat/generated/operations.ts';
import type { Resolved } from '../../rest-compat/route.ts';
import { m } from './fixtures.ts';

const quote: Resolved<RenewalQuoteMutation>['renewalQuote'] = {
  __typename: 'RenewalQuote',
  uuid: 'rq-1',
  quoteStatus: 'quoted',
  startDate: '2026-01-01',
  endDate: '2026-12-31',
  productVersion: 4,
  validUntil: '2025-12-20',
  createdAt: '2025-12-17T06:00:00.000Z',
  basicPremium: m(42_000, 4_200_000),
  taxes: m(105, 10_500),
  total: m(42_145, 4_214_500),
  change: m(-1_855, -185_500),
  levies: [{ code: 'TL', name: 'Training levy', amount: m(84, 8_400) }],
  vehicles: [
    {
      regNo: 'KDA123A',
      value: null,
      previousAnnualBasic: m(44_000, 4_400_000),
      renewalAnnualBasic: m(42_000, 4_200_000),
    },
  ],
  insured: [],
  coverPremium: null,
  previous: { basicPremium: m(44_000, 4_400_000), taxes: m(110, 11_000), total: m(44_000, 4_400_000) },
  instalmentOptions: [{ parts: 2, amounts: [m(21_073, 2_107_250), m(21_073, 2_107_250)] }],
  policy: { uuid: 'pol-1', policyNo: 'MTR-2025-000001', insurer: { databaseId: 3, name: 'Jubilee' } },
  newPolicy: null,
};

describe('renewal mapper', () => {
  it('the quote request: vehicles by legacy `regno`; none is absent', () => {
    expect(renewalQuoteFromRest('pol-1', { vehicles: [{ regno: 'KDA123A', value: 900_000 }] })).toEqual({
      policyUuid: 'pol-1',
      vehicles: [{ regNo: 'KDA123A', value: 900_000 }],
    });
    expect(renewalQuoteFromRest('pol-1', {})).toEqual({ policyUuid: 'pol-1', vehicles: undefined });
  });

  it('the renew request', () => {
    expect(renewFromRest('pol-1', { renewal_quote_uuid: 'rq-1', premium: 42_145, premium_instalments: 2 })).toEqual({
      policyUuid: 'pol-1',
      input: { renewalQuoteUuid: 'rq-1', premium: 42_145, premiumInstalments: 2 },
    });
  });

  it('the quote: expiring beside renewal figures, the change signed, instalment amounts as money objects', () => {
    expect(renewalQuoteToRest(quote)).toEqual({
      uuid: 'rq-1',
      status: 'quoted',
      policy_uuid: 'pol-1',
      policy_no: 'MTR-2025-000001',
      start_date: '2026-01-01',
      end_date: '2026-12-31',
      insurer: { id: 3, name: 'Jubilee' },
      product_version: 4,
      vehicles: [
        {
          regno: 'KDA123A',
          value: null,
          value_minor: null,
          previous_annual_basic: 44_000,
          previous_annual_basic_minor: 4_400_000,
          renewal_annual_basic: 42_000,
          renewal_annual_basic_minor: 4_200_000,
        },
      ],
      insured: [],
      cover_premium: null,
      previous: {
        basic_premium: 44_000,
        basic_premium_minor: 4_400_000,
        taxes: 110,
        taxes_minor: 11_000,
        total: 44_000,
        total_minor: 4_400_000,
      },
      renewal: {
        basic_premium: 42_000,
        basic_premium_minor: 4_200_000,
        levies: [{ code: 'TL', name: 'Training levy', amount: 84, amount_minor: 8_400 }],
        taxes: 105,
        taxes_minor: 10_500,
        total: 42_145,
        total_minor: 4_214_500,
      },
      change: { total: -1_855, total_minor: -185_500 },
      instalment_options: [
        {
          parts: 2,
          amounts: [
            { amount: 21_073, amount_minor: 2_107_250 },
            { amount: 21_073, amount_minor: 2_107_250 },
          ],
        },
      ],
      valid_until: '2025-12-20',
      new_policy: null,
      created_at: '2025-12-17T06:00:00.000Z',
    });
  });

  it('a bound quote links its new policy', () => {
    const bound = renewalQuoteToRest({
      ...quote,
      quoteStatus: 'bound',
      newPolicy: { uuid: 'pol-2', policyNo: 'MTR-2026-000001', status: 'pending_payment' },
    });
    expect(bound).toMatchObject({
      status: 'bound',
      new_policy: { uuid: 'pol-2', policy_no: 'MTR-2026-000001', status: 'pending_payment' },
    });
  });

  it('a medical or standard renewal: the insured with their premiums, or the cover priced as a whole', () => {
    const out = renewalQuoteToRest({
      ...quote,
      vehicles: [],
      insured: [
        {
          databaseId: 41,
          kind: 'member',
          name: 'Amina',
          age: 41,
          sumInsured: null,
          previousAnnualBasic: m(31_251, 3_125_050),
          renewalAnnualBasic: m(33_000, 3_300_000),
        },
      ],
      coverPremium: { previousAnnualBasic: null, renewalAnnualBasic: m(9_900, 990_000) },
    });
    expect(out.vehicles).toEqual([]);
    expect(out.insured).toEqual([
      {
        id: 41,
        kind: 'member',
        name: 'Amina',
        age: 41,
        sum_insured: null,
        sum_insured_minor: null,
        previous_annual_basic: 31_251,
        previous_annual_basic_minor: 3_125_050,
        renewal_annual_basic: 33_000,
        renewal_annual_basic_minor: 3_300_000,
      },
    ]);
    expect(out.cover_premium).toEqual({
      previous_annual_basic: null,
      previous_annual_basic_minor: null,
      renewal_annual_basic: 9_900,
      renewal_annual_basic_minor: 990_000,
    });
  });
});
