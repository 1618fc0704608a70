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
  description: 'A vehicle on cover under a motor policy of the signed-in client.',
  fields: (t) => ({
    regNo: t.exposeString('regNo', { description: 'Registration number, upper case without spaces (KDA123A).' }),
    make: t.exposeString('make', { description: 'Vehicle make; null when not recorded.', nullable: true }),
    model: t.exposeString('model', { description: 'Vehicle model; null when not recorded.', nullable: true }),
  }),
});

const ViewerInsuredRef = builder.objectRef<ViewerPolicy['insured'][number]>('ViewerInsured').implement({
  description: 'An insured person (member), traveller or item of a medical, travel or standard policy.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Names this insured on a claim (insuredId)' }),
    kind: t.exposeString('kind', { description: 'member, traveller or item' }),
    name: t.exposeString('name', { description: 'The member’s or traveller’s name, or the item’s description.' }),
    relationship: t.exposeString('relationship', {
      description:
        'A member’s relationship: principal, spouse or child (family), employee, spouse or child (group); null for travellers and items.',
      nullable: true,
    }),
  }),
});

const ViewerDebitNoteRef = builder.objectRef<ViewerPolicy['debitNotes'][number]>('ViewerDebitNote').implement({
  description: 'A debit note (premium or instalment billed) of a policy of the signed-in client.',
  fields: (t) => ({
    number: t.exposeString('number', { description: 'The debit note number.' }),
    dueOn: t.exposeString('dueOn', { description: 'When it is due (Y-m-d).' }),
    amount: t.field({ description: 'The amount billed.', type: MoneyRef, resolve: (d) => money(d.amountMinor)! }),
    outstanding: t.field({
      description: 'What is still unpaid on it (zero once paid).',
      type: MoneyRef,
      resolve: (d) => money(d.outstandingMinor)!,
    }),
  }),
});

const ViewerPolicyRef = builder.objectRef<ViewerPolicy>('ViewerPolicy').implement({
  description: 'A policy of the signed-in client, with what it costs, what is owed and what it covers.',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The policy id client-area paths and mutations take.' }),
    policyNo: t.exposeString('policyNo', { description: 'The policy number.' }),
    productLine: t.exposeString('productLine', { description: 'motor, medical, travel or standard.' }),
    status: t.exposeInt('status', { description: 'The spec: 1 for active cover, 0 for every other status' }),
    statusText: t.exposeString('statusText', { description: 'The policy status (pending_payment, active …)' }),
    insurerName: t.exposeString('insurerName', { description: 'The insurer carrying the risk.' }),
    startDate: t.exposeString('startDate', { description: 'First day of cover (Y-m-d).' }),
    endDate: t.exposeString('endDate', { description: 'Last day of cover (Y-m-d).' }),
    total: t.field({
      description: 'The total premium of the policy, levies included.',
      type: MoneyRef,
      resolve: (p) => money(p.totalMinor)!,
    }),
    outstanding: t.field({
      description: 'What is still unpaid on its debit notes.',
      type: MoneyRef,
      resolve: (p) => money(p.outstandingMinor)!,
    }),
    productName: t.exposeString('productName', {
      nullable: true,
      description: "Medical, travel and standard policies: the cover product's name; null for motor",
    }),
    vehicles: t.field({
      description: 'Motor policies: the vehicles on cover (removed ones left out); empty for other lines.',
      type: [ViewerVehicleRef],
      resolve: (p) => p.vehicles,
    }),
    insured: t.field({
      type: [ViewerInsuredRef],
      description: 'Medical, travel and standard policies: who or what is on cover; empty for motor',
      resolve: (p) => p.insured,
    }),
    debitNotes: t.field({
      description: 'Its debit notes, earliest due first.',
      type: [ViewerDebitNoteRef],
      resolve: (p) => p.debitNotes,
    }),
  }),
});

const StatementLineRef = builder.objectRef<StatementLine>('StatementLine').implement({
  description: 'One line of the client’s statement: a debit note (debit), or a receipt or credit note (credit).',
  fields: (t) => ({
    at: t.field({
      description: 'When it was raised (debit and credit notes) or paid (receipts); lines run in this order.',
      type: 'DateTime',
      resolve: (l) => l.at,
    }),
    kind: t.exposeString('kind', { description: 'debit_note, receipt or credit_note' }),
    number: t.exposeString('number', { description: 'The debit note, receipt or credit note number.' }),
    policyNo: t.exposeString('policyNo', {
      description: 'The policy it concerns; null for a receipt paid to the client rather than a policy.',
      nullable: true,
    }),
    description: t.exposeString('description', {
      description: 'In words: "Instalment 2 of 3, due …", "Payment by M-Pesa QAB12…", "Credit note (cancellation)".',
    }),
    debit: t.field({
      description: 'Amount owed by this line (debit notes); zero otherwise.',
      type: MoneyRef,
      resolve: (l) => money(l.debitMinor)!,
    }),
    credit: t.field({
      description: 'Amount paid or credited by this line (receipts, credit notes); zero otherwise.',
      type: MoneyRef,
      resolve: (l) => money(l.creditMinor)!,
    }),
    balance: t.field({
      type: MoneyRef,
      description: 'Owed after this line (negative: in credit)',
      resolve: (l) => money(l.balanceMinor)!,
    }),
  }),
});

