import { builder } from '../../graphql/builder.ts';
import { InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { smsService } from './sms.service.ts';
import { SmsBalanceRef } from './sms.type.ts';

const SendSmsInput = builder.inputType('SendSmsInput', {
  description: 'An SMS to send: recipients, and either a text or a template with its values.',
  fields: (t) => ({
    to: t.stringList({ required: true, description: 'Kenyan mobile numbers, any format (1–1000)' }),
    message: t.string({ description: 'The text; or `template` with `variables`' }),
    template: t.string({ description: 'A template code of the organisation' }),
    variables: t.field({
      type: 'JSON',
      description: 'Values for the template’s {{placeholders}}; {{org}} defaults to the organisation’s name',
    }),
    senderId: t.string({ description: 'A registered sender ID; default the organisation’s default' }),
  }),
});
const CreateSmsSenderIdInput = builder.inputType('CreateSmsSenderIdInput', {
  description: 'A sender ID to ask the networks for; it starts pending.',
  fields: (t) => ({
    senderId: t.string({ required: true, description: 'Alphanumeric, 1–11 characters, starting with a letter' }),
  }),
});
const UpdateSmsSenderIdInput = builder.inputType('UpdateSmsSenderIdInput', {
  description: 'The networks’ answer on a sender ID, or making it the default; omitted fields stay as they are.',
  fields: (t) => ({
    senderId: t.string({ description: 'The sender ID to change.', required: true }),
    status: t.string({ description: 'The networks’ answer: registered or rejected (or pending)' }),
    isDefault: t.boolean({ description: 'true: the default (registered only)' }),
  }),
});
const TopUpSmsInput = builder.inputType('TopUpSmsInput', {
  description: 'Units bought from the SMS provider, added to the balance.',
  fields: (t) => ({
    units: t.int({ description: 'Units to add (1–10000000).', required: true }),
    reference: t.string({ required: true, description: 'The SMS provider’s invoice or payment reference' }),
  }),
});
const SaveSmsTemplateInput = builder.inputType('SaveSmsTemplateInput', {
  description: 'A template to create, or to replace when its code exists.',
  fields: (t) => ({
    code: t.string({
      description:
        'Lower case letters, digits and _ (at most 40), starting with a letter; the service’s own codes are reserved.',
      required: true,
    }),
    body: t.string({ required: true, description: 'With {{placeholders}}' }),
    active: t.boolean({ description: 'Whether it can be sent; omitted: true.' }),
  }),
});

const errors = (name: string, types: (typeof ValidationError | typeof InvalidStateError)[]) => ({
  types,
  directResult: true as const,
  union: { name: `${name}Result` },
});
// The scope first: a key without it is insufficient_scope before the agent rule is asked.
const SEND = { $all: { crm: true, staff: true } } as const;
const MANAGE = { $all: { admin: true, staff: true } } as const;

builder.mutationFields((t) => ({
  sendSms: t.prismaField({
    type: 'SmsMessage',
    authScopes: SEND,
    errors: errors('SendSms', [ValidationError]),
    description: 'Records a message and reserves its cost (segments × recipients); the gateway sends it after commit.',
    args: { input: t.arg({ description: 'Recipients and text.', type: SendSmsInput, required: true }) },
    resolve: (query, _r, { input }, ctx) => smsService.send(ctx, input, query),
  }),
  createSmsSenderId: t.prismaField({
    type: 'SmsSenderId',
    authScopes: MANAGE,
    errors: errors('CreateSmsSenderId', [ValidationError, InvalidStateError]),
    description: 'A new sender ID, pending until the networks register it.',
    args: { input: t.arg({ description: 'The sender id to register.', type: CreateSmsSenderIdInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => smsService.createSenderId(ctx, input),
  }),
  updateSmsSenderId: t.prismaField({
    type: 'SmsSenderId',
    authScopes: MANAGE,
    errors: errors('UpdateSmsSenderId', [ValidationError, InvalidStateError]),
    description: 'Records the networks’ answer, or makes a registered sender ID the default.',
    args: {
      input: t.arg({ description: 'The sender id and what changes.', type: UpdateSmsSenderIdInput, required: true }),
    },
    resolve: (_q, _r, { input }, ctx) => smsService.updateSenderId(ctx, input),
  }),
  topUpSms: t.field({
    type: SmsBalanceRef,
    authScopes: MANAGE,
    errors: errors('TopUpSms', [ValidationError]),
    description: 'Adds units to the balance (a ledger line with the reference).',
    args: { input: t.arg({ description: 'How many SMS units to add.', type: TopUpSmsInput, required: true }) },
    resolve: (_r, { input }, ctx) => smsService.topUp(ctx, input),
  }),
  saveSmsTemplate: t.prismaField({
    type: 'SmsTemplate',
    authScopes: MANAGE,
    errors: errors('SaveSmsTemplate', [ValidationError]),
    description: 'Creates or replaces a template by code.',
    args: {
      input: t.arg({ description: 'The template code and its text.', type: SaveSmsTemplateInput, required: true }),
    },
    resolve: (_q, _r, { input }, ctx) => smsService.saveTemplate(ctx, input),
  }),
}));
