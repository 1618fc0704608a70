import type { AppServices } from '../../../context.ts';

/**
 * Funding a loan whose deposit is paid (queue ipf.disburse): the lender pays the insurer the principal, which settles
 * the policy's debit note (a receipt from the lender) and activates the policy; the loan becomes active (ipf.funded).
 */
export async function fundLoan(_app: AppServices, _loanId: number): Promise<'funded' | 'skipped' | 'refused'> {
  throw new Error('fundLoan: not implemented yet');
}
