import {
  CreateSmsSenderIdDocument,
  SaveSmsTemplateDocument,
  SendSmsDocument,
  SmsBalanceDocument,
  SmsMessageDocument,
  SmsMessagesDocument,
  SmsSenderIdsDocument,
  SmsTemplatesDocument,
  TopUpSmsDocument,
  UpdateSmsSenderIdDocument,
} from '../generated/operations.ts';
import {
  balanceToRest,
  sendSmsFromRest,
  senderIdToRest,
  smsMessageToRest,
  smsRecordToRest,
  templateToRest,
} from '../mappers/sms.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, sizeParam, route } from '../route.ts';
import { arr, dataOf, dateInput, int, queryParam, ref, str, oneOf } from '../schemas/builders.ts';
import {
  SMS_VALUES,
  SmsSendInput,
  SmsSenderIdInput,
  SmsSenderIdPatch,
  SmsTemplateInput,
  SmsTopUpInput,
} from '../schemas/sms.ts';
import { bodyObject } from '../schemas/inputs.ts';

const q = queryParam;
const listParams = [
  q('status', oneOf([...SMS_VALUES.recipientStatuses]), 'Messages with a recipient in this state'),
  q('purpose', str(), 'api, otp, receipt, policy_activated, renewal_due …'),
  q('phone', str(), 'Messages to this number (any Kenyan format)'),
  q('from_date', dateInput(), 'Sent on or after this Nairobi day (Y-m-d)'),
  q('to_date', dateInput(), 'Sent on or before this Nairobi day (Y-m-d)'),
  ...pageParams({ pages: false }),
];
const ledgerParam = (query: URLSearchParams) => {
  const n = sizeParam(query.get('ledger'));
  return { ledger: n ?? 20, withLedger: n !== undefined };
};

const common = { tag: 'SMS', serviceOnly: true };
const READ = ['read', 'crm'] as const;
const record = (status: number, description: string) => ({
  status,
  description,
  schema: dataOf(ref('SmsMessageRecord')),
});

