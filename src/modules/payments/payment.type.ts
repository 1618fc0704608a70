import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { ValidationError, DomainRuleError } from '../../lib/problem.ts';
import { EVENTS_TOPIC, eventService } from '../events/event.service.ts';
import { paymentService, receiptVisibility } from './payment.service.ts';
import { access, type Reach } from '../../graphql/access.ts';
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
    phone: t.exposeString('phone'),
    amount: t.field({ type: MoneyRef, resolve: (r) => money(r.amountMinor)! }),
    account: t.exposeString('account'),
    purpose: t.exposeString('purpose'),
    resultCode: t.exposeInt('resultCode', { nullable: true, description: 'Daraja ResultCode once known (0 success)' }),
    resultDesc: t.exposeString('resultDesc', { nullable: true }),
    mpesaReceiptNumber: t.exposeString('mpesaReceiptNo', { nullable: true }),
    receiptNo: t.exposeString('receiptNo', { nullable: true, description: 'Our receipt, once the payment succeeded' }),
    resolvedVia: t.exposeString('resolvedVia', {
      nullable: true,
      description:
        "How the rail's result became known: callback (confirmed by the status query), query, statement, or push (the rail refused it)",
    }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const StkPushAckRef = builder.objectRef<AckShape>('StkPushAcknowledgement').implement({
  description:
    "The push's first answer, fixed once: the rail's acknowledgement (Daraja fields) and the payment request as it was then. A retry " +
    'with the same idempotency key answers exactly the same (follow stkPushStatus for the request now). The Daraja fields are null ' +
    "only for a request settled from the paybill statement before the rail's ids were known (its acknowledgement lost to a fault).",
  fields: (t) => ({
    id: t.id({ description: 'Payment request id (UUID)', resolve: (a) => a.request.id }),
    merchantRequestId: t.string({ nullable: true, resolve: (a) => a.request.merchantRequestId }),
    checkoutRequestId: t.string({ nullable: true, resolve: (a) => a.request.checkoutRequestId }),
    responseCode: t.string({ nullable: true, resolve: (a) => a.request.responseCode }),
    responseDescription: t.string({ nullable: true, resolve: (a) => a.request.responseDesc }),
    customerMessage: t.string({ nullable: true, resolve: (a) => a.request.customerMessage }),
    replayed: t.boolean({
      description: 'True when this answers an earlier request with the same idempotency key (nothing was sent again)',
      resolve: (a) => a.replayed,
    }),
    paymentRequest: t.field({ type: PaymentRequestRef, resolve: (a) => ({ ...a.request, receiptNo: null }) }),
  }),
});

builder.prismaObject('ReceiptAllocation', {
  ...access<{ receiptId: number }>({ scopes: POLICY_SCOPES, reach: { via: receiptReach, id: (a) => a.receiptId } }),
  fields: (t) => ({
    debitNoteNo: t.string({ select: { debitNote: { select: { number: true } } }, resolve: (a) => a.debitNote.number }),
    amount: t.field({ type: MoneyRef, resolve: (a) => money(a.amountMinor)! }),
  }),
});

/** Receipts: as their policy (or, for a receipt on account, their client) for agents. */
builder.prismaObject('Receipt', {
  ...access<{ id: number }>({ scopes: POLICY_SCOPES, reach: { via: receiptReach, id: (r) => r.id } }),
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    receiptNo: t.exposeString('receiptNo'),
    amount: t.field({ type: MoneyRef, resolve: (r) => money(r.amountMinor)! }),
    unallocated: t.field({
      type: MoneyRef,
      description: 'Excess credited to the client',
      resolve: (r) => money(r.unallocatedMinor)!,
    }),
    method: t.exposeString('method'),
    transactionRef: t.exposeString('transactionRef', { description: 'M-Pesa receipt number' }),
    phone: t.exposeString('phone'),
    account: t.exposeString('account'),
    purpose: t.exposeString('purpose'),
    paidAt: t.expose('paidAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    clientNo: t.string({
      nullable: true,
      select: { client: { select: { clientNo: true } } },
      resolve: (r) => r.client?.clientNo ?? null,
    }),
    policyNo: t.string({
      nullable: true,
      select: { policy: { select: { policyNo: true } } },
      resolve: (r) => r.policy?.policyNo ?? null,
    }),
    allocations: t.relation('allocations', { query: { orderBy: { id: 'asc' } } }),
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
  fields: (t) => ({
    number: t.exposeString('number'),
    instalmentNo: t.exposeInt('instalmentNo'),
    dueOn: t.string({ resolve: (d) => fromDbDate(d.dueOn) }),
    amount: t.field({ type: MoneyRef, resolve: (d) => money(d.amountMinor)! }),
    paid: t.field({ type: MoneyRef, resolve: (d) => money(d.paidMinor)! }),
    outstanding: t.field({
      type: MoneyRef,
      description: 'amount − paid − credited',
      resolve: (d) => money(d.amountMinor - d.paidMinor - d.creditedMinor)!,
    }),
  }),
});
const ClientBalanceRef = builder.objectRef<BalanceShape>('ClientBalance').implement({
  fields: (t) => ({
    clientNo: t.exposeString('clientNo'),
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
    openDebitNotes: t.field({ type: [OpenDebitNoteRef], resolve: (b) => b.openDebitNotes }),
  }),
});

const StkPushInput = builder.inputType('StkPushInput', {
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
const liveFields = (name: string) =>
  builder.objectRef<LiveEvent>(name).implement({
    fields: (t) => ({
      eventId: t.exposeID('id', { description: 'Event UUID (the webhook Service-Delivery id)' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      data: t.field({ type: 'JSON', description: 'The event data, as in the catalogue', resolve: (e) => e.data }),
      policyNo: t.string({ nullable: true, resolve: (e) => (e.data.policy_no as string | null) ?? null }),
      clientNo: t.string({ nullable: true, resolve: (e) => (e.data.client_no as string | null) ?? null }),
      receiptNo: t.string({ nullable: true, resolve: (e) => (e.data.receipt_no as string | null) ?? null }),
    }),
  });
const PaymentReceivedRef = liveFields('PaymentReceivedEvent');
const PolicyActivatedRef = liveFields('PolicyActivatedEvent');

/**
 * One event name from the outbox bus (LISTEN/NOTIFY, so any process's commits arrive), loaded in the subscriber's
 * tenant and kept only when the subscriber may see its policy (or, without one, its client).
 */
function liveEvents(eventName: string) {
  return (_root: unknown, _args: unknown, ctx: import('../../context.ts').Context) => {
    const p = ctx.principal!;
    const source = ctx.app.events.subscribe<{ id: string; name: string }>(EVENTS_TOPIC, p.tenant.id);
    return (async function* () {
      for await (const m of source) {
        if (m.name !== eventName) continue;
        const ev = await eventService.visibleEvent(ctx, m.id);
        if (ev) yield ev;
      }
    })();
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
