import { keepEvents } from '../../db/event-bus.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { ValidationError, DomainRuleError } from '../../lib/problem.ts';
import { EVENTS_TOPIC, eventService } from '../events/event.service.ts';
import { paymentService, receiptVisibility } from './payment.service.ts';
import { access, type Reach, KEEPS_REACH } from '../../graphql/access.ts';
import { POLICY_SCOPES } from '../access/policy.visibility.ts';

const receiptReach: Reach = { model: 'receipt', where: receiptVisibility };

type PaymentRequestShape = Awaited<ReturnType<typeof paymentService.status>>;
type AckShape = Awaited<ReturnType<typeof paymentService.initiate>>;

const PaymentRequestRef = builder.objectRef<PaymentRequestShape>('PaymentRequest').implement({
  description: 'An STK push prompt followed to its result.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Payment request id (UUID)' }),
    merchantRequestId: t.exposeString('merchantRequestId', { nullable: true, description: 'Null while `sending`' }),
    checkoutRequestId: t.exposeString('checkoutRequestId', {
      nullable: true,
      description: 'Null while `sending`: follow the request by its id',
    }),
    status: t.exposeString('status', {
      description:
        "sending (recorded; the rail's acknowledgement not yet: after a fault the paybill statement settles it), pending (on the phone), succeeded or failed",
    }),
    phone: t.exposeString('phone', { description: 'The phone prompted, 2547XXXXXXXX or 2541XXXXXXXX.' }),
    amount: t.field({ type: MoneyRef, description: 'The amount asked for.', resolve: (r) => money(r.amountMinor)! }),
    account: t.exposeString('account', {
      description:
        'What the payment is for, as given: a policy number, debit note number or premium-finance loan reference.',
    }),
    purpose: t.exposeString('purpose', {
      description: 'premium or ipf_repayment (a premium-finance loan instalment).',
    }),
    resultCode: t.exposeInt('resultCode', { nullable: true, description: 'Daraja ResultCode once known (0 success)' }),
    resultDesc: t.exposeString('resultDesc', {
      nullable: true,
      description: "Daraja ResultDesc (the rail's words for the result); null until known.",
    }),
    mpesaReceiptNumber: t.exposeString('mpesaReceiptNo', {
      nullable: true,
      description: 'The M-Pesa receipt number (MpesaReceiptNumber) once the payment succeeded; null otherwise.',
    }),
    receiptNo: t.exposeString('receiptNo', { nullable: true, description: 'Our receipt, once the payment succeeded' }),
    resolvedVia: t.exposeString('resolvedVia', {
      nullable: true,
      description:
        "How the rail's result became known: callback (confirmed by the status query), query, statement, or push (the rail refused it)",
    }),
    resolvedAt: t.expose('resolvedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the result became known (succeeded or failed); null while sending or pending.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the push was requested.' }),
  }),
});

export const StkPushAckRef = builder.objectRef<AckShape>('StkPushAcknowledgement').implement({
  description:
    "The push's first answer, fixed once: the rail's acknowledgement (Daraja fields) and the payment request as it was then. A retry " +
    'with the same idempotency key answers exactly the same (follow stkPushStatus for the request now). The Daraja fields are null ' +
    "only for a request settled from the paybill statement before the rail's ids were known (its acknowledgement lost to a fault).",
  fields: (t) => ({
    id: t.id({ description: 'Payment request id (UUID)', resolve: (a) => a.request.id }),
    merchantRequestId: t.string({
      nullable: true,
      description: "Daraja MerchantRequestID of the rail's acknowledgement.",
      resolve: (a) => a.request.merchantRequestId,
    }),
    checkoutRequestId: t.string({
      nullable: true,
      description: 'Daraja CheckoutRequestID: follow the push with stkPushStatus.',
      resolve: (a) => a.request.checkoutRequestId,
    }),
    responseCode: t.string({
      nullable: true,
      description: 'Daraja ResponseCode of the acknowledgement ("0": the prompt was accepted for sending).',
      resolve: (a) => a.request.responseCode,
    }),
    responseDescription: t.string({
      nullable: true,
      description: 'Daraja ResponseDescription, in words.',
      resolve: (a) => a.request.responseDesc,
    }),
    customerMessage: t.string({
      nullable: true,
      description: 'Daraja CustomerMessage: a line that may be shown to the payer.',
      resolve: (a) => a.request.customerMessage,
    }),
    replayed: t.boolean({
      description: 'True when this answers an earlier request with the same idempotency key (nothing was sent again)',
      resolve: (a) => a.replayed,
    }),
    paymentRequest: t.field({
      type: PaymentRequestRef,
      description: 'The payment request as it was at the first answer (receiptNo null); stkPushStatus reads it now.',
      resolve: (a) => ({ ...a.request, receiptNo: null }),
    }),
  }),
});

