import { jsonSchemaOf, type PathItemWithZod } from './json-schema.ts';
import { arr, bool, dataOf, int, money, nullable, obj, ref, shillingsIn, str, timestamp, oneOf } from './builders.ts';

export const claimPaymentSchemas = {
  ClaimPayment: obj({
    uuid: str(),
    method: oneOf(['mpesa_b2c', 'bank_transfer']),
    status: oneOf(
      ['pending', 'sending', 'sent', 'paid', 'failed'],
      "pending: recorded, its amount committed; sending: the rail is being called; sent: the rail accepted it; paid or failed only once the rail's status query confirmed it (a bank transfer is recorded paid)",
    ),
    payee: obj({
      type: oneOf(['claimant', 'garage', 'other']),
      name: str(),
      phone: nullable(str('mpesa_b2c: the receiving phone, 2547XXXXXXXX')),
      bank: nullable(obj({ name: nullable(str()), account: nullable(str()) }, ['name', 'account'], 'bank_transfer')),
    }),
    ...money('amount'),
    reference: str("Our OriginatorConversationID (mpesa_b2c) or the bank transfer's reference"),
    transaction_id: nullable(str('The M-Pesa receipt once paid')),
    result: nullable(
      obj(
        {
          code: nullable(
            int(
              'Daraja ResultCode: 0 paid, 1 insufficient balance, 2001 initiator invalid, 2040 not an M-Pesa customer, 8006 credential locked, …',
            ),
          ),
          description: nullable(str()),
        },
        ['code', 'description'],
        "The rail's confirmed result (or its refusal)",
      ),
    ),
    note: nullable(str()),
    requested_at: timestamp(),
    sent_at: nullable(timestamp()),
    paid_at: nullable(timestamp()),
    failed_at: nullable(timestamp()),
  }),
};

export const payClaimBody = obj(
  {
    amount: shillingsIn('Whole shillings; omit with final: true. M-Pesa: 10–250,000', 1),
    final: bool('Pay exactly what remains (net payable − paid − instructed), cents included'),
    method: oneOf(['mpesa_b2c', 'bank_transfer']),
    payee_type: oneOf(['claimant', 'garage', 'other']).default('claimant'),
    payee_name: str(),
    phone: str('mpesa_b2c: Kenyan mobile, any format'),
    bank_name: str('bank_transfer'),
    bank_account: str('bank_transfer'),
    bank_reference: str("bank_transfer: the transfer's reference (once per organisation)"),
    note: str(),
  },
  ['method', 'payee_name'],
);

export const claimPaymentResponse = dataOf(ref('ClaimPayment'));
export const claimPaymentsResponse = dataOf(arr(ref('ClaimPayment')));

/** The B2C rail's Result and queue-timeout endpoints, served outside the route table (src/http/b2c-result.ts). */
function b2cResultPath(kind: 'result' | 'timeout'): PathItemWithZod {
  return {
    post: {
      operationId: kind === 'result' ? 'b2cResult' : 'b2cQueueTimeout',
      tags: ['Claims'],
      summary:
        kind === 'result'
          ? "The B2C rail's Result for a claim payout (Daraja shape); called by the rail, not by integrators"
          : "The B2C rail's queue-timeout notice (Daraja's QueueTimeOutURL); called by the rail, not by integrators",
      description:
        "No bearer token: the organisation's M-Pesa callback token in the path (the STK callback's) authenticates the rail " +
        '(unknown → 404, nothing recorded). What the body claims is recorded in the audit trail, then confirmed with the ' +
        "rail's status query: only the rail's answer is applied. A Result the rail denies, for a payout we do not know, or " +
        'repeating a final one changes nothing. Always answers {ResultCode: 0, ResultDesc: "Accepted"}.',
      security: [],
      parameters: [{ name: 'callback_token', in: 'path', required: true, schema: jsonSchemaOf(str()) }],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchemaOf(obj({ Result: { type: 'object' } })) } },
      },
      responses: {
        '200': {
          description: 'Accepted',
          content: {
            'application/json': { schema: jsonSchemaOf(obj({ ResultCode: { type: 'integer' }, ResultDesc: str() })) },
          },
        },
      },
    },
  };
}

export const b2cResultPaths: Record<string, PathItemWithZod> = {
  '/payment/b2c/result/{callback_token}': b2cResultPath('result'),
  '/payment/b2c/timeout/{callback_token}': b2cResultPath('timeout'),
};