export const ViewerStatementRef = builder.objectRef<Statement>('ViewerStatement').implement({
  description:
    'The signed-in client’s statement from the first entry (opening balance 0) to now: every debit note of its policies, every receipt and every credit note.',
  fields: (t) => ({
    generatedAt: t.field({
      description: 'When the statement was drawn up.',
      type: 'DateTime',
      resolve: (s) => s.generatedAt,
    }),
    lines: t.field({ description: 'Its lines, oldest first.', type: [StatementLineRef], resolve: (s) => s.lines }),
    totalDebits: t.field({
      description: 'Σ debit notes.',
      type: MoneyRef,
      resolve: (s) => money(s.totalDebitsMinor)!,
    }),
    totalCredits: t.field({
      description: 'Σ receipts and credit notes.',
      type: MoneyRef,
      resolve: (s) => money(s.totalCreditsMinor)!,
    }),
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
    uuid: t.exposeString('uuid', { description: 'The claim id.' }),
    claimNo: t.exposeString('claimNo', { description: 'The claim number.' }),
    policyNo: t.exposeString('policyNo', { description: 'The policy claimed under.' }),
    status: t.exposeString('status', {
      description:
        'registered, documents_pending, with_underwriter, under_assessment, approved, repudiated, settled, closed or withdrawn.',
    }),
    cause: t.exposeString('cause', {
      description: 'The code of the cause of loss (as the organisation’s cause list names it).',
    }),
    lossDate: t.exposeString('lossDate', { description: 'When the loss happened (Y-m-d).' }),
    lossPlace: t.exposeString('lossPlace', { description: 'Where the loss happened, as reported.' }),
    regNo: t.exposeString('regNo', {
      description: 'Motor claims: the registration of the vehicle concerned; null otherwise.',
      nullable: true,
    }),
    reportedAt: t.field({
      description: 'When the claim was registered.',
      type: 'DateTime',
      resolve: (c) => c.reportedAt,
    }),
    estimatedLossMinor: t.field({
      description: 'The loss the claimant estimated, in cents; null when not given.',
      type: 'Cents',
      nullable: true,
      resolve: (c) => c.estimatedLossMinor,
    }),
    approvedAmountMinor: t.field({
      description: 'The amount approved for payment, in cents; null until approved.',
      type: 'Cents',
      nullable: true,
      resolve: (c) => c.approvedAmountMinor,
    }),
    paidMinor: t.field({
      description: 'Paid so far on the claim, in cents.',
      type: 'Cents',
      resolve: (c) => c.paidMinor,
    }),
  }),
});

const cents = <T>(get: (x: T) => bigint) => ({ type: 'Cents' as const, resolve: get });

const ViewerLoanLineRef = builder.objectRef<ViewerLoanLine>('ViewerLoanInstalment').implement({
  description: 'One line of a loan’s repayment schedule; line 1 is the deposit. Amounts in cents.',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: '1 is the deposit' }),
    dueOn: t.exposeString('dueOn', { description: 'When it is due (Y-m-d).' }),
    amountMinor: t.field({ ...cents<ViewerLoanLine>((l) => l.amountMinor), description: 'The instalment, in cents.' }),
    paidMinor: t.field({ ...cents<ViewerLoanLine>((l) => l.paidMinor), description: 'Paid on it, in cents.' }),
    waivedMinor: t.field({
      ...cents<ViewerLoanLine>((l) => l.waivedMinor),
      description: 'Waived at early settlement, in cents.',
    }),
    outstandingMinor: t.field({
      ...cents<ViewerLoanLine>((l) => l.outstandingMinor),
      description: 'Amount − paid − waived, in cents.',
    }),
    status: t.exposeString('status', { description: 'paid, waived, overdue, due (today) or upcoming' }),
  }),
});

const ViewerLoanDueRef = builder.objectRef<NonNullable<ViewerLoan['nextDue']>>('ViewerLoanDue').implement({
  description: 'The oldest instalment with something outstanding: what the next repayment pays first.',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: 'Its line in the schedule (1 is the deposit).' }),
    dueOn: t.exposeString('dueOn', { description: 'When it is due (Y-m-d).' }),
    amountMinor: t.field({
      ...cents<NonNullable<ViewerLoan['nextDue']>>((d) => d.amountMinor),
      description: 'Outstanding on it, in cents.',
    }),
  }),
});

