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
  description: 'Where one recipient of a message stands: queued → sending → sent → delivered | failed.',
  values: {
    queued: { description: 'Waiting to be handed to the gateway (or for a retry after a transient failure).' },
    sending: { description: 'Being handed to the gateway now.' },
    sent: { description: 'The gateway accepted it (code 101); no delivery report yet.' },
    delivered: { description: 'The network reported it delivered to the handset.' },
    failed: {
      description: 'Given up: an invalid or blacklisted number, retries exhausted or a failed delivery report.',
    },
  } as const,
});

builder.prismaObject('SmsRecipient', {
  ...staffRule,
  description: 'One recipient of a message: queued → sending → sent → delivered | failed, with the gateway’s answer.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the recipient line (an integer).' }),
    phone: t.exposeString('phone', { description: 'Normalised 2547XXXXXXXX, or the text given when it was not one' }),
    status: t.field({
      description: 'Where this recipient stands.',
      type: SmsRecipientStatusEnum,
      select: { status: true },
      resolve: (r) => r.status as RecipientStatus,
    }),
    statusCode: t.exposeInt('statusCode', {
      nullable: true,
      description: 'The gateway’s code: 101 sent, 403 invalid number, 406 blacklisted, 500/501 transient',
    }),
    statusText: t.exposeString('statusText', {
      description: 'The gateway’s words for its code (Success, InvalidPhoneNumber …); null before the first answer.',
      nullable: true,
    }),
    gatewayMessageId: t.exposeString('gatewayMessageId', {
      description: 'The gateway’s id of the message to this number (its delivery reports name it); null until sent.',
      nullable: true,
    }),
    attempts: t.exposeInt('attempts', { description: 'How many times it was handed to the gateway.' }),
    units: t.exposeInt('units', { description: 'Units this recipient costs (its segments); 0 for an invalid number' }),
    released: t.exposeBoolean('released', { description: 'Its units went back to the balance (never sent)' }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      description: 'When it is next handed to the gateway (queued); null otherwise.',
      type: 'DateTime',
      nullable: true,
    }),
    sentAt: t.expose('sentAt', {
      description: 'When the gateway accepted it; null until then.',
      type: 'DateTime',
      nullable: true,
    }),
    deliveredAt: t.expose('deliveredAt', {
      description: 'When the network reported it delivered; null until then.',
      type: 'DateTime',
      nullable: true,
    }),
    failedAt: t.expose('failedAt', {
      description: 'When it failed for good; null unless failed.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

builder.prismaNode('SmsMessage', {
  description:
    'One SMS of the organisation to one or more recipients (sent through the API or by the service: receipts, one-time codes, notices), with what it cost.',
  ...nodeAccess<unknown>({ scopes: SMS_SCOPES, staffOnly: true }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the message (an integer).' }),
    uuid: t.exposeString('uuid', { description: 'The message id REST paths and smsMessage(uuid:) use.' }),
    senderId: t.exposeString('senderId', { description: 'The sender ID the message went out under.' }),
    body: t.exposeString('body', {
      description:
        'The text sent, except that a one-time code in it is shown masked (******): only the handset reads it',
    }),
    encoding: t.exposeString('encoding', { description: 'gsm7 or ucs2' }),
    segments: t.exposeInt('segments', {
      description: 'SMS parts per recipient (160 gsm7 or 70 ucs2 characters for one; 153/67 each when split).',
    }),
    purpose: t.exposeString('purpose', { description: 'api, otp, receipt, policy_activated, renewal_due …' }),
    templateCode: t.exposeString('templateCode', {
      description: 'The template the text was made from; null for a free text.',
      nullable: true,
    }),
    recipientCount: t.exposeInt('recipientCount', { description: 'How many recipients the message has.' }),
    unitsReserved: t.exposeInt('unitsReserved', {
      description: 'Units taken from the balance when it was queued (segments × valid recipients).',
    }),
    unitsReleased: t.exposeInt('unitsReleased', {
      description: 'Units given back for recipients it was never sent to.',
    }),
    unitsCharged: t.int({
      description: 'What the message costs: reserved less released',
      select: { unitsReserved: true, unitsReleased: true },
      resolve: (m) => m.unitsReserved - m.unitsReleased,
    }),
    recipients: t.relation('recipients', {
      description: 'Its recipients, in the order given.',
      query: { orderBy: { id: 'asc' } },
    }),
    createdAt: t.expose('createdAt', { description: 'When the message was queued.', type: 'DateTime' }),
  }),
});

builder.prismaObject('SmsLedgerEntry', {
  description: 'One movement of the SMS balance: a top-up, the units a message reserved, or units released back.',
  ...staffRule,
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the ledger line (an integer).' }),
    kind: t.exposeString('kind', { description: 'topup, reserve or release' }),
    units: t.exposeInt('units', { description: 'Signed change' }),
    balanceAfter: t.exposeInt('balanceAfter', { description: 'The balance in units after this movement.' }),
    messageId: t.exposeInt('messageId', {
      description: 'The REST id (databaseId) of the message that reserved or released the units; null for a top-up.',
      nullable: true,
    }),
    reference: t.exposeString('reference', {
      description: 'The SMS provider’s invoice or payment reference of a top-up; null otherwise.',
      nullable: true,
    }),
    reason: t.exposeString('reason', {
      description: 'Why units were released (the number and the gateway’s answer); null otherwise.',
      nullable: true,
    }),
    at: t.expose('at', { description: 'When the movement was recorded.', type: 'DateTime' }),
  }),
});

export const SmsBalanceRef = builder.objectRef<SmsBalanceView>('SmsBalance').implement({
  description: 'The organisation’s SMS balance: one unit per segment per recipient.',
  fields: (t) => ({
    balanceUnits: t.exposeInt('balanceUnits', { description: 'Units left to send with; never negative.' }),
    ledger: t.prismaField({
      type: ['SmsLedgerEntry'],
      description: 'The newest ledger lines first',
      args: { last: t.arg.int({ description: 'How many lines, newest first: 1–200 (default 20).', defaultValue: 20 }) },
      resolve: (_q, b, args, ctx) => smsService.ledger(ctx, b.tenantId, args.last ?? 20),
    }),
  }),
});

builder.prismaObject('SmsSenderId', {
  description: 'A sender ID (the name a handset shows as the sender) the organisation has asked the networks for.',
  ...staffRule,
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the sender ID (an integer).' }),
    senderId: t.exposeString('senderId', { description: 'The sender name: alphanumeric, 1–11 characters.' }),
    status: t.exposeString('status', { description: 'pending, registered or rejected' }),
    isDefault: t.exposeBoolean('isDefault', {
      description: 'True for the one messages go out under when no sender ID is given.',
    }),
    createdAt: t.expose('createdAt', { description: 'When it was asked for.', type: 'DateTime' }),
  }),
});

builder.prismaObject('SmsTemplate', {
  description: 'A message text of the organisation with {{placeholders}}, sent by its code.',
  ...staffRule,
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the template (an integer).' }),
    code: t.exposeString('code', {
      description: 'Its code (lower case letters, digits and _): what sendSms template takes.',
    }),
    body: t.exposeString('body', { description: 'With {{placeholders}}' }),
    active: t.exposeBoolean('active', { description: 'Only active templates can be sent.' }),
    updatedAt: t.expose('updatedAt', { description: 'When it was last saved.', type: 'DateTime' }),
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
