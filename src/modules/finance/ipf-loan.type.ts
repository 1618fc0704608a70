import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { nodeAccess, KEEPS_REACH } from '../../graphql/access.ts';
import { reachableClient } from '../clients/client.type.ts';
import { fromDbDate, todayNairobi } from '../../lib/dates.ts';
import { IPF_SCOPES, ipfLoanReach, oneLoan } from '../access/ipf.visibility.ts';
import type { LoanStatus } from './ipf-state.ts';
import {
  type InstalmentLine,
  type InstalmentStatus,
  type LoanFigures,
  lineOutstanding,
  lineStatus,
  loanBalance,
  type NextDue,
} from './loan/balance.ts';
import { getLoan, type LoanPayment, listLoans, loanHistory, paymentsOf } from './loan/read.ts';
import './ipf-quote.type.ts';

/**
 * Premium-finance loans (docs/premium-finance.md "Premium finance: quote, lenders and loans"), seen exactly as their policy is; a SACCO
 * or microfinance organisation reads none (ipf_not_offered, enforced by the services behind the root fields). Balances
 * are loan/balance.ts's, as of the business day the field is read.
 */

export const IpfLoanStatusEnum = builder.enumType('IpfLoanStatus', {
  description: 'Where a loan stands: awaiting_deposit → active → settled | defaulted, or cancelled before the deposit.',
  values: {
    awaiting_deposit: { description: 'Signed; waiting for the deposit and the lender to pay the insurer.' },
    active: {
      description: 'Funded: the lender paid the insurer and the policy is active; instalments are being repaid.',
    },
    settled: { description: 'Paid in full, or settled early.' },
    defaulted: { description: 'An instalment stayed unpaid past the lender’s grace days.' },
    cancelled: { description: 'The application was cancelled or expired before the deposit was paid.' },
  } as const satisfies Record<LoanStatus, { description: string }>,
});

const IpfInstalmentStatusEnum = builder.enumType('IpfInstalmentStatus', {
  description: 'paid; waived (at early settlement); else by due date: overdue (past), due (today), upcoming',
  values: {
    paid: { description: 'Paid in full.' },
    waived: { description: 'Waived at early settlement.' },
    overdue: { description: 'Due before today and not fully paid.' },
    due: { description: 'Due today and not fully paid.' },
    upcoming: { description: 'Due after today.' },
  } as const satisfies Record<InstalmentStatus, { description: string }>,
});

builder.prismaObject('IpfInstalment', {
  ...oneLoan,
  description: 'One line of a loan’s schedule; line 1 is the deposit.',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: '1 is the deposit' }),
    dueOn: t.string({ description: 'Y-m-d', resolve: (i) => fromDbDate(i.dueOn) }),
    amount: t.field({ description: 'The instalment.', type: MoneyRef, resolve: (i) => money(i.amountMinor)! }),
    paid: t.field({ description: 'Paid on it so far.', type: MoneyRef, resolve: (i) => money(i.paidMinor)! }),
    waived: t.field({
      type: MoneyRef,
      description: 'Rebated at early settlement',
      resolve: (i) => money(i.waivedMinor)!,
    }),
    outstanding: t.field({
      description: 'Amount − paid − waived.',
      type: MoneyRef,
      resolve: (i) => money(lineOutstanding(i))!,
    }),
    status: t.field({
      description: 'Where it stands as of today (Nairobi).',
      type: IpfInstalmentStatusEnum,
      resolve: (i) => lineStatus(i, todayNairobi()),
    }),
  }),
});

const IpfNextDueRef = builder.objectRef<NextDue>('IpfNextDue').implement({
  description: 'The oldest instalment with something outstanding (what a repayment pays first).',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: 'Its line in the schedule (1 is the deposit).' }),
    dueOn: t.exposeString('dueOn', { description: 'Y-m-d' }),
    amount: t.field({ type: MoneyRef, description: 'Outstanding on it', resolve: (d) => money(d.amountMinor)! }),
  }),
});

const IpfAllocationRef = builder.objectRef<LoanPayment['allocations'][number]>('IpfPaymentAllocation').implement({
  description: 'The part of a receipt that went to one instalment.',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: 'The instalment paid (1 is the deposit).' }),
    amount: t.field({
      description: 'How much of the receipt went to it.',
      type: MoneyRef,
      resolve: (a) => money(a.amountMinor)!,
    }),
  }),
});