const ViewerLoanRef = builder.objectRef<ViewerLoan>('ViewerLoan').implement({
  description: 'A premium-finance loan of the signed-in client, with its schedule and balance. Amounts in cents only.',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The loan id.' }),
    reference: t.exposeString('reference', { description: 'The loan number: the account instalments are paid to' }),
    status: t.exposeString('status', { description: 'awaiting_deposit, active, settled, defaulted or cancelled.' }),
    policyNo: t.exposeString('policyNo', { description: 'The policy whose premium the loan finances.' }),
    lenderName: t.exposeString('lenderName', { description: 'The lender.' }),
    tenorMonths: t.exposeInt('tenorMonths', { description: 'Repayment period in months.' }),
    aprBps: t.exposeInt('aprBps', { description: 'The flat rate annualised, in basis points (1250 = 12.5 %).' }),
    principalMinor: t.field({
      ...cents<ViewerLoan>((l) => l.principalMinor),
      description: 'The premium financed, in cents.',
    }),
    chargeMinor: t.field({ ...cents<ViewerLoan>((l) => l.chargeMinor), description: 'The cost of credit, in cents.' }),
    totalRepayableMinor: t.field({
      ...cents<ViewerLoan>((l) => l.totalRepayableMinor),
      description: 'Principal + charge, in cents.',
    }),
    paidMinor: t.field({ ...cents<ViewerLoan>((l) => l.paidMinor), description: 'Repaid so far, in cents.' }),
    rebateMinor: t.field({
      ...cents<ViewerLoan>((l) => l.rebateMinor),
      description: 'Charges waived at early settlement, in cents.',
    }),
    balanceMinor: t.field({ ...cents<ViewerLoan>((l) => l.balanceMinor), description: 'Total − paid − rebate' }),
    arrearsMinor: t.field({
      ...cents<ViewerLoan>((l) => l.arrearsMinor),
      description: 'Outstanding on the instalments due on or before today, in cents.',
    }),
    nextDue: t.field({
      description: 'The next instalment to pay; null when nothing is outstanding.',
      type: ViewerLoanDueRef,
      nullable: true,
      resolve: (l) => l.nextDue,
    }),
    signedAt: t.field({
      description: 'When the client signed the agreement.',
      type: 'DateTime',
      resolve: (l) => l.signedAt,
    }),
    schedule: t.field({
      description: 'The repayment schedule, deposit first.',
      type: [ViewerLoanLineRef],
      resolve: (l) => l.schedule,
    }),
  }),
});

export const ViewerRef = builder.objectRef<Client>('Viewer').implement({
  description: 'The signed-in client of the client area, with its own records only.',
  fields: (t) => ({
    clientNo: t.exposeString('clientNo', { description: 'The client number (C-000123): what X-Client-No carries.' }),
    name: t.exposeString('name', { description: 'Full name (or a company’s registered name).' }),
    phone: t.exposeString('phone', {
      description: 'Normalised 2547XXXXXXXX or 2541XXXXXXXX: where one-time codes and receipts go.',
    }),
    email: t.exposeString('email', { description: 'Email address, lower case; null when not given.', nullable: true }),
    altPhone: t.exposeString('altPhone', {
      description: 'An alternative phone, normalised as phone; null when none.',
      nullable: true,
    }),
    physicalAddress: t.exposeString('physicalAddress', {
      description: 'Postal or physical address as given; null when not given.',
      nullable: true,
    }),
    idNo: t.exposeString('idNo', {
      description: 'National ID or passport number, normalised (upper case, no spaces); null when not given.',
      nullable: true,
    }),
    kraPin: t.exposeString('kraPin', { description: 'KRA PIN, upper case; null when not given.', nullable: true }),
    dateOfBirth: t.string({
      description: 'Date of birth (Y-m-d); null when not given.',
      nullable: true,
      resolve: (c) => (c.dateOfBirth ? fromDbDate(c.dateOfBirth) : null),
    }),
    onboardedVia: t.exposeString('onboardedVia', {
      description:
        'Where the client was first recorded: api (a create or a bind), prospect (a converted prospect) or client_area (self-registration).',
    }),
    policies: t.field({
      description: 'The client’s policies, newest first.',
      type: [ViewerPolicyRef],
      resolve: (_c, _a, ctx) => clientAreaService.policies(ctx),
    }),
    statement: t.field({
      description: 'The client’s statement of account.',
      type: ViewerStatementRef,
      resolve: (_c, _a, ctx) => clientAreaService.statement(ctx),
    }),
    claims: t.field({
      description: 'The client’s claims, newest first.',
      type: [ViewerClaimRef],
      resolve: (_c, _a, ctx) => clientAreaService.claims(ctx),
    }),
    loans: t.field({
      description: 'The client’s premium-finance loans.',
      type: [ViewerLoanRef],
      resolve: (_c, _a, ctx) => clientAreaService.loans(ctx),
    }),
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
