import type { Principal } from '../../../auth/principal.ts';
import type { Tx } from '../../../db/client.ts';
import { DomainRuleError, ValidationError } from '../../../lib/problem.ts';
import { ipfLoanVisibility } from '../../access/ipf.visibility.ts';
import { policyVisibility } from '../../access/policy.visibility.ts';
import { requireFinanceOffered } from '../../finance/offered.ts';

/**
 * The account a prompt pays: the caller's reference read as a policy or debit note (premium) or a premium-finance loan
 * (ipf_repayment), and the rail's short form.
 */

export type PaymentPurpose = 'premium' | 'ipf_repayment';

/** Daraja allows 12 characters: the account without separators, its last 12 when longer (the full one is kept). */
export function accountReference(account: string): string {
  const compact = account.replace(/[^A-Za-z0-9]/g, '');
  return compact.length > 12 ? compact.slice(-12) : compact;
}

export interface ResolvedAccount {
  policyId: number;
  debitNoteId: number | null;
  clientId: number;
  loanId: number | null;
}

const unknown = (message: string) => new ValidationError([{ field: 'account', message }]);

/**
 * An ipf_repayment's loan (IPF-YYYY-NNNNNN) as the caller may see it (ipfLoanVisibility: an unseen one reads as
 * unknown, like a policy), refused first to an organisation premium finance is not offered to; only a loan awaiting
 * its deposit or active takes money (422 domain_rule otherwise). The policy and client go on the request too, for
 * visibility and the prompt limits.
 */
async function resolveLoan(p: Principal, tx: Tx, account: string): Promise<ResolvedAccount> {
  requireFinanceOffered(p);
  const loan = await tx.ipfLoan.findFirst({ where: { AND: [{ loanNo: account }, ipfLoanVisibility(p)] } });
  if (!loan) throw unknown('no premium-finance loan with this reference that you can see');
  if (loan.status !== 'awaiting_deposit' && loan.status !== 'active')
    throw new DomainRuleError(`Loan ${loan.loanNo} is ${loan.status.replace(/_/g, ' ')}: it takes no repayment`);
  return { policyId: loan.policyId, debitNoteId: null, clientId: loan.clientId, loanId: loan.id };
}

export async function resolveAccount(
  p: Principal,
  tx: Tx,
  account: string,
  purpose: PaymentPurpose,
): Promise<ResolvedAccount> {
  if (purpose === 'ipf_repayment') return resolveLoan(p, tx, account);
  const visible = policyVisibility(p);
  let debitNoteId: number | null = null;
  let policyId: number;
  // The policy as found by its number, when it was: not read a second time below.
  let found: Awaited<ReturnType<typeof tx.policy.findFirst>> = null;
  // DN-<policy_no> is the whole-policy debit note of the bind answer (`debit_note.number`): the policy's account.
  const dn = account.startsWith('DN-')
    ? await tx.debitNote.findFirst({ where: { number: account, policy: visible } })
    : null;
  const wholePolicy =
    account.startsWith('DN-') && !dn
      ? await tx.policy.findFirst({ where: { policyNo: account.slice(3), ...visible } })
      : null;
  if (dn) {
    debitNoteId = dn.id;
    policyId = dn.policyId;
  } else if (wholePolicy) {
    policyId = wholePolicy.id;
    found = wholePolicy;
  } else if (account.startsWith('DN-')) {
    throw unknown('no debit note with this number that you can see');
  } else {
    const pol = await tx.policy.findFirst({ where: { policyNo: account, ...visible } });
    if (!pol) throw unknown('no policy or debit note with this number that you can see');
    policyId = pol.id;
    found = pol;
  }
  const policy = found ?? (await tx.policy.findUniqueOrThrow({ where: { id: policyId } }));
  // A signed loan's lender pays this premium once the deposit is in: the client pays the loan, never the premium too.
  if (policy.paymentMode === 'ipf' && policy.status === 'pending_payment') {
    const loan = await tx.ipfLoan.findFirst({ where: { policyId, status: 'awaiting_deposit' } });
    if (loan)
      throw new DomainRuleError(
        `Policy ${policy.policyNo} is financed by loan ${loan.loanNo}: pay its deposit with purpose ipf_repayment and account ${loan.loanNo}`,
      );
  }
  // Premium is taken while pending, active or lapsed (paying the arrears reinstates a lapse); a cancelled, expired
  // or renewed policy takes only what its open debit notes still owe; a policy never taken up takes nothing.
  if (policy.status !== 'pending_payment' && policy.status !== 'active' && policy.status !== 'lapsed') {
    const open =
      policy.status === 'not_taken_up'
        ? []
        : await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM debit_notes WHERE policy_id = ${policy.id} AND amount_minor > paid_minor + credited_minor LIMIT 1`;
    if (!open.length)
      throw new DomainRuleError(
        `Policy ${policy.policyNo} is ${policy.status.replace(/_/g, ' ')} with nothing owed: it takes no premium`,
      );
  }
  return { policyId, debitNoteId, clientId: policy.clientId, loanId: null };
}