const IpfLoanPaymentRef = builder.objectRef<LoanPayment>('IpfLoanPayment').implement({
  description: 'A receipt allocated to the loan, with what of it went to which instalment.',
  fields: (t) => ({
    receiptNo: t.exposeString('receiptNo', { description: 'Our receipt number.' }),
    method: t.exposeString('method', { description: 'How it was paid (mpesa for M-Pesa payments).' }),
    transactionRef: t.exposeString('transactionRef', {
      description: 'The payment’s own reference (the M-Pesa receipt number for mpesa).',
    }),
    paidAt: t.field({ description: 'When the money was paid.', type: 'DateTime', resolve: (p) => p.paidAt }),
    amount: t.field({ type: MoneyRef, description: 'The whole receipt', resolve: (p) => money(p.amountMinor)! }),
    allocations: t.field({
      description: 'What of the receipt went to which instalment, oldest instalment first.',
      type: [IpfAllocationRef],
      resolve: (p) => p.allocations,
    }),
  }),
});

type HistoryRow = Awaited<ReturnType<typeof loanHistory>>[number];
const IpfLoanStatusChangeRef = builder.objectRef<HistoryRow>('IpfLoanStatusChange').implement({
  description: 'One status change of a loan: from, to, why, who and when.',
  fields: (t) => ({
    from: t.exposeString('fromStatus', { description: 'The status before (an IpfLoanStatus value).' }),
    to: t.exposeString('toStatus', { description: 'The status after (an IpfLoanStatus value).' }),
    reason: t.exposeString('reason', { description: 'Why, in words.' }),
    actor: t.exposeString('actor', { description: 'A user’s or API client’s name, lender, client or system' }),
    at: t.field({ description: 'When it changed.', type: 'DateTime', resolve: (h) => h.at }),
  }),
});

const LINES = { instalments: { orderBy: { seq: 'asc' } } } as const;
const balanceOf = (l: LoanFigures & { instalments: InstalmentLine[] }) => loanBalance(l, l.instalments, todayNairobi());
const ALLOCATIONS = {
  allocations: {
    orderBy: { id: 'asc' },
    include: { receipt: true, instalment: { select: { seq: true } } },
  },
} as const;

