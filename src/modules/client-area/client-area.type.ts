import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import type { Client } from '../../generated/prisma/client.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { clientAreaService } from './client-area.service.ts';
import type { ViewerLoan, ViewerLoanLine } from './viewer/loans.ts';
import type { ViewerClaim, ViewerPolicy } from './viewer/read.ts';
import { statementHtml } from './viewer/statement-html.ts';
import type { Statement, StatementLine } from './viewer/statement.ts';

/**
 * The client area in GraphQL: `viewer` is the client signed in with X-Client-No + X-Client-Key (connectionParams on a
 * WebSocket). Plain types, not the staff records: a customer sees its own details, policies, statement and claims
 * and nothing of the organisation's handling (sales people, reserves, assessors).
 */

const ViewerVehicleRef = builder.objectRef<ViewerPolicy['vehicles'][number]>('ViewerVehicle').implement({
  fields: (t) => ({
    regNo: t.exposeString('regNo'),
    make: t.exposeString('make', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
  }),
});

const ViewerInsuredRef = builder.objectRef<ViewerPolicy['insured'][number]>('ViewerInsured').implement({
  description: 'An insured person (member), traveller or item of a medical, travel or standard policy.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Names this insured on a claim (insuredId)' }),
    kind: t.exposeString('kind', { description: 'member, traveller or item' }),
    name: t.exposeString('name'),
    relationship: t.exposeString('relationship', { nullable: true }),
  }),
});

const ViewerDebitNoteRef = builder.objectRef<ViewerPolicy['debitNotes'][number]>('ViewerDebitNote').implement({
  fields: (t) => ({
    number: t.exposeString('number'),
    dueOn: t.exposeString('dueOn'),
    amount: t.field({ type: MoneyRef, resolve: (d) => money(d.amountMinor)! }),
    outstanding: t.field({ type: MoneyRef, resolve: (d) => money(d.outstandingMinor)! }),
  }),
});

const ViewerPolicyRef = builder.objectRef<ViewerPolicy>('ViewerPolicy').implement({
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    policyNo: t.exposeString('policyNo'),
    productLine: t.exposeString('productLine'),
    status: t.exposeInt('status', { description: 'The spec: 1 for active cover, 0 for every other status' }),
    statusText: t.exposeString('statusText', { description: 'The policy status (pending_payment, active …)' }),
    insurerName: t.exposeString('insurerName'),
    startDate: t.exposeString('startDate'),
    endDate: t.exposeString('endDate'),
    total: t.field({ type: MoneyRef, resolve: (p) => money(p.totalMinor)! }),
    outstanding: t.field({ type: MoneyRef, resolve: (p) => money(p.outstandingMinor)! }),
    productName: t.exposeString('productName', {
      nullable: true,
      description: "Medical, travel and standard policies: the cover product's name; null for motor",
    }),
    vehicles: t.field({ type: [ViewerVehicleRef], resolve: (p) => p.vehicles }),
    insured: t.field({
      type: [ViewerInsuredRef],
      description: 'Medical, travel and standard policies: who or what is on cover; empty for motor',
      resolve: (p) => p.insured,
    }),
    debitNotes: t.field({ type: [ViewerDebitNoteRef], resolve: (p) => p.debitNotes }),
  }),
});

const StatementLineRef = builder.objectRef<StatementLine>('StatementLine').implement({
  fields: (t) => ({
    at: t.field({ type: 'DateTime', resolve: (l) => l.at }),
    kind: t.exposeString('kind', { description: 'debit_note, receipt or credit_note' }),
    number: t.exposeString('number'),
    policyNo: t.exposeString('policyNo', { nullable: true }),
    description: t.exposeString('description'),
    debit: t.field({ type: MoneyRef, resolve: (l) => money(l.debitMinor)! }),
    credit: t.field({ type: MoneyRef, resolve: (l) => money(l.creditMinor)! }),
    balance: t.field({
      type: MoneyRef,
      description: 'Owed after this line (negative: in credit)',
      resolve: (l) => money(l.balanceMinor)!,
    }),
  }),
});

export const ViewerStatementRef = builder.objectRef<Statement>('ViewerStatement').implement({
  fields: (t) => ({
    generatedAt: t.field({ type: 'DateTime', resolve: (s) => s.generatedAt }),
    lines: t.field({ type: [StatementLineRef], resolve: (s) => s.lines }),
    totalDebits: t.field({ type: MoneyRef, resolve: (s) => money(s.totalDebitsMinor)! }),
    totalCredits: t.field({ type: MoneyRef, resolve: (s) => money(s.totalCreditsMinor)! }),
    closingBalance: t.field({
      type: MoneyRef,
      description: 'Σ debit notes − Σ receipts − Σ credit notes: owed (positive) or in credit (negative)',
      resolve: (s) => money(s.closingBalanceMinor)!,
    }),
    html: t.string({ description: 'The statement as a printable HTML page', resolve: (s) => statementHtml(s) }),
  }),
});

