import { builder } from '../../graphql/builder.ts';
import { nodeAccess } from '../../graphql/access.ts';
import { IPF_SCOPES, ipfLoanReach } from '../access/ipf.visibility.ts';
import { LOAN_STATUSES, type LoanStatus } from './ipf-state.ts';

/**
 * Premium-finance loans (README "Premium finance"), seen exactly as their policy is; a SACCO or microfinance
 * organisation reads none (ipf_not_offered, enforced by the services and root fields).
 */

export const IpfLoanStatusEnum = builder.enumType('IpfLoanStatus', {
  values: LOAN_STATUSES as [LoanStatus, ...LoanStatus[]],
});

export const IpfLoanRef = builder.prismaNode('IpfLoan', {
  ...nodeAccess<{ id: number }>({ scopes: IPF_SCOPES, reach: { via: ipfLoanReach, id: (l) => l.id } }, ipfLoanReach),
  id: { field: 'id' },
  description: 'A signed premium-finance loan: its schedule, payments, balance and arrears.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    loanNo: t.exposeString('loanNo', { description: 'IPF-YYYY-NNNNNN: the account an ipf_repayment names' }),
    status: t.field({ type: IpfLoanStatusEnum, resolve: (l) => l.status as LoanStatus }),
  }),
});