/** The SMS outbox, balance, sender IDs and templates (docs/sms.md "SMS"); staff only (agents: 403 actor_forbidden). */
export const smsRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'sendSms',
    method: 'POST',
    path: '/sms',
    summary: 'Send one message to one or many numbers (text, or a template with variables); cost reserved at once',
    description:
      "The one-time-code templates (otp, ipf_sign) are the service's own: naming one is 422 validation_failed on " +
      'template.',
    scopes: ['crm'],
    idempotent: true,
    operation: SendSmsDocument,
    requestBody: bodyObject(ref('SmsSendInput')),
    parseBody: true,
    toVariables: (input) => ({ input: sendSmsFromRest(bodyOf(input, SmsSendInput)) }),
    toResponse: (d) => ({ status: 201, body: { data: smsRecordToRest(d.sendSms) } }),
    response: record(201, 'Recorded; recipients queued for the gateway'),
    errors: ['validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listSms',
    method: 'GET',
    path: '/sms',
    summary: 'The outbox, newest first (cursor pagination)',
    scopes: [...READ],
    idempotent: false,
    operation: SmsMessagesDocument,
    queryParams: listParams,
    toVariables: ({ query }) => ({
      ...pageArgs(query, { pages: false }),
      status: query.get('status') || undefined,
      purpose: query.get('purpose') || undefined,
      phone: query.get('phone') || undefined,
      fromDate: query.get('from_date') || undefined,
      toDate: query.get('to_date') || undefined,
    }),
    toResponse: (d, input) => connectionPage(d.smsMessages, input, smsMessageToRest, { pages: false }),
    response: { status: 200, description: 'A page of messages', schema: pageSchema(ref('SmsMessage')) },
    errors: ['validation_failed', 'actor_forbidden'],
  }),
  // Before /sms/{uuid}: the first row that matches a path answers it.
  route({
    ...common,
    operationId: 'getSmsBalance',
    method: 'GET',
    path: '/sms/balance',
    summary: 'The SMS balance in units; `ledger=N` adds the N newest ledger lines',
    scopes: [...READ],
    idempotent: false,
    operation: SmsBalanceDocument,
    queryParams: [q('ledger', int('1–200 ledger lines, newest first'))],
    toVariables: ({ query }) => ledgerParam(query),
    fieldNames: { last: 'ledger' },
    toResponse: (d) => ({ status: 200, body: { data: balanceToRest(d.smsBalance) } }),
    response: { status: 200, description: 'The balance', schema: dataOf(ref('SmsBalance')) },
    errors: ['actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'topUpSms',
    method: 'POST',
    path: '/sms/top-ups',
    summary: 'Add units to the SMS balance (a ledger line with the reference)',
    scopes: ['admin'],
    idempotent: true,
    operation: TopUpSmsDocument,
    requestBody: bodyObject(ref('SmsTopUpInput')),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, SmsTopUpInput);
      return { input: { units: b.units, reference: b.reference }, ledger: 1, withLedger: true };
    },
    toResponse: (d) => ({ status: 201, body: { data: balanceToRest(d.topUpSms) } }),
    response: { status: 201, description: 'The balance after, with the top-up', schema: dataOf(ref('SmsBalance')) },
    errors: ['validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listSmsSenderIds',
    method: 'GET',
    path: '/sms/sender-ids',
    summary: "The organisation's sender IDs",
    scopes: [...READ],
    idempotent: false,
    operation: SmsSenderIdsDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.smsSenderIds.map(senderIdToRest) } }),
    response: { status: 200, description: 'Sender IDs', schema: dataOf(arr(ref('SmsSenderId'))) },
    errors: ['actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'createSmsSenderId',
    method: 'POST',
    path: '/sms/sender-ids',
    summary: 'Add a sender ID (pending until the networks register it)',
    scopes: ['admin'],
    idempotent: true,
    operation: CreateSmsSenderIdDocument,
    requestBody: bodyObject(ref('SmsSenderIdInput')),
    parseBody: true,
    toVariables: (input) => ({ input: { senderId: bodyOf(input, SmsSenderIdInput).sender_id } }),
    toResponse: (d) => ({ status: 201, body: { data: senderIdToRest(d.createSmsSenderId) } }),
    response: { status: 201, description: 'Created', schema: dataOf(ref('SmsSenderId')) },
    errors: ['validation_failed', 'invalid_state', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'updateSmsSenderId',
    method: 'PATCH',
    path: '/sms/sender-ids/{sender_id}',
    summary: "Record the networks' answer (status) or make a registered sender ID the default",
    scopes: ['admin'],
    idempotent: true,
    operation: UpdateSmsSenderIdDocument,
    requestBody: bodyObject(ref('SmsSenderIdPatch')),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, SmsSenderIdPatch);
      return { input: { senderId: input.params.sender_id, status: b.status, isDefault: b.is_default } };
    },
    toResponse: (d) => ({ status: 200, body: { data: senderIdToRest(d.updateSmsSenderId) } }),
    response: { status: 200, description: 'Updated', schema: dataOf(ref('SmsSenderId')) },
    errors: ['not_found', 'validation_failed', 'invalid_state', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listSmsTemplates',
    method: 'GET',
    path: '/sms/templates',
    summary: "The organisation's message templates",
    scopes: [...READ],
    idempotent: false,
    operation: SmsTemplatesDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.smsTemplates.map(templateToRest) } }),
    response: { status: 200, description: 'Templates', schema: dataOf(arr(ref('SmsTemplate'))) },
    errors: ['actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'saveSmsTemplate',
    method: 'POST',
    path: '/sms/templates',
    summary: 'Create or replace a template by code',
    description:
      "The one-time-code templates (otp, ipf_sign) are the service's own and cannot be saved: 422 validation_failed " +
      'on code.',
    scopes: ['admin'],
    idempotent: true,
    operation: SaveSmsTemplateDocument,
    requestBody: bodyObject(ref('SmsTemplateInput')),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, SmsTemplateInput);
      return { input: { code: b.code, body: b.body, active: b.active } };
    },
    toResponse: (d) => ({ status: 200, body: { data: templateToRest(d.saveSmsTemplate) } }),
    response: { status: 200, description: 'Saved', schema: dataOf(ref('SmsTemplate')) },
    errors: ['validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getSms',
    method: 'GET',
    path: '/sms/{uuid}',
    summary: 'A message with its recipients and their states',
    scopes: [...READ],
    idempotent: false,
    operation: SmsMessageDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: smsRecordToRest(d.smsMessage) } }),
    response: record(200, 'The message'),
    errors: ['not_found', 'actor_forbidden'],
  }),
];
