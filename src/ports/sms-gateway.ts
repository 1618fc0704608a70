/**
 * A Kenyan bulk-SMS gateway, shaped like Africa's Talking's SMS API (POST /version1/messaging): the request, the
 * per-recipient answer and the delivery report, field for field. The service records every recipient before it calls
 * `send`, calls it outside any database transaction, and moves a recipient to delivered or failed only when `query`
 * agrees with a delivery report (docs/sms.md "SMS"). The simulator is jobs/rails/sms-simulator.ts.
 */

/** The send request (Africa's Talking: username, to, message, from; `to` a comma-separated list). */
export interface SmsSendRequest {
  /** The account at the gateway (per organisation). */
  username: string;
  /** One or more +2547XXXXXXXX numbers, comma-separated. */
  to: string;
  message: string;
  /** The registered alphanumeric sender ID. */
  from: string;
  /**
   * Our own id for this attempt (gateways such as Onfon's and Advanta's take one as `clientsmsid`; Africa's Talking
   * has none): a repeat of it is the same request, answered from the first booking and never sent twice. So a send
   * whose answer was lost (a crash, a timeout) is simply sent again with the same id. An adapter for a gateway without
   * such an id would have to treat a lost answer as sent (at-least-once) or look it up in the gateway's outbox.
   */
  clientRef: string;
  /** Where the gateway POSTs delivery reports (configured per account at Africa's Talking; per request here). */
  reportUrl: string;
}

/** Per-recipient status codes (Africa's Talking). */
export const SMS_STATUS = {
  101: 'Success',
  102: 'Queued',
  401: 'RiskHold',
  402: 'InvalidSenderId',
  403: 'InvalidPhoneNumber',
  404: 'UnsupportedNumberType',
  405: 'InsufficientBalance',
  406: 'UserInBlacklist',
  407: 'CouldNotRoute',
  500: 'InternalServerError',
  501: 'GatewayError',
  502: 'RejectedByGateway',
} as const;
export type SmsStatusCode = keyof typeof SMS_STATUS;

/** Accepted for sending: the recipient will get a delivery report. */
export const SMS_ACCEPTED: readonly number[] = [101, 102];
/** Worth another attempt later; every other code is a permanent refusal (the recipient costs nothing). */
export const SMS_TRANSIENT: readonly number[] = [500, 501];

export interface SmsRecipientAnswer {
  number: string;
  /** The status text, e.g. "Success", "InvalidPhoneNumber". */
  status: string;
  statusCode: number;
  /** "None" when the gateway refused the recipient. */
  messageId: string;
  /** e.g. "KES 0.8000", or "0" when refused. */
  cost: string;
}

export interface SmsSendResponse {
  SMSMessageData: { Message: string; Recipients: SmsRecipientAnswer[] };
}

/** The delivery report the gateway POSTs (form-encoded at Africa's Talking; JSON from the simulator). */
export interface SmsDeliveryReport {
  id: string;
  status: 'Success' | 'Failed' | 'Rejected' | 'Sent' | 'Submitted' | 'Buffered';
  phoneNumber: string;
  networkCode?: string;
  failureReason?: string;
  retryCount?: string | number;
}

/** The gateway's own answer about one message: its delivery status, null while no report exists yet. */
export interface SmsDeliveryStatus {
  id: string;
  status: SmsDeliveryReport['status'] | null;
  failureReason?: string | null;
}

/** The gateway as the SMS module uses it; every call is made outside a database transaction. */
export interface SmsGateway {
  send(req: SmsSendRequest): Promise<SmsSendResponse>;
  /**
   * The delivery status of a message the gateway accepted (throws when it does not know the id). Africa's Talking
   * has no per-message status query: an adapter for it answers from the reports it received, checked against the
   * gateway's source addresses and the organisation's token, and says so (docs/sms.md "SMS").
   */
  query(gatewayMessageId: string): Promise<SmsDeliveryStatus>;
  /**
   * A simulator's inspection, never a real gateway's: what one handset received from one account (the request's
   * username), newest first, one-time codes included (docs/sms.md "The simulated gateway"). Absent on a real adapter.
   */
  handset?(account: string, phone: string): Promise<HandsetMessage[]>;
}

/** One message as a simulated handset received it. */
export interface HandsetMessage {
  gatewayMessageId: string;
  senderId: string;
  phone: string;
  body: string;
  receivedAt: Date;
  /** Success or Failed once the handset answered; null before. */
  deliveryStatus: string | null;
}

/** The SMS port on AppServices (registered where pg-boss runs: jobs/sms.worker.ts). */
export interface SmsGatewayPort {
  gateway: SmsGateway;
  /** Queues one recipient for the gateway (the `sms.send` job), optionally not before `startAfter`. */
  queueSend(recipientId: number, startAfter?: Date): Promise<void>;
  /** The delivery-report URL of an organisation (it carries the organisation's callback token). */
  reportUrl(tenantId: number): Promise<string>;
}
