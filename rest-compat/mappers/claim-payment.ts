import type { ClaimPaymentFieldsFragment } from '../generated/operations.ts';
import { minor, whole } from './money.ts';

/**
 * A claim payment in the REST spelling (`ClaimPaymentFields` → the ClaimPayment schema): the payee as one object
 * (its phone for M-Pesa, its bank for a transfer; the other null), the rail's result as one object once there is one.
 */
export function claimPaymentToRest(p: ClaimPaymentFieldsFragment) {
  const bank = p.bankName == null && p.bankAccount == null ? null : { name: p.bankName, account: p.bankAccount };
  return {
    uuid: p.uuid,
    method: p.method,
    status: p.paymentStatus,
    payee: { type: p.payeeType, name: p.payeeName, phone: p.phone, bank },
    amount: whole(p.amount),
    amount_minor: minor(p.amount),
    reference: p.reference,
    transaction_id: p.transactionId,
    result: p.resultCode == null && p.resultDesc == null ? null : { code: p.resultCode, description: p.resultDesc },
    note: p.note,
    requested_at: p.requestedAt,
    sent_at: p.sentAt,
    paid_at: p.paidAt,
    failed_at: p.failedAt,
  };
}