builder.prismaObject('ReceiptAllocation', {
  select: { id: true, receiptId: true },
  ...access<{ receiptId: number }>({ scopes: POLICY_SCOPES, reach: { via: receiptReach, id: (a) => a.receiptId } }),
  description: 'Part of a receipt paid against one debit note.',
  fields: (t) => ({
    debitNoteNo: t.string({
      description: 'The debit note paid (its number).',
      select: { debitNote: { select: { number: true } } },
      resolve: (a) => a.debitNote.number,
    }),
    amount: t.field({
      select: { amountMinor: true },
      type: MoneyRef,
      description: 'How much of the receipt went to that debit note.',
      resolve: (a) => money(a.amountMinor)!,
    }),
  }),
});

/** Receipts: as their policy (or, for a receipt on account, their client) for agents. */
builder.prismaObject('Receipt', {
  select: { id: true },
  ...access<{ id: number }>({ scopes: POLICY_SCOPES, reach: { via: receiptReach, id: (r) => r.id } }),
  description:
    'Money received (an M-Pesa payment, or a premium-finance lender paying the premium), numbered and allocated to debit notes or loan instalments.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The numeric id.' }),
    receiptNo: t.exposeString('receiptNo', { description: 'RCT-YYYY-NNNNNN, gap-free per organisation.' }),
    amount: t.field({
      type: MoneyRef,
      description: 'The amount received.',
      select: { amountMinor: true },
      resolve: (r) => money(r.amountMinor)!,
    }),
    unallocated: t.field({
      select: { unallocatedMinor: true },
      type: MoneyRef,
      description: 'Excess credited to the client',
      resolve: (r) => money(r.unallocatedMinor)!,
    }),
    method: t.exposeString('method', {
      description: 'mpesa (a paybill payment) or ipf_lender (a premium-finance disbursement).',
    }),
    transactionRef: t.exposeString('transactionRef', { description: 'M-Pesa receipt number' }),
    phone: t.exposeString('phone', { description: 'The paying phone, 254XXXXXXXXX; empty for ipf_lender.' }),
    account: t.exposeString('account', {
      description: 'The account paid, as given: a policy number, debit note number or premium-finance loan reference.',
    }),
    purpose: t.exposeString('purpose', {
      description: 'premium or ipf_repayment (a premium-finance loan instalment).',
    }),
    paidAt: t.expose('paidAt', { type: 'DateTime', description: 'When the money was paid (as the rail reports it).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the receipt was raised.' }),
    clientNo: t.string({
      nullable: true,
      description: 'The client credited; null when the payment matched no client.',
      select: { client: { select: { clientNo: true } } },
      resolve: (r) => r.client?.clientNo ?? null,
    }),
    policyNo: t.string({
      nullable: true,
      description: 'The policy paid for; null for a payment on account (credited to the client).',
      select: { policy: { select: { policyNo: true } } },
      resolve: (r) => r.policy?.policyNo ?? null,
    }),
    allocations: t.relation('allocations', {
      ...KEEPS_REACH,
      description: 'The debit notes the receipt paid, oldest due first; what is left over is unallocated.',
      query: { orderBy: { id: 'asc' } },
    }),
  }),
});

