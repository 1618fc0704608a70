/**
 * Daraja's B2C (business to customer) payment API, field for field: how claims are paid out to a phone. The service
 * records a payout before it calls `pay`, and believes nothing until `query` confirms it (docs/claims.md "Claim payouts").
 * Refusals reuse RailRefusal (src/ports/mobile-money.ts): the rail answered and nothing was paid.
 */

/** What the payment is, as Daraja names it: claims are BusinessPayment (an unsolicited payment to a customer). */
export type B2cCommandId = 'BusinessPayment' | 'SalaryPayment' | 'PromotionPayment';

/** Daraja's B2C payment request (POST /mpesa/b2c/v3/paymentrequest). */
export interface DarajaB2cRequest {
  /**
   * Our own id for the request, a uuid (unique across the deployment: the rail keys on it for every organisation; see
   * src/ports/rail-reference.ts): a repeat of it is the same request, never a second payment.
   */
  OriginatorConversationID: string;
  /** The API operator set up on the organisation's M-Pesa portal. */
  InitiatorName: string;
  /** The initiator's password RSA-encrypted with Safaricom's public certificate, base64 (the simulator only checks presence). */
  SecurityCredential: string;
  CommandID: B2cCommandId;
  /** Whole KES (Daraja's B2C bounds: 10–250,000). */
  Amount: number;
  /** The organisation's B2C shortcode (the paying account). */
  PartyA: string;
  /** The receiving phone, 2547XXXXXXXX or 2541XXXXXXXX. */
  PartyB: string;
  /** Up to 100 characters shown on the statement. */
  Remarks: string;
  /** Where Daraja posts a Result when the request timed out in its queue. */
  QueueTimeOutURL: string;
  /** Where Daraja posts the Result. */
  ResultURL: string;
  Occasion: string;
}

/** The immediate answer: the request is queued, not paid (ResponseCode "0"). */
export interface DarajaB2cResponse {
  ConversationID: string;
  OriginatorConversationID: string;
  ResponseCode: string;
  ResponseDescription: string;
}

/**
 * One Result parameter. On success Daraja sends TransactionAmount (whole KES), TransactionReceipt,
 * B2CRecipientIsRegisteredCustomer (Y/N), B2CChargesPaidAccountAvailableFunds, ReceiverPartyPublicName
 * ("2547… - Name"), TransactionCompletedDateTime ("dd.MM.yyyy HH:mm:ss", Nairobi), B2CUtilityAccountAvailableFunds,
 * B2CWorkingAccountAvailableFunds.
 */
export interface B2cResultParameter {
  Key: string;
  Value?: string | number;
}

/** The Result Daraja POSTs to the ResultURL (and, with a timeout code, to the QueueTimeOutURL). */
export interface DarajaB2cResult {
  Result: {
    /** 0 a result; 1 a timeout notice. */
    ResultType: number;
    ResultCode: number;
    ResultDesc: string;
    OriginatorConversationID: string;
    ConversationID: string;
    /** The M-Pesa receipt on success; a placeholder (e.g. `NLJ0000000`) on failure. */
    TransactionID: string;
    /** Only on success. */
    ResultParameters?: { ResultParameter: B2cResultParameter[] };
    ReferenceData?: { ReferenceItem: B2cResultParameter | B2cResultParameter[] };
  };
}

/**
 * The rail's answer about one request, by our OriginatorConversationID: a Transaction Status result. Daraja's
 * Transaction Status API (CommandID TransactionStatusQuery) answers asynchronously, to a ResultURL of its own; a
 * production adapter bridges that (it sends the query, waits for that Result with a deadline, and answers here or
 * throws so the sweep asks again). The simulator answers at once. `ResultCode` is absent while the payment is still
 * being processed; an OriginatorConversationID the rail never received is a RailRefusal.
 */
export interface DarajaB2cStatus {
  ResponseCode: string;
  ResponseDescription: string;
  OriginatorConversationID: string;
  ConversationID: string;
  ResultCode?: number;
  ResultDesc?: string;
  TransactionID?: string;
  ResultParameters?: { ResultParameter: B2cResultParameter[] };
}

/**
 * The B2C rail as claims use it. Every call is made outside a database transaction, after the payout is committed
 * as `pending`. `pay` is idempotent by OriginatorConversationID: a repeat answers the first booking and pays nothing
 * again (the simulator does so; against Daraja, which refuses a duplicate id, the adapter turns that refusal into a
 * `query` and answers from it), so a payout whose acknowledgement was lost can simply be sent again.
 */
export interface B2cRail {
  pay(req: DarajaB2cRequest): Promise<DarajaB2cResponse>;
  query(originatorConversationId: string): Promise<DarajaB2cStatus>;
}

/**
 * The B2C result codes we name (Daraja's documentation): the simulator's outcomes and what a payout shows.
 * 0 paid; 1 the organisation's B2C utility account cannot cover it; 2001 the initiator's credentials are wrong;
 * 2040 the receiving number is not a registered M-Pesa customer; 8006 the initiator's security credential is locked;
 * 17 a rule at Safaricom limited the transaction; 1037 (used on the QueueTimeOutURL) the request timed out in the queue.
 */
export const B2C_RESULT_CODES: Record<number, string> = {
  0: 'The service request is processed successfully.',
  1: 'The balance is insufficient for the transaction.',
  17: 'System internal error. Rule limited.',
  1037: 'The request timed out in the queue.',
  2001: 'The initiator information is invalid.',
  2040: "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
  8006: 'The security credential is locked.',
};

/** Daraja's bounds on one B2C payment, whole KES. */
export const B2C_MIN_AMOUNT = 10;
export const B2C_MAX_AMOUNT = 250_000;

/** The "being processed" ResponseCode of a status answer without a result yet. */
export const B2C_PROCESSING = '500.001.1001';

export function resultParameter(
  params: { ResultParameter?: B2cResultParameter[] } | undefined,
  key: string,
): string | number | undefined {
  return params?.ResultParameter?.find((p) => p.Key === key)?.Value;
}
