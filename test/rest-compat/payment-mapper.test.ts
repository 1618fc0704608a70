import { describe, expect, it } from 'vitest';
import type { ReceiptFieldsFragment, StkPushStatusQuery } from '../../rest-compat/generated/operations.ts';
import {
  callbackTokenToRest,
  clientBalanceToRest,
  paymentRequestToRest,
  receiptToRest,
  stkPushToRest,
} from '../../rest-compat/mappers/payment.ts';
import { m } from './fixtures.ts';

const request: StkPushStatusQuery['stkPushStatus'] = {
  id: 'pr-1',
  merchantRequestId: null,
  checkoutRequestId: null,
  status: 'sending',
  phone: '254712345678',
  account: 'MTR-2025-000001',
  purpose: 'premium',
  resultCode: null,
  resultDesc: null,
  mpesaReceiptNumber: null,
  receiptNo: null,
  resolvedVia: null,
  resolvedAt: null,
  createdAt: '2025-01-01T06:00:00.000Z',
  amount: m(1_000, 100_000),
};

const receipt: ReceiptFieldsFragment = {
  receiptNo: 'RCT-2025-000001',
  amount: m(1_000, 100_000),
  unallocated: m(0, 0),
  method: 'mpesa',
  transactionRef: 'QWE123',
  phone: '254712345678',
  account: 'MTR-2025-000001',
  purpose: 'premium',
  paidAt: '2025-01-01T06:00:00.000Z',
  createdAt: '2025-01-01T06:00:01.000Z',
  clientNo: 'C-000012',
  policyNo: null,
  allocations: [{ debitNoteNo: 'DN-MTR-2025-000001-1/1', amount: m(1_000, 100_000) }],
};

describe('payment mapper', () => {
  it('a payment request still `sending`: nulls for what the rail has not said', () => {
    expect(paymentRequestToRest(request)).toEqual({
      id: 'pr-1',
      merchant_request_id: null,
      checkout_request_id: null,
      status: 'sending',
      phone: '254712345678',
      amount: 1_000,
      amount_minor: 100_000,
      account: 'MTR-2025-000001',
      purpose: 'premium',
      result_code: null,
      result_desc: null,
      mpesa_receipt_number: null,
      receipt_no: null,
      resolved_via: null,
      resolved_at: null,
      created_at: '2025-01-01T06:00:00.000Z',
    });
    expect(
      paymentRequestToRest({ ...request, status: 'failed', resultCode: 1032, resultDesc: 'Cancelled by user' }),
    ).toMatchObject({ status: 'failed', result_code: 1032, result_desc: 'Cancelled by user' });
  });

  it('a receipt: KES, the unallocated money as an object, allocations as pairs', () => {
    expect(receiptToRest(receipt)).toEqual({
      receipt_no: 'RCT-2025-000001',
      amount: 1_000,
      amount_minor: 100_000,
      unallocated: { amount: 0, amount_minor: 0 },
      currency: 'KES',
      method: 'mpesa',
      transaction_ref: 'QWE123',
      phone: '254712345678',
      account: 'MTR-2025-000001',
      purpose: 'premium',
      client_no: 'C-000012',
      policy_no: null,
      paid_at: '2025-01-01T06:00:00.000Z',
      created_at: '2025-01-01T06:00:01.000Z',
      allocations: [{ debit_note_no: 'DN-MTR-2025-000001-1/1', amount: 1_000, amount_minor: 100_000 }],
    });
  });

  it('an STK acknowledgement links to its status by checkout request id, or by its own id while sending', () => {
    const ack = {
      __typename: 'StkPushAcknowledgement' as const,
      id: 'pr-1',
      merchantRequestId: '29115-1',
      checkoutRequestId: 'ws_CO_1/2',
      responseCode: '0',
      responseDescription: 'Success. Request accepted for processing',
      customerMessage: 'Success. Request accepted for processing',
      replayed: false,
      paymentRequest: {
        id: 'pr-1',
        status: 'pending',
        phone: '254712345678',
        account: 'MTR-2025-000001',
        purpose: 'premium',
        createdAt: '2025-01-01T06:00:00.000Z',
        amount: m(1_000, 100_000),
      },
    };
    expect(stkPushToRest(ack)).toEqual({
      id: 'pr-1',
      merchant_request_id: '29115-1',
      checkout_request_id: 'ws_CO_1/2',
      response_code: '0',
      response_description: 'Success. Request accepted for processing',
      customer_message: 'Success. Request accepted for processing',
      status: 'pending',
      phone: '254712345678',
      amount: 1_000,
      amount_minor: 100_000,
      account: 'MTR-2025-000001',
      purpose: 'premium',
      links: { status: '/api/v1/payment/stk/ws_CO_1%2F2' },
    });
    expect(stkPushToRest({ ...ack, checkoutRequestId: null }).links).toEqual({ status: '/api/v1/payment/stk/pr-1' });
  });

  it('the callback token rotation and the client balance', () => {
    expect(
      callbackTokenToRest({
        shortcode: '400200',
        generation: 2,
        rotatedAt: '2025-01-01T06:00:00.000Z',
        previousValidUntil: null,
      }),
    ).toEqual({
      shortcode: '400200',
      generation: 2,
      rotated_at: '2025-01-01T06:00:00.000Z',
      previous_valid_until: null,
    });
    expect(
      clientBalanceToRest({
        clientNo: 'C-000012',
        outstanding: m(500, 50_000),
        credit: m(0, 0),
        openDebitNotes: [
          {
            number: 'DN-MTR-2025-000001-2/2',
            instalmentNo: 2,
            dueOn: '2025-02-01',
            amount: m(1_000, 100_000),
            paid: m(500, 50_000),
            outstanding: m(500, 50_000),
          },
        ],
      }),
    ).toEqual({
      client_no: 'C-000012',
      outstanding: { amount: 500, amount_minor: 50_000 },
      credit: { amount: 0, amount_minor: 0 },
      debit_notes: [
        {
          number: 'DN-MTR-2025-000001-2/2',
          instalment_no: 2,
          due_on: '2025-02-01',
          amount: 1_000,
          amount_minor: 100_000,
          paid: 500,
          paid_minor: 50_000,
          outstanding: 500,
          outstanding_minor: 50_000,
        },
      ],
    });
  });
});
