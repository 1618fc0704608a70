import { nairobiIso } from '../lib/dates.ts';
import type { B2cRail } from './mobile-money-b2c.ts';

/** Daraja's STK push request (Lipa na M-Pesa Online), field for field. */
export interface DarajaStkPushRequest {
  BusinessShortCode: string;
  Password: string;
  Timestamp: string;
  TransactionType: 'CustomerPayBillOnline';
  Amount: number;
  PartyA: string;
  PartyB: string;
  PhoneNumber: string;
  CallBackURL: string;
  AccountReference: string;
  TransactionDesc: string;
}

export interface DarajaStkPushResponse {
  MerchantRequestID: string;
  CheckoutRequestID: string;
  ResponseCode: string;
  ResponseDescription: string;
  CustomerMessage: string;
}

export interface DarajaCallbackItem {
  /** `Amount`, `MpesaReceiptNumber`, `TransactionDate`, `PhoneNumber`, or another the rail adds. */
  Name: string;
  Value?: string | number;
}

export interface DarajaCallback {
  Body: {
    stkCallback: {
      MerchantRequestID: string;
      CheckoutRequestID: string;
      ResultCode: number;
      ResultDesc: string;
      CallbackMetadata?: { Item: DarajaCallbackItem[] };
    };
  };
}

/**
 * Daraja's STK query answer. `ResultCode` is absent while the customer has not answered ("being processed").
 * `CallbackMetadata` is our rail's transaction-status lookup folded in (Daraja proper needs a second call for the
 * receipt number): reconciliation cannot raise a receipt without it.
 */
export interface DarajaQueryResponse {
  ResponseCode: string;
  ResponseDescription: string;
  MerchantRequestID: string;
  CheckoutRequestID: string;
  ResultCode?: number;
  ResultDesc?: string;
  CallbackMetadata?: { Item: DarajaCallbackItem[] };
}

/** Daraja's Pull Transactions query: the paybill's statement between two Nairobi times ("YYYY-MM-DD HH:mm:ss"). */
export interface DarajaPullRequest {
  ShortCode: string;
  StartDate: string;
  EndDate: string;
  OffSetValue: string;
}

/** One statement line of a Pull Transactions answer (Daraja's spelling, amounts in whole shillings as text). */
export interface DarajaPulledTransaction {
  transactionId: string;
  trxDate: string;
  msisdn: number | string;
  sender: string;
  transactiontype: string;
  billreference: string;
  amount: string;
  organizationname: string;
}

export interface DarajaPullResponse {
  ResponseRefID: string;
  ResponseCode: string;
  ResponseMessage: string;
  Response: DarajaPulledTransaction[][];
}

/**
 * A mobile-money rail as the payments module uses it. Every call is made outside a database transaction, after the
 * intent is committed (docs/architecture.md "Rails"); what a callback claims is confirmed with `query` before anything moves;
 * `pullTransactions` is the paybill statement, used to find a paid prompt that nothing recorded (a crash between
 * the push and recording its acknowledgement, a callback lost with the rail's restart).
 */
export interface MobileMoneyRail {
  stkPush(req: DarajaStkPushRequest): Promise<DarajaStkPushResponse>;
  query(checkoutRequestId: string): Promise<DarajaQueryResponse>;
  pullTransactions(req: DarajaPullRequest): Promise<DarajaPullResponse>;
}

/** The rail answered and refused the request (Daraja's 4xx `errorMessage`): nothing was sent to the phone. */
export class RailRefusal extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'RailRefusal';
  }
}

/** The Daraja result codes we name (domain notes). */
export const RESULT_CODES: Record<number, string> = {
  0: 'The service request is processed successfully.',
  1: 'The balance is insufficient for the transaction.',
  1001: 'Unable to lock subscriber, a transaction is already in process for the current subscriber.',
  1019: 'Transaction has expired.',
  1032: 'Request cancelled by user.',
  1037: 'DS timeout user cannot be reached.',
  2001: 'The initiator information is invalid.',
};

/** YYYYMMDDHHmmss on the Nairobi clock (UTC+3, no daylight saving). */
export function darajaTimestamp(now: Date = new Date()): string {
  return nairobiIso(now).slice(0, 19).replace(/[-:T]/g, '');
}

/** "YYYY-MM-DD HH:mm:ss" on the Nairobi clock (Pull Transactions dates). */
export function darajaDateTime(at: Date): string {
  return nairobiIso(at).slice(0, 19).replace('T', ' ');
}

/** Nairobi timestamp YYYYMMDDHHmmss → ISO 8601 with +03:00. */
export function darajaTimestampToIso(ts: string | number): string {
  const s = String(ts);
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(8, 10)}:${s.slice(10, 12)}:${s.slice(12, 14)}+03:00`;
}

export function darajaPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`).toString('base64');
}

export function metadataValue(items: DarajaCallbackItem[] | undefined, name: string): string | number | undefined {
  return items?.find((i) => i.Name === name)?.Value;
}

/**
 * The mobile-money port on AppServices (`app.mobileMoney`): the rail (registered by the job runner, which owns the
 * simulator's queue; a process without jobs has none and leaves prompts to the sweep) and the service's own origin
 * for callback URLs (set by src/app.ts once the server listens, unless PUBLIC_BASE_URL names the public one).
 */
export interface MobileMoneyPort {
  rail?: MobileMoneyRail;
  /** The B2C (business to customer) rail that pays claims out (src/ports/mobile-money-b2c.ts); registered like `rail`. */
  b2c?: B2cRail;
  /** Queues a recorded claim payout for sending (set where pg-boss runs); absent, the payout sweep sends it. */
  sendB2cPayout?: (paymentId: number) => Promise<void>;
  origin?: string;
}
