import { z } from 'zod';
import { documentAs, jsonSchemaOf, type PathItemWithZod } from './json-schema.ts';
import { onText, whole } from './inputs.ts';
import { arr, bool, int, nullable, obj, str, timestamp, oneOf } from './builders.ts';

/**
 * Values of the SMS module's states, written out because the facade imports no module
 * (src/modules/sms/recipient-state.ts, sender-ids.ts).
 */
export const SMS_VALUES = {
  recipientStatuses: ['queued', 'sending', 'sent', 'delivered', 'failed'],
  senderStatuses: ['pending', 'registered', 'rejected'],
  /** src/modules/sms/gateway/report.ts ReportOutcome. */
  reportOutcomes: ['delivered', 'failed', 'pending', 'unknown', 'already_final', 'malformed'],
} as const;

/**
 * The request bodies, as src/modules/sms reads them (message/send.ts, balance.ts, sender-ids.ts, templates.ts): the
 * same bounds and words; a number the gateway cannot reach is the service's business (recorded as failed).
 */
const toNumber = z.string().max(64, onText);
const toList = z
  .array(toNumber)
  .min(1, 'at least one number')
  .max(1000)
  .describe('Kenyan mobile numbers (1–1000), any format');
export const SmsSendInput = obj(
  {
    to: documentAs(
      z.preprocess((v) => (typeof v === 'string' ? [v] : v), toList),
      () => ({
        anyOf: [jsonSchemaOf(toNumber), jsonSchemaOf(toList)],
        description: 'One Kenyan mobile number or a list (1–1000), any format',
      }),
    ),
    message: z.string().max(2000, onText).nullish().describe('The text; or `template` with `variables`'),
    template: z.string().max(40, onText).nullish().describe('A template code'),
    variables: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .nullish()
      .describe('Values for the template’s {{placeholders}}; {{org}} defaults to the organisation’s name'),
    sender_id: z
      .string()
      .max(11, onText)
      .nullish()
      .describe('A registered sender ID; default the organisation’s default'),
  },
  ['to'],
);
export const SmsTopUpInput = obj({
  units: whole(z.int().min(1).max(10_000_000)).describe('1–10,000,000'),
  reference: z
    .string()
    .trim()
    .min(1, onText)
    .max(100, onText)
    .describe('The provider’s invoice or payment reference (1–100 characters)'),
});
export const SmsSenderIdInput = obj({
  sender_id: z
    .string()
    .trim()
    .regex(/^[A-Za-z][A-Za-z0-9]{0,10}$/, 'alphanumeric, 1 to 11 characters, starting with a letter')
    .describe('Alphanumeric, 1–11 characters, starting with a letter'),
});
export const SmsSenderIdPatch = obj(
  {
    status: oneOf(SMS_VALUES.senderStatuses, 'The networks’ answer: registered or rejected (or pending)').nullish(),
    is_default: bool('Registered sender IDs only').nullish(),
  },
  [],
);
export const SmsTemplateInput = obj(
  {
    code: z
      .string()
      .trim()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower case letters, digits and _ (at most 40), starting with a letter')
      .describe('lower_case'),
    body: z.string().trim().min(1, onText).max(918, onText).describe('With {{placeholders}}; 1–918 characters'),
    active: bool('Whether it can be sent; omitted: true').nullish(),
  },
  ['code', 'body'],
);

