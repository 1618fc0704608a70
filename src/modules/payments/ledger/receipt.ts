import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { nextNumber } from '../../../db/counters.ts';
import { nairobiIso, todayNairobi } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import {
  afterPremiumPaid,
  applyNoteAllocations,
  lockPolicyAccount,
  planNoteAllocations,
  type LockedPolicy,
} from './debit-notes.ts';

export type PaymentRequestRow = Awaited<ReturnType<Tx['paymentRequest']['findUniqueOrThrow']>>;

export interface Payment {
  ref: string;
  amountMinor: bigint;
  paidAt: Date;
}

/** What settling a payment leaves to do once its transaction has committed. */
export interface RaisedReceipt {
  receiptId: number;
  /** A premium-finance loan whose deposit this payment completed: its disbursement is queued after commit. */
  fundLoanId?: number;
  /** The policy whose premium this paid: its certificates (motor) may have become due. */
  policy?: { id: number; motorProductId: number | null };
}

/** RCT-YYYY-NNNNNN, gap-free per organisation (a locked counter row, in the settling transaction). */
export async function numberReceipt(tx: Tx, tenantId: number, paidAt: Date): Promise<string> {
  const seq = await nextNumber(tx, tenantId, 'receipt_no');
  return `RCT-${todayNairobi(paidAt).slice(0, 4)}-${String(seq).padStart(6, '0')}`;
}

/** The receipt row of an M-Pesa payment (numbered first by the settling transaction). */
export function recordMpesaReceipt(
  tx: Tx,
  tenantId: number,
  pr: PaymentRequestRow,
  pay: Payment,
  r: { receiptNo: string; clientId: number | null; policyId: number | null; loanId?: number; unallocatedMinor: bigint },
) {
  return tx.receipt.create({
    data: {
      tenantId,
      receiptNo: r.receiptNo,
      clientId: r.clientId,
      policyId: r.policyId,
      loanId: r.loanId ?? null,
      paymentRequestId: pr.id,
      method: 'mpesa',
      transactionRef: pay.ref,
      phone: pr.phone,
      account: pr.account,
      purpose: pr.purpose,
      amountMinor: pay.amountMinor,
      unallocatedMinor: r.unallocatedMinor,
      paidAt: pay.paidAt,
    },
  });
}

/** What no debit note or instalment took goes to the client's credit ledger. */
export async function creditExcess(
  tx: Tx,
  tenantId: number,
  clientId: number | null,
  receipt: { id: number; receiptNo: string },
  left: bigint,
) {
  if (left <= 0n || clientId == null) return;
  await tx.clientCredit.create({
    data: { tenantId, clientId, receiptId: receipt.id, amountMinor: left, reason: `excess of ${receipt.receiptNo}` },
  });
}

/** payment.received for an M-Pesa receipt; `allocations` as the purpose allocates (debit notes or instalments). */
export async function emitPaymentReceived(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  pr: PaymentRequestRow,
  pay: Payment,
  r: {
    receiptNo: string;
    clientNo: string | null;
    policy: { policyNo: string; uuid: string } | null;
    loanNo?: string;
    allocations: Record<string, unknown>[];
    left: bigint;
  },
) {
  await emitEvent(app, tx, tenantId, 'payment.received', {
    receipt_no: r.receiptNo,
    ...amountOf(pay.amountMinor),
    currency: 'KES',
    paid_at: nairobiIso(pay.paidAt),
    method: 'mpesa',
    transaction_ref: pay.ref,
    checkout_request_id: pr.checkoutRequestId,
    phone: pr.phone,
    account: pr.account,
    purpose: pr.purpose,
    client_no: r.clientNo,
    policy_no: r.policy?.policyNo ?? null,
    policy_uuid: r.policy?.uuid ?? null,
    loan_no: r.loanNo ?? null,
    allocations: r.allocations,
    unallocated: amountOf(r.left),
  });
}

/**
 * A premium receipt: allocation to the account's open debit notes oldest first (a debit-note account: that note
 * only), the excess to the client's credit ledger, activation when the first instalment is paid in full, and the
 * events, all in the caller's transaction. (An ipf_repayment is loan-receipt.ts.)
 */
export async function raiseReceipt(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  pr: PaymentRequestRow,
  pay: Payment,
): Promise<RaisedReceipt> {
  const { policy, client, notes } = await lockAccount(tx, pr);
  const receiptNo = await numberReceipt(tx, tenantId, pay.paidAt);
  const { allocations, left } = planNoteAllocations(notes, pay.amountMinor);
  const receipt = await recordMpesaReceipt(tx, tenantId, pr, pay, {
    receiptNo,
    clientId: client?.id ?? null,
    policyId: policy?.id ?? null,
    unallocatedMinor: left,
  });
  await applyNoteAllocations(tx, tenantId, receipt.id, allocations);
  await creditExcess(tx, tenantId, client?.id ?? null, receipt, left);
  await emitPaymentReceived(app, tx, tenantId, pr, pay, {
    receiptNo,
    clientNo: client?.clientNo ?? null,
    policy,
    allocations: allocations.map((a) => ({ debit_note_no: a.number, ...amountOf(a.amountMinor) })),
    left,
  });
  if (policy) await afterPremiumPaid(app, tx, tenantId, policy, { receiptNo, checkoutRequestId: pr.checkoutRequestId });
  return { receiptId: receipt.id, policy: policy ?? undefined };
}

/** The policy the payment is for (locked), its client, and the debit notes the money may go to. */
async function lockAccount(tx: Tx, pr: PaymentRequestRow) {
  const locked: { policy: LockedPolicy; notes: Awaited<ReturnType<typeof lockPolicyAccount>>['notes'] } | null =
    pr.policyId ? await lockPolicyAccount(tx, pr.policyId, pr.debitNoteId) : null;
  const policy = locked?.policy ?? null;
  const client = policy?.client ?? (pr.clientId ? await tx.client.findUnique({ where: { id: pr.clientId } }) : null);
  return { policy, client, notes: locked?.notes ?? [] };
}
