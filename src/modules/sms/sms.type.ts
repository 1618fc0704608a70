import { access, nodeAccess } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import type { SmsBalanceView } from './balance.ts';
import type { RecipientStatus } from './recipient-state.ts';
import { smsService } from './sms.service.ts';

/**
 * The SMS outbox, balance, sender IDs and templates (docs/sms.md "SMS"). Staff only: the outbox holds every client's
 * number and what was said to them, so an agent sees none of it (as with the audit trail), whatever its scopes.
 */
const SMS_SCOPES = ['read', 'crm'] as const;
const staffRule = access<unknown>({ scopes: SMS_SCOPES, staffOnly: true });
const ROOT_SCOPES = { $all: { $any: { read: true, crm: true }, staff: true } } as const;

export const SmsRecipientStatusEnum = builder.enumType('SmsRecipientStatus', {
  values: ['queued', 'sending', 'sent', 'delivered', 'failed'] as const,
});

builder.prismaObject('SmsRecipient', {
  ...staffRule,
  description: 'One recipient of a message: queued → sending → sent → delivered | failed, with the gateway’s answer.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    phone: t.exposeString('phone', { description: 'Normalised 2547XXXXXXXX, or the text given when it was not one' }),
    status: t.field({
      type: SmsRecipientStatusEnum,
      select: { status: true },
      resolve: (r) => r.status as RecipientStatus,
    }),
    statusCode: t.exposeInt('statusCode', {
      nullable: true,
      description: 'The gateway’s code: 101 sent, 403 invalid number, 406 blacklisted, 500/501 transient',
    }),
    statusText: t.exposeString('statusText', { nullable: true }),
    gatewayMessageId: t.exposeString('gatewayMessageId', { nullable: true }),
    attempts: t.exposeInt('attempts'),
    units: t.exposeInt('units', { description: 'Units this recipient costs (its segments); 0 for an invalid number' }),
    released: t.exposeBoolean('released', { description: 'Its units went back to the balance (never sent)' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    failedAt: t.expose('failedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.prismaNode('SmsMessage', {
  ...nodeAccess<unknown>({ scopes: SMS_SCOPES, staffOnly: true }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    senderId: t.exposeString('senderId'),
    body: t.exposeString('body', {
      description:
        'The text sent, except that a one-time code in it is shown masked (******): only the handset reads it',
    }),
    encoding: t.exposeString('encoding', { description: 'gsm7 or ucs2' }),
    segments: t.exposeInt('segments'),
    purpose: t.exposeString('purpose', { description: 'api, otp, receipt, policy_activated, renewal_due …' }),
    templateCode: t.exposeString('templateCode', { nullable: true }),
    recipientCount: t.exposeInt('recipientCount'),
    unitsReserved: t.exposeInt('unitsReserved'),
    unitsReleased: t.exposeInt('unitsReleased'),
    unitsCharged: t.int({
      description: 'What the message costs: reserved less released',
      select: { unitsReserved: true, unitsReleased: true },
      resolve: (m) => m.unitsReserved - m.unitsReleased,
    }),
    recipients: t.relation('recipients', { query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('SmsLedgerEntry', {
  ...staffRule,
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    kind: t.exposeString('kind', { description: 'topup, reserve or release' }),
    units: t.exposeInt('units', { description: 'Signed change' }),
    balanceAfter: t.exposeInt('balanceAfter'),
    messageId: t.exposeInt('messageId', { nullable: true }),
    reference: t.exposeString('reference', { nullable: true }),
    reason: t.exposeString('reason', { nullable: true }),
    at: t.expose('at', { type: 'DateTime' }),
  }),
});

export const SmsBalanceRef = builder.objectRef<SmsBalanceView>('SmsBalance').implement({
  description: 'The organisation’s SMS balance: one unit per segment per recipient.',
  fields: (t) => ({
    balanceUnits: t.exposeInt('balanceUnits'),
    ledger: t.prismaField({
      type: ['SmsLedgerEntry'],
      description: 'The newest ledger lines first',
      args: { last: t.arg.int({ defaultValue: 20 }) },
      resolve: (_q, b, args, ctx) => smsService.ledger(ctx, b.tenantId, args.last ?? 20),
    }),
  }),
});

builder.prismaObject('SmsSenderId', {
  ...staffRule,
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    senderId: t.exposeString('senderId'),
    status: t.exposeString('status', { description: 'pending, registered or rejected' }),
    isDefault: t.exposeBoolean('isDefault'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('SmsTemplate', {
  ...staffRule,
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    code: t.exposeString('code'),
    body: t.exposeString('body', { description: 'With {{placeholders}}' }),
    active: t.exposeBoolean('active'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  smsMessages: t.prismaConnection({
    type: 'SmsMessage',
    cursor: 'id',
    authScopes: ROOT_SCOPES,
    description: 'The outbox, newest first.',
    args: {
      status: t.arg({ type: SmsRecipientStatusEnum, description: 'Messages with a recipient in this state' }),
      purpose: t.arg.string({
        description: 'Only messages sent for this purpose (its template code: otp, phone_changed …).',
      }),
      phone: t.arg.string({ description: 'Messages to this number (any Kenyan format)' }),
      fromDate: t.arg.string({ description: 'Y-m-d (Nairobi), inclusive' }),
      toDate: t.arg.string({ description: 'Y-m-d (Nairobi), inclusive' }),
    },
    resolve: (query, _root, args, ctx) => smsService.list(ctx, args, query),
  }),
  smsMessage: t.prismaField({
    type: 'SmsMessage',
    authScopes: ROOT_SCOPES,
    description: 'A message with its recipients by uuid; not_found when missing.',
    args: { uuid: t.arg.string({ description: 'The message (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => smsService.get(ctx, args.uuid, query),
  }),
  smsBalance: t.field({
    description: "The organisation's SMS units and their ledger.",
    type: SmsBalanceRef,
    authScopes: ROOT_SCOPES,
    resolve: (_root, _args, ctx) => smsService.balance(ctx),
  }),
  smsSenderIds: t.prismaField({
    description: "The organisation's SMS sender ids.",
    type: ['SmsSenderId'],
    authScopes: ROOT_SCOPES,
    resolve: (_q, _root, _args, ctx) => smsService.senderIds(ctx),
  }),
  smsTemplates: t.prismaField({
    description: "The organisation's SMS templates.",
    type: ['SmsTemplate'],
    authScopes: ROOT_SCOPES,
    resolve: (_q, _root, _args, ctx) => smsService.templates(ctx),
  }),
}));
