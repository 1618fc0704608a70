import type {
  ClientBalanceQuery,
  ReceiptFieldsFragment,
  RotateMpesaCallbackTokenMutation,
  StkPushAckFieldsFragment,
  StkPushStatusQuery,
} from '../generated/operations.ts';
import { moneyObject, minor, whole } from './money.ts';

export function paymentRequestToRest(r: StkPushStatusQuery['stkPushStatus']) {
  return {
    id: r.id,
    merchant_request_id: r.merchantRequestId,
    checkout_request_id: r.checkoutRequestId,
    status: r.status,
    phone: r.phone,
    amount: whole(r.amount),
    amount_minor: minor(r.amount),
    account: r.account,
    purpose: r.purpose,
    result_code: r.resultCode,
    result_desc: r.resultDesc,
    mpesa_receipt_number: r.mpesaReceiptNumber,
    receipt_no: r.receiptNo,
    resolved_via: r.resolvedVia,
    resolved_at: r.resolvedAt,
    created_at: r.createdAt,
  };
}

export function receiptToRest(r: ReceiptFieldsFragment) {
  return {
    receipt_no: r.receiptNo,
    amount: whole(r.amount),
    amount_minor: minor(r.amount),
    unallocated: moneyObject(r.unallocated),
    currency: 'KES',
    method: r.method,
    transaction_ref: r.transactionRef,
    phone: r.phone,
    account: r.account,
    purpose: r.purpose,
    client_no: r.clientNo,
    policy_no: r.policyNo,
    paid_at: r.paidAt,
    created_at: r.createdAt,
    allocations: r.allocations.map((a) => ({
      debit_note_no: a.debitNoteNo,
      amount: whole(a.amount),
      amount_minor: minor(a.amount),
    })),
  };
}

/** The rail's acknowledgement of an STK push, with the request it made and where to follow it. */
export function stkPushToRest(a: StkPushAckFieldsFragment) {
  return {
    id: a.id,
    merchant_request_id: a.merchantRequestId,
    checkout_request_id: a.checkoutRequestId,
    response_code: a.responseCode,
    response_description: a.responseDescription,
    customer_message: a.customerMessage,
    status: a.paymentRequest.status,
    phone: a.paymentRequest.phone,
    amount: whole(a.paymentRequest.amount),
    amount_minor: minor(a.paymentRequest.amount),
    account: a.paymentRequest.account,
    purpose: a.paymentRequest.purpose,
    links: { status: `/api/v1/payment/stk/${encodeURIComponent(a.checkoutRequestId ?? a.id)}` },
  };
}

export function callbackTokenToRest(c: RotateMpesaCallbackTokenMutation['rotateMpesaCallbackToken']) {
  return {
    shortcode: c.shortcode,
    generation: c.generation,
    rotated_at: c.rotatedAt,
    previous_valid_until: c.previousValidUntil,
  };
}

export function clientBalanceToRest(b: ClientBalanceQuery['clientBalance']) {
  return {
    client_no: b.clientNo,
    outstanding: moneyObject(b.outstanding),
    credit: moneyObject(b.credit),
    debit_notes: b.openDebitNotes.map((n) => ({
      number: n.number,
      instalment_no: n.instalmentNo,
      due_on: n.dueOn,
      amount: whole(n.amount),
      amount_minor: minor(n.amount),
      paid: whole(n.paid),
      paid_minor: minor(n.paid),
      outstanding: whole(n.outstanding),
      outstanding_minor: minor(n.outstanding),
    })),
  };
}
