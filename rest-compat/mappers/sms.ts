import type {
  SendSmsInput,
  SimulatorHandsetMessagesQuery,
  SmsBalanceFieldsFragment,
  SmsMessageFieldsFragment,
  SmsMessageRecordFragment,
  SmsSenderIdFieldsFragment,
  SmsTemplateFieldsFragment,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { SmsSendInput } from '../schemas/sms.ts';

/** GraphQL SmsMessage → the outbox item (no recipients). */
export function smsMessageToRest(m: SmsMessageFieldsFragment) {
  return {
    id: m.databaseId,
    uuid: m.uuid,
    sender_id: m.senderId,
    message: m.body,
    encoding: m.encoding,
    segments: m.segments,
    purpose: m.purpose,
    template: m.templateCode,
    recipient_count: m.recipientCount,
    units_reserved: m.unitsReserved,
    units_released: m.unitsReleased,
    units_charged: m.unitsCharged,
    created_at: m.createdAt,
  };
}

/** GraphQL SmsMessage with its recipients → the record GET /sms/{uuid} and POST /sms answer with. */
export function smsRecordToRest(m: SmsMessageRecordFragment) {
  return {
    ...smsMessageToRest(m),
    recipients: m.recipients.map((r) => ({
      id: r.databaseId,
      phone: r.phone,
      status: r.recipientStatus,
      status_code: r.statusCode,
      status_text: r.statusText,
      gateway_message_id: r.gatewayMessageId,
      attempts: r.attempts,
      units: r.units,
      released: r.released,
      next_attempt_at: r.nextAttemptAt,
      sent_at: r.sentAt,
      delivered_at: r.deliveredAt,
      failed_at: r.failedAt,
    })),
  };
}

/** POST /sms body → SendSmsInput: `to` one number or a list; `sender_id`; `variables` as sent. */
export function sendSmsFromRest(b: z.output<typeof SmsSendInput>): SentInput<SendSmsInput> {
  return {
    to: b.to,
    message: b.message,
    template: b.template,
    variables: b.variables,
    senderId: b.sender_id,
  };
}

/** The balance, with its newest ledger lines when they were asked for. */
export function balanceToRest(b: SmsBalanceFieldsFragment) {
  return {
    balance_units: b.balanceUnits,
    ...(b.ledger
      ? {
          ledger: b.ledger.map((l) => ({
            id: l.databaseId,
            kind: l.kind,
            units: l.units,
            balance_after: l.balanceAfter,
            message_id: l.messageId,
            reference: l.reference,
            reason: l.reason,
            at: l.at,
          })),
        }
      : {}),
  };
}

export function senderIdToRest(s: SmsSenderIdFieldsFragment) {
  return {
    id: s.databaseId,
    sender_id: s.senderId,
    status: s.senderStatus,
    is_default: s.isDefault,
    created_at: s.createdAt,
  };
}

export function templateToRest(t: SmsTemplateFieldsFragment) {
  return { id: t.databaseId, code: t.code, body: t.body, active: t.active, updated_at: t.updatedAt };
}

/** GraphQL SimulatorHandsetMessage → the simulator's handset inspection item. */
export function handsetMessageToRest(m: SimulatorHandsetMessagesQuery['simulatorHandsetMessages'][number]) {
  return {
    gateway_message_id: m.gatewayMessageId,
    sender_id: m.senderId,
    phone: m.phone,
    message: m.body,
    received_at: m.receivedAt,
    delivery_status: m.deliveryStatus,
  };
}
