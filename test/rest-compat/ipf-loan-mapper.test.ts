import { describe, expect, it } from 'vitest';
import type {
  IpfLoanDetailFieldsFragment,
  IpfLoanFieldsFragment,
  ViewerLoansQuery,
} from '../../rest-compat/generated/operations.ts';
import { viewerLoanToRest } from '../../rest-compat/mappers/client-area.ts';
import {
  ipfLenderToRest,
  ipfLoanDetailToRest,
  ipfLoanToRest,
  ipfQuoteFromRest,
  ipfQuoteToRest,
} from '../../rest-compat/mappers/ipf-loan.ts';
import { IPF_INSTALMENT_STATUSES, IPF_LOAN_STATUSES } from '../../rest-compat/schemas/ipf-loan.ts';
import { LOAN_STATUSES } from '../../src/modules/finance/ipf-state.ts';
import { INSTALMENT_STATUSES } from '../../src/modules/finance/loan/balance.ts';
import { m } from './fixtures.ts';

const loan: IpfLoanFieldsFragment = {
  databaseId: 4,
  uuid: '4b0c3c1e-0000-4000-8000-000000000004',
  loanNo: 'IPF-2026-000004',
  loanStatus: 'active',
  policyUuid: 'p-uuid',
  policyNo: 'POL-4',
  clientNo: 'C-000004',
  clientName: 'Wanjiru Kamau',
  lenderId: 2,
  lenderName: 'Mkopo Premium Finance',
  tenorMonths: 4,
  principal: m(43_211, 4_321_100),
  charge: m(951, 95_064),
  totalRepayable: m(44_162, 4_416_164),
  aprBps: 660,
  paid: m(11_042, 1_104_164),
  rebate: m(0, 0),
  outstanding: m(33_120, 3_312_000),
  arrears: m(0, 0),
  nextDue: { instalment: 2, dueOn: '2026-07-15', amount: m(11_040, 1_104_000) },
  settlementPayoff: null,
  settlementRebate: null,
  settlementValidUntil: null,
  lenderRefund: m(0, 0),
  signedAt: '2026-06-15T06:00:00.000Z',
  fundedAt: '2026-06-15T07:00:00.000Z',
  closedAt: null,
  createdAt: '2026-06-15T06:00:00.000Z',
  updatedAt: '2026-06-15T07:00:00.000Z',
};