interface BalanceShape {
  clientNo: string;
  outstandingMinor: bigint;
  creditMinor: bigint;
  openDebitNotes: {
    number: string;
    instalmentNo: number;
    dueOn: Date;
    amountMinor: bigint;
    paidMinor: bigint;
    creditedMinor: bigint;
  }[];
}
const OpenDebitNoteRef = builder.objectRef<BalanceShape['openDebitNotes'][number]>('OpenDebitNote').implement({
  description: 'A debit note with something still to pay.',
  fields: (t) => ({
    number: t.exposeString('number', { description: 'The debit note number (an STK push account).' }),
    instalmentNo: t.exposeInt('instalmentNo', { description: 'Which instalment of its policy, from 1.' }),
    dueOn: t.string({ description: 'Y-m-d: when it is due.', resolve: (d) => fromDbDate(d.dueOn) }),
    amount: t.field({ type: MoneyRef, description: 'The amount of the note.', resolve: (d) => money(d.amountMinor)! }),
    paid: t.field({
      type: MoneyRef,
      description: 'Paid on it so far (receipts).',
      resolve: (d) => money(d.paidMinor)!,
    }),
    outstanding: t.field({
      type: MoneyRef,
      description: 'amount − paid − credited',
      resolve: (d) => money(d.amountMinor - d.paidMinor - d.creditedMinor)!,
    }),
  }),
});
const ClientBalanceRef = builder.objectRef<BalanceShape>('ClientBalance').implement({
  description: 'What a client owes on open debit notes and the credit they hold.',
  fields: (t) => ({
    clientNo: t.exposeString('clientNo', { description: 'The client number.' }),
    outstanding: t.field({
      type: MoneyRef,
      description: 'What open debit notes still owe (every policy but those never taken up)',
      resolve: (b) => money(b.outstandingMinor)!,
    }),
    credit: t.field({
      type: MoneyRef,
      description: 'Credit balance (excess payments)',
      resolve: (b) => money(b.creditMinor)!,
    }),
    openDebitNotes: t.field({
      type: [OpenDebitNoteRef],
      description: 'The debit notes not yet settled, oldest due first (policies not taken up left out).',
      resolve: (b) => b.openDebitNotes,
    }),
  }),
});

const StkPushInput = builder.inputType('StkPushInput', {
  description: 'An M-Pesa STK push: the phone to prompt, the amount and what it pays.',
  fields: (t) => ({
    phone: t.string({ required: true, description: 'Kenyan mobile, any format' }),
    amount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings, 1–250,000' }),
    account: t.string({
      required: true,
      description: 'Policy number, debit note number or premium-finance loan reference',
    }),
    purpose: t.string({ description: 'premium (default) or ipf_repayment' }),
    idempotencyKey: t.string({
      description:
        'A key of yours (1–255 visible ASCII): a retry with it answers the first attempt and never prompts the phone twice, even after a fault (REST: the Idempotency-Key header)',
    }),
  }),
});

builder.mutationField('initiateStkPush', (t) =>
  t.field({
    type: StkPushAckRef,
    authScopes: { bind: true },
    errors: { types: [ValidationError, DomainRuleError], directResult: true, union: { name: 'InitiateStkPushResult' } },
    description: 'Sends an M-Pesa STK push prompt to the phone; the result arrives by callback (see stkPushStatus).',
    args: {
      input: t.arg({ description: 'What to collect and from which phone.', type: StkPushInput, required: true }),
    },
    resolve: (_r, args, ctx) => paymentService.initiate(ctx, args.input),
  }),
);

