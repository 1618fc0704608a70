import { describe, expect, it } from 'vitest';
import { cancellationInputFromRest, cancellationToRest } from '../../rest-compat/mappers/cancellation.ts';
import { cancellation, m } from './fixtures.ts';

describe('cancellation mapper', () => {
  it('the request: snake_case to the input; a missing or null reason is "" for the service to refuse', () => {
    expect(
      cancellationInputFromRest({
        reason: 'vehicle_sold',
        requested_by: 'insured',
        effective_date: '2025-07-01',
        note: 'sold',
      }),
    ).toEqual({ reason: 'vehicle_sold', requestedBy: 'insured', effectiveDate: '2025-07-01', note: 'sold' });
    expect(cancellationInputFromRest({ reason: null, effective_date: null })).toEqual({
      reason: '',
      requestedBy: '',
      effectiveDate: undefined,
      note: undefined,
    });
  });

  it('a confirmed cancellation: the itemised refund, its credit note, no reinstatement note', () => {
    expect(cancellationToRest(cancellation)).toEqual({
      id: 7,
      uuid: 'can-1',
      policy: { uuid: 'pol-1', policy_no: 'MTR-2025-000001', status: 'cancelled' },
      status: 'confirmed',
      reason: 'vehicle_sold',
      registry_reason_id: 15,
      requested_by: 'insured',
      note: null,
      effective_date: '2025-07-01',
      based_on_revision: 4,
      refund: {
        days: { in_period: 365, covered: 181, unearned: 184 },
        basic_premium: 19_900,
        basic_premium_minor: 1_990_000,
        levies: [{ code: 'TL', name: 'Training levy', amount: 40, amount_minor: 3_980 }],
        taxes: 100,
        taxes_minor: 10_050,
        non_refundable: [
          { code: 'SD', name: 'Stamp duty', amount: 40, amount_minor: 4_000, reason: 'Flat duty, charged once' },
        ],
        credit_total: 20_000,
        credit_total_minor: 2_000_050,
        applied_to_debit_notes: [{ debit_note_no: 'DN-MTR-2025-000001-2/2', amount: 5_000, amount_minor: 500_000 }],
        applied_total: 5_000,
        applied_total_minor: 500_000,
        refund_to_client: 15_001,
        refund_to_client_minor: 1_500_050,
        refund_payee: 'client',
        refund_to_lender: 0,
        refund_to_lender_minor: 0,
        outstanding_after: 0,
        outstanding_after_minor: 0,
        items: [
          {
            regno: 'KDA123A',
            insured: null,
            annual_basic_premium: 39_500,
            annual_basic_premium_minor: 3_950_000,
            from: '2025-07-01',
            to: '2025-12-31',
            unearned_basic_premium: 19_900,
            unearned_basic_premium_minor: 1_990_000,
          },
        ],
      },
      credit_note: {
        number: 'CN-MTR-2025-000001-1',
        amount: 20_000,
        amount_minor: 2_000_050,
        applied: 5_000,
        applied_minor: 500_000,
        refunded: 15_001,
        refunded_minor: 1_500_050,
        refund_payee: 'client',
      },
      reinstatement_debit_note: null,
      expires_at: '2025-07-04T06:00:00.000Z',
      confirmed_at: '2025-07-01T07:00:00.000Z',
      reinstated_at: null,
      created_at: '2025-07-01T06:00:00.000Z',
    });
  });

  it('a refund to the premium-finance lender: refund_payee lender on the refund and its credit note', () => {
    const rest = cancellationToRest({
      ...cancellation,
      creditNote: { ...cancellation.creditNote!, refundPayee: 'lender' },
      refund: {
        ...cancellation.refund,
        refundToClient: m(0, 0),
        refundPayee: 'lender',
        refundToLender: m(15_001, 1_500_050),
      },
    });
    expect(rest.refund).toMatchObject({
      refund_to_client: 0,
      refund_to_client_minor: 0,
      refund_payee: 'lender',
      refund_to_lender: 15_001,
      refund_to_lender_minor: 1_500_050,
    });
    expect(rest.credit_note).toMatchObject({ refunded_minor: 1_500_050, refund_payee: 'lender' });
  });

  it('a quoted preview has no credit note; a reinstated one has its reinstatement debit note', () => {
    expect(cancellationToRest({ ...cancellation, cancellationStatus: 'quoted', creditNote: null })).toMatchObject({
      status: 'quoted',
      credit_note: null,
    });
    const reinstated = cancellationToRest({
      ...cancellation,
      cancellationStatus: 'reinstated',
      reinstatedAt: '2025-07-10T06:00:00.000Z',
      reinstatementDebitNote: {
        number: 'DN-MTR-2025-000001-R1',
        amount: m(20_000, 2_000_050),
        credited: m(5_000, 500_000),
      },
    });
    expect(reinstated.reinstatement_debit_note).toEqual({
      number: 'DN-MTR-2025-000001-R1',
      amount: 20_000,
      amount_minor: 2_000_050,
      credited: 5_000,
      credited_minor: 500_000,
    });
  });
});
