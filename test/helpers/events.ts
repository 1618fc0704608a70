import { randomUUID } from 'node:crypto';

/** A valid `payment.received` payload (the catalogue's schema) for a receipt of `clientNo`, with no policy. */
export const paymentReceivedData = (clientNo: string) => ({
  receipt_no: `RCT-2026-${randomUUID().slice(0, 6)}`,
  amount: 100,
  amount_minor: 10_000,
  currency: 'KES',
  paid_at: new Date().toISOString(),
  method: 'mpesa',
  transaction_ref: 'TAB1234567',
  checkout_request_id: null,
  phone: '254708374149',
  account: 'MTR-2026-000001',
  purpose: 'premium',
  client_no: clientNo,
  policy_no: null,
  policy_uuid: null,
  allocations: [],
  unallocated: { amount: 100, amount_minor: 10_000 },
});
