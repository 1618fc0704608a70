import { describe, expect, it } from 'vitest';
import { earlySettlementToRest } from '../../rest-compat/mappers/ipf-settlement.ts';
import { m } from './fixtures.ts';

const quoted = {
  __typename: 'IpfEarlySettlement' as const,
  loanUuid: 'loan-1',
  loanNo: 'IPF-2026-000001',
  loanStatus: 'active',
  phase: 'quoted',
  asOf: '2026-09-15',
  outstanding: m(18_260, 1_825_975),
  rebate: m(669, 66_850),
  payoff: m(17_591, 1_759_125),
  instalmentsWaived: [{ instalment: 6, dueOn: '2026-11-15', amount: m(669, 66_850) }],
  validUntil: '2026-09-22',
  replayed: false,
  payment: null,
};

describe('the early-settlement mapper', () => {
  it('a quote: the figures in the REST spellings, no payment', () => {
    expect(earlySettlementToRest(quoted)).toEqual({
      loan: { uuid: 'loan-1', loan_no: 'IPF-2026-000001', status: 'active' },
      status: 'quoted',
      as_of: '2026-09-15',
      outstanding: 18_260,
      outstanding_minor: 1_825_975,
      rebate: 669,
      rebate_minor: 66_850,
      payoff: 17_591,
      payoff_minor: 1_759_125,
      instalments_waived: [{ instalment: 6, due_on: '2026-11-15', amount: 669, amount_minor: 66_850 }],
      valid_until: '2026-09-22',
      payment: null,
    });
  });

  it('a confirmation: the push collecting the payoff, as POST /payment/stk/push answers it', () => {
    const payment = {
      __typename: 'StkPushAcknowledgement' as const,
      id: 'pr-9',
      merchantRequestId: '29115-9',
      checkoutRequestId: 'ws_CO_9',
      responseCode: '0',
      responseDescription: 'Success. Request accepted for processing',
      customerMessage: 'Success. Request accepted for processing',
      replayed: false,
      paymentRequest: {
        id: 'pr-9',
        status: 'pending',
        phone: '254712345678',
        account: 'IPF-2026-000001',
        purpose: 'ipf_repayment',
        createdAt: '2026-09-15T06:00:00.000Z',
        amount: m(17_592, 1_759_200),
      },
    };
    const rest = earlySettlementToRest({ ...quoted, phase: 'confirmed', payment });
    expect(rest.status).toBe('confirmed');
    expect(rest.payment).toEqual({
      id: 'pr-9',
      merchant_request_id: '29115-9',
      checkout_request_id: 'ws_CO_9',
      response_code: '0',
      response_description: 'Success. Request accepted for processing',
      customer_message: 'Success. Request accepted for processing',
      status: 'pending',
      phone: '254712345678',
      amount: 17_592,
      amount_minor: 1_759_200,
      account: 'IPF-2026-000001',
      purpose: 'ipf_repayment',
      links: { status: '/api/v1/payment/stk/ws_CO_9' },
    });
  });
});
