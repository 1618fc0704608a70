import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { nairobiIso } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { setRefundsTo } from '../../policies/policy.service.ts';
import { transitionIpf } from '../ipf-state.ts';
import { closeLoan } from './close.ts';
import { loanEventRef, loanWithParties } from './event-ref.ts';

/** What the lender paid the insurer for a loan, as its disbursement answered. */
export interface Disbursed {
  disbursementRef: string;
  amountMinor: bigint;
  /** The receipt the lender's money raised on the policy's debit note. */
  receiptNo: string;
  fundedAt: Date;
}

/**
 * The loan's side of funding, in the transaction that receipted the lender's money on the policy (the loan row
 * locked by the caller, still awaiting its deposit): the loan is `active` (fundedAt, disbursementRef), its
 * application `funded`, the policy's refunds go to the lender, and ipf.funded is emitted. A loan whose client has
 * already paid everything before it was funded is settled at once. False when another writer moved the loan first.
 */
export async function markLoanFunded(app: AppServices, tx: Tx, loanId: number, d: Disbursed): Promise<boolean> {
  const loan = await loanWithParties(tx, loanId);
  const meta = { tenantId: loan.tenantId, reason: `lender paid the insurer (${d.disbursementRef})`, actor: 'lender' };
  if (!(await transitionIpf(tx, 'loan', loan.id, 'awaiting_deposit', 'active', meta))) return false;
  await tx.ipfLoan.update({
    where: { id: loan.id },
    data: { fundedAt: d.fundedAt, disbursementRef: d.disbursementRef },
  });
  if (loan.application.status === 'signed')
    await transitionIpf(tx, 'application', loan.application.id, 'signed', 'funded', meta);
  await setRefundsTo(tx, loan.policyId, 'lender');
  await emitEvent(app, tx, loan.tenantId, 'ipf.funded', {
    ...loanEventRef(loan),
    disbursed: amountOf(d.amountMinor),
    disbursement_ref: d.disbursementRef,
    receipt_no: d.receiptNo,
    funded_at: nairobiIso(d.fundedAt),
  });
  if (loan.paidMinor >= loan.totalRepayableMinor)
    await closeLoan(app, tx, loan.id, { rebateMinor: 0n, reason: 'paid in full before funding', actor: 'system' });
  return true;
}