builder.queryFields((t) => ({
  stkPushStatus: t.field({
    type: PaymentRequestRef,
    authScopes: { read: true },
    description:
      'An STK push by checkout request id or payment request id; a long-pending one is confirmed with the rail first, one in doubt on the paybill statement.',
    args: {
      checkoutRequestId: t.arg.string({
        required: true,
        description: 'The checkout request id, or the payment request id (UUID)',
      }),
    },
    resolve: (_r, args, ctx) => paymentService.status(ctx, args.checkoutRequestId),
  }),
  receipts: t.prismaConnection({
    ...KEEPS_REACH,
    type: 'Receipt',
    cursor: 'id',
    authScopes: { read: true },
    description: 'Receipts the caller may see, newest first.',
    args: {
      clientNo: t.arg.string({ description: "Only this client's receipts (client number)." }),
      policyNo: t.arg.string({ description: 'Only receipts for this policy (policy number).' }),
    },
    resolve: (query, _r, args, ctx) => paymentService.receipts(ctx, args, query),
  }),
  receipt: t.prismaField({
    ...KEEPS_REACH,
    type: 'Receipt',
    authScopes: { read: true },
    description: 'A receipt by number; not_found when missing or not visible.',
    args: { receiptNo: t.arg.string({ description: 'The receipt number.', required: true }) },
    resolve: (query, _r, args, ctx) => paymentService.receipt(ctx, args.receiptNo, query),
  }),
  clientBalance: t.field({
    type: ClientBalanceRef,
    authScopes: { read: true },
    description: 'What a client owes (open debit notes) and their credit balance.',
    args: { clientNo: t.arg.string({ description: 'The client number.', required: true }) },
    resolve: (_r, args, ctx) => paymentService.balance(ctx, args.clientNo),
  }),
}));

interface LiveEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: Date;
}
const liveFields = (name: string, description: string) =>
  builder.objectRef<LiveEvent>(name).implement({
    description,
    fields: (t) => ({
      eventId: t.exposeID('id', { description: 'Event UUID (the webhook Service-Delivery id)' }),
      createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was recorded.' }),
      data: t.field({ type: 'JSON', description: 'The event data, as in the catalogue', resolve: (e) => e.data }),
      policyNo: t.string({
        nullable: true,
        description: 'The policy number (data.policy_no); null when the event names no policy.',
        resolve: (e) => (e.data.policy_no as string | null) ?? null,
      }),
      clientNo: t.string({
        nullable: true,
        description: 'The client number (data.client_no); null when the event names no client.',
        resolve: (e) => (e.data.client_no as string | null) ?? null,
      }),
      receiptNo: t.string({
        nullable: true,
        description: 'The receipt number (data.receipt_no); null when the event names no receipt.',
        resolve: (e) => (e.data.receipt_no as string | null) ?? null,
      }),
    }),
  });
const PaymentReceivedRef = liveFields(
  'PaymentReceivedEvent',
  'A receipt raised (event payment.received), as delivered to webhooks.',
);
const PolicyActivatedRef = liveFields(
  'PolicyActivatedEvent',
  'A policy that became active: its first instalment paid in full (event policy.activated), as delivered to webhooks.',
);

/**
 * One event name from the outbox bus (LISTEN/NOTIFY, so any process's commits arrive), loaded in the subscriber's
 * tenant and kept only when the subscriber may see its policy (or, without one, its client).
 */
function liveEvents(eventName: string) {
  return (_root: unknown, _args: unknown, ctx: import('../../context.ts').Context) => {
    const p = ctx.principal!;
    const source = ctx.app.events.subscribe<{ id: string; name: string }>(EVENTS_TOPIC, p.tenant.id);
    return keepEvents(source, async (m) =>
      m.name === eventName ? ((await eventService.visibleEvent(ctx, m.id)) ?? undefined) : undefined,
    );
  };
}

builder.subscriptionFields((t) => ({
  paymentReceived: t.field({
    type: PaymentReceivedRef,
    authScopes: { read: true },
    description: 'Receipts as they are raised (payment.received), limited to records the caller may see.',
    subscribe: liveEvents('payment.received') as never,
    resolve: (e) => e as LiveEvent,
  }),
  policyActivated: t.field({
    type: PolicyActivatedRef,
    authScopes: { read: true },
    description: 'Policies as they become active (policy.activated), limited to records the caller may see.',
    subscribe: liveEvents('policy.activated') as never,
    resolve: (e) => e as LiveEvent,
  }),
}));
