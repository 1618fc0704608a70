import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { amountOf } from '../../../lib/money.ts';
import { allocateRepayment, closeIfPaidOff } from '../../finance/loan/repayment.ts';
import {
  creditExcess,
  emitPaymentReceived,
  numberReceipt,
  recordMpesaReceipt,
  type Payment,
  type PaymentRequestRow,
  type RaisedReceipt,
} from './receipt.ts';

/**
 * An ipf_repayment receipt (docs/premium-finance.md "Premium finance: deposit, funding, repayments and early settlement"), in the
 * settling transaction: the receipt names the loan, the loan's schedule takes the money (finance/loan/repayment.ts:
 * oldest line first, carried forward, settling the loan when paid off), what the loan cannot take goes to the
 * client's credit, and payment.received lists the lines paid. A deposit completed asks the caller to queue the
 * disbursement once this commits.
 */
export async function raiseLoanReceipt(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  pr: PaymentRequestRow,
  pay: Payment,
): Promise<RaisedReceipt> {
  const loan = await tx.ipfLoan.findUniqueOrThrow({
    where: { id: pr.loanId! },
    include: {
      policy: { select: { id: true, policyNo: true, uuid: true } },
      client: { select: { id: true, clientNo: true } },
    },
  });
  const receiptNo = await numberReceipt(tx, tenantId, pay.paidAt);
  const receipt = await recordMpesaReceipt(tx, tenantId, pr, pay, {
    receiptNo,
    clientId: loan.clientId,
    policyId: loan.policyId,
    loanId: loan.id,
    unallocatedMinor: pay.amountMinor,
  });
  const repaid = await allocateRepayment(tx, loan.id, { id: receipt.id, amountMinor: pay.amountMinor });
  const left = repaid.leftMinor;
  if (left !== pay.amountMinor)
    await tx.receipt.update({ where: { id: receipt.id }, data: { unallocatedMinor: left } });
  await creditExcess(tx, tenantId, loan.clientId, { id: receipt.id, receiptNo }, left);
  await emitPaymentReceived(app, tx, tenantId, pr, pay, {
    receiptNo,
    clientNo: loan.client.clientNo,
    policy: loan.policy,
    loanNo: loan.loanNo,
    allocations: repaid.allocations.map((a) => ({ instalment: a.seq, due_on: a.dueOn, ...amountOf(a.amountMinor) })),
    left,
  });
  await closeIfPaidOff(app, tx, loan.id, repaid, receiptNo);
  return { receiptId: receipt.id, ...(repaid.fund ? { fundLoanId: loan.id } : {}) };
}