const message = {
  id: int(),
  uuid: str(),
  sender_id: str(),
  message: str('The text sent, except that a one-time code in it is shown masked (******): only the handset reads it'),
  encoding: oneOf(['gsm7', 'ucs2']),
  segments: int('GSM-7: 160 alone / 153 per part; UCS-2: 70 / 67'),
  purpose: str('api, otp, receipt, policy_activated, renewal_due …'),
  template: nullable(str()),
  recipient_count: int(),
  units_reserved: int('segments × recipients with a valid number'),
  units_released: int('given back for recipients the gateway refused for good'),
  units_charged: int('reserved less released'),
  created_at: timestamp(),
};
const recipient = obj({
  id: int(),
  phone: str(),
  status: oneOf(SMS_VALUES.recipientStatuses),
  status_code: nullable(int('Gateway code: 101 sent, 403 invalid number, 406 blacklisted, 500/501 transient')),
  status_text: nullable(str()),
  gateway_message_id: nullable(str()),
  attempts: int(),
  units: int(),
  released: bool(),
  next_attempt_at: nullable(timestamp()),
  sent_at: nullable(timestamp()),
  delivered_at: nullable(timestamp()),
  failed_at: nullable(timestamp()),
});

export const smsSchemas = {
  SmsMessage: obj(message),
  SmsMessageRecord: obj({ ...message, recipients: arr(recipient) }),
  SmsSendInput,
  SmsBalance: obj(
    {
      balance_units: int(),
      ledger: arr(
        obj({
          id: int(),
          kind: oneOf(['topup', 'reserve', 'release']),
          units: int('Signed change'),
          balance_after: int(),
          message_id: nullable(int()),
          reference: nullable(str()),
          reason: nullable(str()),
          at: timestamp(),
        }),
      ),
    },
    ['balance_units'],
  ),
  SmsTopUpInput,
  SmsSenderId: obj({
    id: int(),
    sender_id: str(),
    status: oneOf(SMS_VALUES.senderStatuses),
    is_default: bool(),
    created_at: timestamp(),
  }),
  SmsSenderIdInput,
  SmsSenderIdPatch,
  SimulatorHandsetMessage: obj({
    gateway_message_id: str(),
    sender_id: str(),
    phone: str('2547XXXXXXXX'),
    message: str('The text as the handset shows it, one-time codes in full'),
    received_at: timestamp(),
    delivery_status: nullable(str('Success or Failed; null before the handset answered')),
  }),
  SmsTemplate: obj({ id: int(), code: str(), body: str(), active: bool(), updated_at: timestamp() }),
  SmsTemplateInput,
};

/** The gateway's delivery report (Africa's Talking shape), as JSON (the simulator) or a form (Africa's Talking). */
const deliveryReport = obj(
  {
    id: str("The gateway's message id (its messageId at send)"),
    status: str('Success, Failed or Rejected: a hint only'),
    phoneNumber: str(),
    networkCode: str(),
    failureReason: str(),
  },
  ['id'],
);

/**
 * POST /sms/delivery-report/{callback_token}: the SMS gateway's delivery reports, served outside the route table
 * (src/http/sms-delivery-report.ts); openapi.ts adds its problem answers, as for the rails' callbacks.
 */
export const smsReportPaths: Record<string, PathItemWithZod> = {
  '/sms/delivery-report/{callback_token}': {
    post: {
      operationId: 'smsDeliveryReport',
      tags: ['SMS'],
      summary: "The SMS gateway's delivery report; called by the gateway, not by integrators",
      description:
        "No bearer token: the organisation's M-Pesa callback token in the path authenticates the gateway, the same " +
        "gate as the rails' callbacks (unknown token, or a source outside MPESA_CALLBACK_ALLOWED_IPS → 404, nothing " +
        'read). A report is a hint, never proof: it only names a message, and the recipient moves sent → delivered | ' +
        "failed when the gateway's own status query says so; a report for a message the organisation never sent " +
        'changes nothing. Answers 200 whatever the outcome (an unreadable body included), so the gateway does not ' +
        'retry it.',
      security: [],
      parameters: [{ name: 'callback_token', in: 'path', required: true, schema: jsonSchemaOf(str()) }],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: deliveryReport },
          'application/x-www-form-urlencoded': { schema: deliveryReport },
        },
      },
      responses: {
        '200': {
          description: 'Accepted',
          content: {
            'application/json': {
              schema: obj({ status: oneOf(['accepted']), outcome: oneOf(SMS_VALUES.reportOutcomes) }),
            },
          },
        },
      },
    },
  },
};
