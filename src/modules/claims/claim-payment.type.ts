import { builder } from '../../graphql/builder.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { oneClaim } from '../access/claim.visibility.ts';
import { claimPaymentService } from './claim-payment.service.ts';
import type { ClaimPaymentStatus } from './settlement/payment-state.ts';
import './claim-payment.mutations.ts';

const ClaimPaymentStatusEnum = builder.enumType('ClaimPaymentStatus', {
  description:
    'pending (recorded, amount committed) → sending (the rail is being called) → sent (the rail accepted it) → paid | failed, ' +
    "each only once the rail's status query confirmed it. A bank transfer is recorded paid.",
  values: {
    pending: {
      description: 'Recorded and the amount committed; not yet handed to the rail (or released for a retry).',
    },
    sending: { description: 'The B2C rail is being called.' },
    sent: { description: 'The rail accepted the request (conversationId recorded); its result is awaited.' },
    paid: {
      description: 'Final: the rail confirmed the payout (transactionId), or a bank transfer was recorded.',
    },
    failed: {
      description:
        'Final: the rail refused it or confirmed a failure (resultCode, resultDesc); the commitment is released.',
    },
  } satisfies Record<ClaimPaymentStatus, { description: string }>,
});

builder.prismaObject('ClaimPayment', {
  ...oneClaim,
  description: 'Money out on a claim: an M-Pesa B2C payout or a recorded bank transfer.',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The payment id (REST payment uuid).' }),
    method: t.exposeString('method', { description: 'mpesa_b2c or bank_transfer' }),
    status: t.field({
      type: ClaimPaymentStatusEnum,
      description: 'Where the payment stands: pending, sending, sent, then paid or failed.',
      resolve: (p) => p.status as ClaimPaymentStatus,
    }),
    payeeType: t.exposeString('payeeType', { description: 'claimant, garage or other' }),
    payeeName: t.exposeString('payeeName', { description: 'Who is paid, as given (the claimant, the garage …).' }),
    phone: t.exposeString('phone', { nullable: true, description: 'The receiving phone (mpesa_b2c), 2547XXXXXXXX' }),
    bankName: t.exposeString('bankName', {
      nullable: true,
      description: 'bank_transfer: the bank; null for mpesa_b2c.',
    }),
    bankAccount: t.exposeString('bankAccount', {
      nullable: true,
      description: 'bank_transfer: the account paid into; null for mpesa_b2c.',
    }),
    amount: t.field({ type: MoneyRef, description: 'The amount paid out.', resolve: (p) => money(p.amountMinor)! }),
    amountMinor: t.field({
      type: 'Cents',
      description: 'The same amount in cents (as amount.amountMinor).',
      resolve: (p) => p.amountMinor,
    }),
    reference: t.exposeString('reference', {
      description: "Our OriginatorConversationID (mpesa_b2c) or the bank transfer's reference",
    }),
    conversationId: t.exposeString('conversationId', { nullable: true, description: "The rail's ConversationID" }),
    transactionId: t.exposeString('transactionId', { nullable: true, description: 'The M-Pesa receipt once paid' }),
    resultCode: t.exposeInt('resultCode', {
      nullable: true,
      description: 'Daraja ResultCode the rail confirmed: 0 paid, 1 insufficient balance, 2001, 2040, 8006 …',
    }),
    resultDesc: t.exposeString('resultDesc', {
      nullable: true,
      description:
        "The rail's ResultDesc (or why the call was refused), at most 500 characters; null for a bank transfer or while awaited.",
    }),
    note: t.exposeString('note', { nullable: true, description: 'Free text given with the payment; null when none.' }),
    requestedAt: t.expose('requestedAt', {
      type: 'DateTime',
      description: 'When the payment was recorded (payClaim).',
    }),
    sentAt: t.expose('sentAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last handed to the B2C rail; null for a bank transfer or before sending.',
    }),
    paidAt: t.expose('paidAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was confirmed paid; null otherwise.',
    }),
    failedAt: t.expose('failedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it failed; null otherwise.',
    }),
  }),
});

builder.prismaObject('ClaimReserveMovement', {
  ...oneClaim,
  description:
    "One line of a claim's reserve ledger: initial, adjustment, approval, payment (a payout consumes the reserve), release.",
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'initial, adjustment, approval, payment or release.' }),
    amount: t.field({ type: MoneyRef, description: 'Signed change', resolve: (m) => money(m.amountMinor)! }),
    amountMinor: t.field({
      description: 'The same signed change in cents.',
      type: 'Cents',
      resolve: (m) => m.amountMinor,
    }),
    balanceAfter: t.field({
      description: 'The reserve after this line.',
      type: MoneyRef,
      resolve: (m) => money(m.balanceAfterMinor)!,
    }),
    reason: t.exposeString('reason', { description: 'Why, in words.' }),
    actorUserId: t.exposeInt('actorUserId', {
      description: 'The user who made the movement (databaseId); null for a system movement.',
      nullable: true,
    }),
    at: t.expose('at', { description: 'When.', type: 'DateTime' }),
  }),
});

builder.prismaObjectFields('Claim', (t) => ({
  payments: t.relation('payments', {
    ...KEEPS_REACH,
    description: 'Payouts and recorded transfers, oldest first',
    query: { orderBy: { id: 'asc' } },
  }),
  reserveMovements: t.relation('reserves', {
    ...KEEPS_REACH,
    description: 'The reserve ledger, in order',
    query: { orderBy: { id: 'asc' } },
  }),
  committed: t.field({
    type: MoneyRef,
    description: 'Instructed payouts the rail has not yet confirmed (what a new payment may not take)',
    select: { committedMinor: true },
    resolve: (c) => money(c.committedMinor)!,
  }),
}));

const READ = { $any: { read: true, crm: true } } as const;

builder.queryFields((t) => ({
  claimPayments: t.prismaField({
    ...KEEPS_REACH,
    type: ['ClaimPayment'],
    authScopes: READ,
    description: "A claim's payments, oldest first; not_found when the claim is missing or not visible.",
    args: { claimId: t.arg.string({ required: true, description: 'The claim uuid' }) },
    resolve: (query, _r, args, ctx) => claimPaymentService.list(ctx, args.claimId, query),
  }),
  claimPayment: t.prismaField({
    ...KEEPS_REACH,
    type: 'ClaimPayment',
    authScopes: READ,
    description: 'One payment of a claim; not_found when either is missing or not visible.',
    args: {
      claimId: t.arg.string({ required: true, description: 'The claim uuid' }),
      uuid: t.arg.string({ required: true, description: 'The payment uuid' }),
    },
    resolve: (query, _r, args, ctx) => claimPaymentService.get(ctx, args.claimId, args.uuid, query),
  }),
}));
