import { jsonSchemaOf, type PathItemWithZod } from './json-schema.ts';
import { arr, bool, int, nullable, obj, str, timestamp, oneOf, anyOf } from './builders.ts';

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
  SmsSendInput: obj(
    {
      to: anyOf([str(), arr(str())], 'One Kenyan mobile number or a list (1–1000), any format'),
      message: str('The text; or `template` with `variables`'),
      template: str('A template code'),
      variables: {
        type: 'object',
        description: 'Values for the template’s {{placeholders}}; {{org}} defaults to the organisation’s name',
      },
      sender_id: str('A registered sender ID; default the organisation’s default'),
    },
    ['to'],
  ),
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
  SmsTopUpInput: obj({ units: int('1–10,000,000'), reference: str('The provider’s invoice or payment reference') }),
  SmsSenderId: obj({
    id: int(),
    sender_id: str(),
    status: oneOf(SMS_VALUES.senderStatuses),
    is_default: bool(),
    created_at: timestamp(),
  }),
  SmsSenderIdInput: obj({ sender_id: str('Alphanumeric, 1–11 characters, starting with a letter') }),
  SmsSenderIdPatch: obj(
    { status: oneOf(SMS_VALUES.senderStatuses), is_default: bool('Registered sender IDs only') },
    [],
  ),
  SimulatorHandsetMessage: obj({
    gateway_message_id: str(),
    sender_id: str(),
    phone: str('2547XXXXXXXX'),
    message: str('The text as the handset shows it, one-time codes in full'),
    received_at: timestamp(),
    delivery_status: nullable(str('Success or Failed; null before the handset answered')),
  }),
  SmsTemplate: obj({ id: int(), code: str(), body: str(), active: bool(), updated_at: timestamp() }),
  SmsTemplateInput: obj({ code: str('lower_case'), body: str('With {{placeholders}}'), active: bool() }, [
    'code',
    'body',
  ]),
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