describe('premium-finance mappers', () => {
  it('the quote body: policy or policy_uuid, snake_case to the input, values as sent', () => {
    expect(ipfQuoteFromRest({ premium: 43_211, lender_id: 2, tenor_months: 6, start_date: '2026-07-01' })).toEqual({
      premium: 43_211,
      policyUuid: undefined,
      lenderId: 2,
      tenorMonths: 6,
      startDate: '2026-07-01',
    });
    expect(ipfQuoteFromRest({ policy_uuid: 'u' }).policyUuid).toBe('u');
    expect(ipfQuoteFromRest({ policy: 'a', policy_uuid: 'b' }).policyUuid).toBe('a');
  });

  it('a quote and its offers: money pairs, the schedule', () => {
    const q = ipfQuoteToRest({
      __typename: 'IpfQuote',
      premium: m(43_211, 4_321_100),
      startDate: '2026-06-15',
      ipfReason: null,
      offers: [
        {
          lenderId: 2,
          lenderName: 'Mkopo Premium Finance',
          tenorMonths: 4,
          deposit: m(11_042, 1_104_164),
          instalment: m(11_040, 1_104_000),
          charge: m(951, 95_064),
          totalRepayable: m(44_162, 4_416_164),
          aprBps: 660,
          schedule: [{ instalment: 1, dueOn: '2026-06-15', amount: m(11_042, 1_104_164) }],
        },
      ],
    });
    expect(q).toEqual({
      premium: 43_211,
      premium_minor: 4_321_100,
      start_date: '2026-06-15',
      ipf_reason: null,
      offers: [
        {
          lender_id: 2,
          lender_name: 'Mkopo Premium Finance',
          tenor_months: 4,
          deposit: 11_042,
          deposit_minor: 1_104_164,
          instalment: 11_040,
          instalment_minor: 1_104_000,
          charge: 951,
          charge_minor: 95_064,
          total_repayable: 44_162,
          total_repayable_minor: 4_416_164,
          apr_bps: 660,
          schedule: [{ instalment: 1, due_on: '2026-06-15', amount: 11_042, amount_minor: 1_104_164 }],
        },
      ],
    });
  });

  it('a lender: a null ceiling and open band stay null', () => {
    expect(
      ipfLenderToRest({
        id: 2,
        name: 'Banded',
        pricing: 'flat_fee_by_band',
        depositRule: 'percent',
        depositBps: 2_500,
        minPremium: m(25_000, 2_500_000),
        maxPremium: null,
        graceDays: 30,
        tenors: [{ months: 6, chargeBps: 0 }],
        feeBands: [{ upToPremium: null, fee: m(1_500, 150_000) }],
      }),
    ).toMatchObject({
      deposit_rule: 'percent',
      deposit_bps: 2_500,
      max_premium: null,
      max_premium_minor: null,
      tenors: [{ months: 6, charge_bps: 0 }],
      fee_bands: [{ up_to_premium: null, up_to_premium_minor: null, fee: 1_500, fee_minor: 150_000 }],
    });
  });

  it('a loan: parties as objects, no settlement until one is held, next due with its money pair', () => {
    const r = ipfLoanToRest(loan);
    expect(r).toMatchObject({
      id: 4,
      loan_no: 'IPF-2026-000004',
      status: 'active',
      policy: { uuid: 'p-uuid', policy_no: 'POL-4' },
      client: { client_no: 'C-000004', name: 'Wanjiru Kamau' },
      lender: { id: 2, name: 'Mkopo Premium Finance' },
      outstanding: 33_120,
      outstanding_minor: 3_312_000,
      next_due: { instalment: 2, due_on: '2026-07-15', amount: 11_040, amount_minor: 1_104_000 },
      settlement: null,
    });
    const held = ipfLoanToRest({
      ...loan,
      settlementPayoff: m(33_000, 3_300_000),
      settlementRebate: m(120, 12_000),
      settlementValidUntil: '2026-06-22',
    });
    expect(held.settlement).toEqual({
      payoff: 33_000,
      payoff_minor: 3_300_000,
      rebate: 120,
      rebate_minor: 12_000,
      valid_until: '2026-06-22',
    });
  });

  it('a loan record: instalments, payments with allocations, history', () => {
    const detail: IpfLoanDetailFieldsFragment = {
      instalments: [
        {
          instalment: 1,
          dueOn: '2026-06-15',
          instalmentStatus: 'paid',
          amount: m(11_042, 1_104_164),
          paid: m(11_042, 1_104_164),
          waived: m(0, 0),
          outstanding: m(0, 0),
        },
      ],
      payments: [
        {
          receiptNo: 'RCT-1',
          method: 'mpesa',
          transactionRef: 'TX1',
          paidAt: '2026-06-15T07:00:00.000Z',
          amount: m(11_042, 1_104_164),
          allocations: [{ instalment: 1, amount: m(11_042, 1_104_164) }],
        },
      ],
      history: [{ from: 'awaiting_deposit', to: 'active', reason: 'funded', actor: 'lender', at: 'x' }],
    };
    const r = ipfLoanDetailToRest({ ...loan, ...detail });
    expect(r.instalments[0]).toEqual({
      instalment: 1,
      due_on: '2026-06-15',
      amount: 11_042,
      amount_minor: 1_104_164,
      paid: 11_042,
      paid_minor: 1_104_164,
      waived: 0,
      waived_minor: 0,
      outstanding: 0,
      outstanding_minor: 0,
      status: 'paid',
    });
    expect(r.payments[0]).toEqual({
      receipt_no: 'RCT-1',
      method: 'mpesa',
      transaction_ref: 'TX1',
      paid_at: '2026-06-15T07:00:00.000Z',
      amount: 11_042,
      amount_minor: 1_104_164,
      allocations: [{ instalment: 1, amount: 11_042, amount_minor: 1_104_164 }],
    });
    expect(r.history).toEqual([{ from: 'awaiting_deposit', to: 'active', reason: 'funded', by: 'lender', at: 'x' }]);
  });

  it('a client-area loan: cents only', () => {
    const v: ViewerLoansQuery['viewer']['loans'][number] = {
      uuid: 'u',
      reference: 'IPF-2026-000004',
      loanStatus: 'active',
      policyNo: 'POL-4',
      lenderName: 'Mkopo Premium Finance',
      tenorMonths: 4,
      aprBps: 660,
      principalMinor: 4_321_100,
      chargeMinor: 95_064,
      totalRepayableMinor: 4_416_164,
      paidMinor: 1_104_164,
      rebateMinor: 0,
      balanceMinor: 3_312_000,
      arrearsMinor: 0,
      nextDue: { instalment: 2, dueOn: '2026-07-15', amountMinor: 1_104_000 },
      signedAt: '2026-06-15T06:00:00.000Z',
      schedule: [
        {
          instalment: 2,
          dueOn: '2026-07-15',
          amountMinor: 1_104_000,
          paidMinor: 0,
          waivedMinor: 0,
          outstandingMinor: 1_104_000,
          instalmentStatus: 'upcoming',
        },
      ],
    };
    const r = viewerLoanToRest(v);
    expect(r).toMatchObject({ reference: 'IPF-2026-000004', status: 'active', balance_minor: 3_312_000 });
    expect(r.next_due).toEqual({ instalment: 2, due_on: '2026-07-15', amount_minor: 1_104_000 });
    expect(r.schedule[0]).toMatchObject({ instalment: 2, outstanding_minor: 1_104_000, status: 'upcoming' });
    const keys = JSON.stringify(r)
      .match(/"[a-z_]+":/g)!
      .map((k) => k.slice(1, -2));
    expect(keys.filter((k) => ['amount', 'paid', 'balance', 'charge', 'principal'].includes(k))).toEqual([]);
  });

  it('the facade’s written-out statuses are the finance module’s', () => {
    expect(IPF_LOAN_STATUSES).toEqual(LOAN_STATUSES);
    expect(IPF_INSTALMENT_STATUSES).toEqual(INSTALMENT_STATUSES);
  });
});
