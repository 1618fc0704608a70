import { describe, expect, it } from 'vitest';
import type { ClaimPaymentFieldsFragment } from '../../rest-compat/generated/operations.ts';
import { claimPaymentToRest } from '../../rest-compat/mappers/claim-payment.ts';
import { PAYEE_TYPES, PAYMENT_METHODS } from '../../rest-compat/schemas/claim-payment.ts';
import {
  PAYEE_TYPES as MODULE_PAYEE_TYPES,
  PAYMENT_METHODS as MODULE_PAYMENT_METHODS,
} from '../../src/modules/claims/settlement/pay.ts';
import { m } from './fixtures.ts';

const payout: ClaimPaymentFieldsFragment = {
  uuid: 'pay-1',
  method: 'mpesa_b2c',
  paymentStatus: 'paid',
  payeeType: 'claimant',
  payeeName: 'Achieng Otieno',
  phone: '254708374149',
  bankName: null,
  bankAccount: null,
  amount: m(20_000, 2_000_000),
  reference: '8b0c3c8e-2f7a-4a51-9d0e-3f1d2f6a9b10',
  transactionId: 'TABC123XYZ',
  resultCode: 0,
  resultDesc: 'The service request is processed successfully.',
  note: null,
  requestedAt: '2026-06-15T09:00:00.000+03:00',
  sentAt: '2026-06-15T09:00:01.000+03:00',
  paidAt: '2026-06-15T09:00:03.000+03:00',
  failedAt: null,
};

describe('claim payment mapper', () => {
  it('an M-Pesa payout: payee with its phone, the rail’s result, whole shillings beside the cents', () => {
    expect(claimPaymentToRest(payout)).toEqual({
      uuid: 'pay-1',
      method: 'mpesa_b2c',
      status: 'paid',
      payee: { type: 'claimant', name: 'Achieng Otieno', phone: '254708374149', bank: null },
      amount: 20_000,
      amount_minor: 2_000_000,
      reference: '8b0c3c8e-2f7a-4a51-9d0e-3f1d2f6a9b10',
      transaction_id: 'TABC123XYZ',
      result: { code: 0, description: 'The service request is processed successfully.' },
      note: null,
      requested_at: '2026-06-15T09:00:00.000+03:00',
      sent_at: '2026-06-15T09:00:01.000+03:00',
      paid_at: '2026-06-15T09:00:03.000+03:00',
      failed_at: null,
    });
  });

  it('a bank transfer: payee with its bank, no phone; no result until there is one', () => {
    const r = claimPaymentToRest({
      ...payout,
      method: 'bank_transfer',
      payeeType: 'garage',
      phone: null,
      bankName: 'KCB',
      bankAccount: '1100223344',
      amount: m(20_001, 2_000_050),
      reference: 'FT-001',
      transactionId: null,
      resultCode: null,
      resultDesc: null,
      sentAt: null,
    });
    expect(r.payee).toEqual({
      type: 'garage',
      name: 'Achieng Otieno',
      phone: null,
      bank: { name: 'KCB', account: '1100223344' },
    });
    expect(r).toMatchObject({ amount: 20_001, amount_minor: 2_000_050, result: null, transaction_id: null });
  });

  it('a refused payout keeps its description even without a code', () => {
    const r = claimPaymentToRest({
      ...payout,
      paymentStatus: 'failed',
      resultCode: null,
      resultDesc: 'Invalid Amount',
      paidAt: null,
    });
    expect(r.result).toEqual({ code: null, description: 'Invalid Amount' });
    expect(r.status).toBe('failed');
  });
});

describe('the payment value lists', () => {
  it('match the claims module', () => {
    expect(PAYMENT_METHODS).toEqual(MODULE_PAYMENT_METHODS);
    expect(PAYEE_TYPES).toEqual(MODULE_PAYEE_TYPES);
  });
});