export const IpfLoanRef = builder.prismaNode('IpfLoan', {
  ...nodeAccess<{ id: number }>({ scopes: IPF_SCOPES, reach: { via: ipfLoanReach, id: (l) => l.id } }, ipfLoanReach),
  id: { field: 'id' },
  description: 'A signed premium-finance loan: its schedule, payments, balance and arrears.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the loan (an integer).' }),
    uuid: t.exposeString('uuid', { description: 'The loan id REST paths and ipfLoan(uuid:) use.' }),
    loanNo: t.exposeString('loanNo', { description: 'IPF-YYYY-NNNNNN: the account an ipf_repayment names' }),
    status: t.field({
      description: 'Where the loan stands.',
      type: IpfLoanStatusEnum,
      resolve: (l) => l.status as LoanStatus,
    }),
    policy: t.relation('policy', {
      description: 'The policy whose premium it finances; null when the caller may not see it.',
      nullable: true,
    }),
    client: t.field({ ...reachableClient, description: 'The borrower; null when the caller may not see the client.' }),
    policyNo: t.string({
      description: 'The policy number.',
      select: { policy: { select: { policyNo: true } } },
      resolve: (l) => l.policy.policyNo,
    }),
    policyUuid: t.string({
      description: 'The policy (its uuid).',
      select: { policy: { select: { uuid: true } } },
      resolve: (l) => l.policy.uuid,
    }),
    clientNo: t.string({
      description: 'The borrower’s client number.',
      select: { client: { select: { clientNo: true } } },
      resolve: (l) => l.client.clientNo,
    }),
    clientName: t.string({
      description: 'The borrower’s name.',
      select: { client: { select: { name: true } } },
      resolve: (l) => l.client.name,
    }),
    lenderId: t.exposeInt('lenderId', { description: 'The lender (IpfLender databaseId).' }),
    lenderName: t.string({
      description: 'The lender’s name.',
      select: { lender: { select: { name: true } } },
      resolve: (l) => l.lender.name,
    }),
    tenorMonths: t.exposeInt('tenorMonths', { description: 'Repayment period in months (3–10).' }),
    principal: t.field({
      type: MoneyRef,
      description: 'The premium financed',
      resolve: (l) => money(l.principalMinor)!,
    }),
    charge: t.field({ type: MoneyRef, description: 'The cost of credit', resolve: (l) => money(l.chargeMinor)! }),
    totalRepayable: t.field({
      description: 'Principal + charge: what the schedule adds up to.',
      type: MoneyRef,
      resolve: (l) => money(l.totalRepayableMinor)!,
    }),
    aprBps: t.exposeInt('aprBps', { description: 'The flat rate annualised, basis points' }),
    paid: t.field({
      description: 'Repaid so far (deposit included).',
      type: MoneyRef,
      resolve: (l) => money(l.paidMinor)!,
    }),
    rebate: t.field({
      type: MoneyRef,
      description: 'Charges waived at early settlement',
      resolve: (l) => money(l.rebateMinor)!,
    }),
    outstanding: t.field({
      type: MoneyRef,
      description: 'Total repayable − paid − rebate (nothing for a cancelled loan)',
      select: LINES,
      resolve: (l) => money(balanceOf(l).outstandingMinor)!,
    }),
    arrears: t.field({
      type: MoneyRef,
      description: 'Outstanding on the instalments due on or before today',
      select: LINES,
      resolve: (l) => money(balanceOf(l).arrearsMinor)!,
    }),
    nextDue: t.field({
      description: 'The next instalment to pay; null when nothing is outstanding.',
      type: IpfNextDueRef,
      nullable: true,
      select: LINES,
      resolve: (l) => balanceOf(l).nextDue,
    }),
    settlementPayoff: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'A confirmed early-settlement figure, held until settlementValidUntil (null when none)',
      resolve: (l) => money(l.settlementPayoffMinor),
    }),
    settlementRebate: t.field({
      description: 'The charges a confirmed early settlement waives; null when none is held.',
      type: MoneyRef,
      nullable: true,
      resolve: (l) => money(l.settlementRebateMinor),
    }),
    settlementValidUntil: t.string({
      nullable: true,
      description: 'Y-m-d',
      resolve: (l) => (l.settlementValidUntil ? fromDbDate(l.settlementValidUntil) : null),
    }),
    lenderRefund: t.field({
      type: MoneyRef,
      description: 'Unearned premium the insurer refunded to the lender on default',
      resolve: (l) => money(l.lenderRefundMinor)!,
    }),
    signedAt: t.expose('signedAt', { description: 'When the client signed the agreement.', type: 'DateTime' }),
    fundedAt: t.expose('fundedAt', {
      description: 'When the lender paid the insurer (the loan became active); null before.',
      type: 'DateTime',
      nullable: true,
    }),
    closedAt: t.expose('closedAt', {
      description: 'When it was settled, defaulted or cancelled; null while open.',
      type: 'DateTime',
      nullable: true,
    }),
    instalments: t.relation('instalments', {
      ...KEEPS_REACH,
      description: 'The repayment schedule, deposit first.',
      query: { orderBy: { seq: 'asc' } },
    }),
    payments: t.field({
      type: [IpfLoanPaymentRef],
      description: 'Receipts allocated to the loan, in the order allocated',
      select: ALLOCATIONS,
      resolve: (l) => paymentsOf(l.allocations),
    }),
    history: t.field({
      type: [IpfLoanStatusChangeRef],
      description: 'Status changes, oldest first',
      resolve: (l, _a, ctx) => loanHistory(ctx, l.id),
    }),
    createdAt: t.expose('createdAt', { description: 'When the loan was recorded.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed.', type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  ipfLoans: t.prismaConnection({
    ...KEEPS_REACH,
    type: 'IpfLoan',
    cursor: 'id',
    authScopes: { read: true, bind: true },
    description: 'Premium-finance loans the caller may see, newest first.',
    args: {
      status: t.arg({ description: 'Only loans in one of these states.', type: [IpfLoanStatusEnum] }),
      policyUuid: t.arg.string({ description: 'Only the loan of this policy (its uuid).' }),
      clientNo: t.arg.string({ description: "Only this client's loans (client number)." }),
      lenderId: t.arg.int({ description: "Only this lender's loans (lender databaseId)." }),
      inArrears: t.arg.boolean({ description: 'true: something due on or before today is unpaid' }),
    },
    resolve: (query, _root, args, ctx) => listLoans(ctx, args, query),
  }),
  ipfLoan: t.prismaField({
    ...KEEPS_REACH,
    type: 'IpfLoan',
    nullable: true,
    authScopes: { read: true, bind: true },
    description: 'A loan by uuid; null with not_found when missing or not visible to the caller.',
    args: { uuid: t.arg.string({ description: 'The loan (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => getLoan(ctx, args.uuid, query),
  }),
}));