export const ViewerClaimRef = builder.objectRef<ViewerClaim>('ViewerClaim').implement({
  description: 'A claim as its claimant follows it. Amounts in cents only.',
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    claimNo: t.exposeString('claimNo'),
    policyNo: t.exposeString('policyNo'),
    status: t.exposeString('status'),
    cause: t.exposeString('cause'),
    lossDate: t.exposeString('lossDate'),
    lossPlace: t.exposeString('lossPlace'),
    regNo: t.exposeString('regNo', { nullable: true }),
    reportedAt: t.field({ type: 'DateTime', resolve: (c) => c.reportedAt }),
    estimatedLossMinor: t.field({ type: 'Cents', nullable: true, resolve: (c) => c.estimatedLossMinor }),
    approvedAmountMinor: t.field({ type: 'Cents', nullable: true, resolve: (c) => c.approvedAmountMinor }),
    paidMinor: t.field({ type: 'Cents', resolve: (c) => c.paidMinor }),
  }),
});

const cents = <T>(get: (x: T) => bigint) => ({ type: 'Cents' as const, resolve: get });

const ViewerLoanLineRef = builder.objectRef<ViewerLoanLine>('ViewerLoanInstalment').implement({
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: '1 is the deposit' }),
    dueOn: t.exposeString('dueOn'),
    amountMinor: t.field(cents((l) => l.amountMinor)),
    paidMinor: t.field(cents((l) => l.paidMinor)),
    waivedMinor: t.field(cents((l) => l.waivedMinor)),
    outstandingMinor: t.field(cents((l) => l.outstandingMinor)),
    status: t.exposeString('status', { description: 'paid, waived, overdue, due (today) or upcoming' }),
  }),
});

const ViewerLoanDueRef = builder.objectRef<NonNullable<ViewerLoan['nextDue']>>('ViewerLoanDue').implement({
  fields: (t) => ({
    instalment: t.exposeInt('seq'),
    dueOn: t.exposeString('dueOn'),
    amountMinor: t.field(cents((d) => d.amountMinor)),
  }),
});

const ViewerLoanRef = builder.objectRef<ViewerLoan>('ViewerLoan').implement({
  description: 'A premium-finance loan of the signed-in client, with its schedule and balance. Amounts in cents only.',
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    reference: t.exposeString('reference', { description: 'The loan number: the account instalments are paid to' }),
    status: t.exposeString('status'),
    policyNo: t.exposeString('policyNo'),
    lenderName: t.exposeString('lenderName'),
    tenorMonths: t.exposeInt('tenorMonths'),
    aprBps: t.exposeInt('aprBps'),
    principalMinor: t.field(cents((l) => l.principalMinor)),
    chargeMinor: t.field(cents((l) => l.chargeMinor)),
    totalRepayableMinor: t.field(cents((l) => l.totalRepayableMinor)),
    paidMinor: t.field(cents((l) => l.paidMinor)),
    rebateMinor: t.field(cents((l) => l.rebateMinor)),
    balanceMinor: t.field({ ...cents<ViewerLoan>((l) => l.balanceMinor), description: 'Total − paid − rebate' }),
    arrearsMinor: t.field(cents((l) => l.arrearsMinor)),
    nextDue: t.field({ type: ViewerLoanDueRef, nullable: true, resolve: (l) => l.nextDue }),
    signedAt: t.field({ type: 'DateTime', resolve: (l) => l.signedAt }),
    schedule: t.field({ type: [ViewerLoanLineRef], resolve: (l) => l.schedule }),
  }),
});

export const ViewerRef = builder.objectRef<Client>('Viewer').implement({
  description: 'The signed-in client of the client area, with its own records only.',
  fields: (t) => ({
    clientNo: t.exposeString('clientNo'),
    name: t.exposeString('name'),
    phone: t.exposeString('phone'),
    email: t.exposeString('email', { nullable: true }),
    altPhone: t.exposeString('altPhone', { nullable: true }),
    physicalAddress: t.exposeString('physicalAddress', { nullable: true }),
    idNo: t.exposeString('idNo', { nullable: true }),
    kraPin: t.exposeString('kraPin', { nullable: true }),
    dateOfBirth: t.string({ nullable: true, resolve: (c) => (c.dateOfBirth ? fromDbDate(c.dateOfBirth) : null) }),
    onboardedVia: t.exposeString('onboardedVia'),
    policies: t.field({ type: [ViewerPolicyRef], resolve: (_c, _a, ctx) => clientAreaService.policies(ctx) }),
    statement: t.field({ type: ViewerStatementRef, resolve: (_c, _a, ctx) => clientAreaService.statement(ctx) }),
    claims: t.field({ type: [ViewerClaimRef], resolve: (_c, _a, ctx) => clientAreaService.claims(ctx) }),
    loans: t.field({ type: [ViewerLoanRef], resolve: (_c, _a, ctx) => clientAreaService.loans(ctx) }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    authScopes: { read: true },
    description:
      'The client signed in to the client area (X-Client-No and X-Client-Key with the bearer token); 401 invalid_client_key without them.',
    resolve: (_r, _a, ctx) => clientAreaService.details(ctx),
  }),
);
