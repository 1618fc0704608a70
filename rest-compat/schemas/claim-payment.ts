import { z } from 'zod';
import { normalisePhone } from '../../src/lib/identifiers.ts';
import { onText, whole } from './inputs.ts';
import { jsonSchemaOf, type PathItemWithZod } from './json-schema.ts';
import { arr, dataOf, int, money, nullable, obj, ref, shillingsIn, str, timestamp, oneOf } from './builders.ts';

/** The claims module's lists (settlement/pay.ts), written out; test/rest-compat/claim-payment-mapper.test.ts checks them. */
export const PAYMENT_METHODS = ['mpesa_b2c', 'bank_transfer'] as const;
export const PAYEE_TYPES = ['claimant', 'garage', 'other'] as const;

export const claimPaymentSchemas = {
  ClaimPayment: obj({
    uuid: str(),
    method: oneOf(PAYMENT_METHODS),
    status: oneOf(
      ['pending', 'sending', 'sent', 'paid', 'failed'],
      "pending: recorded, its amount committed; sending: the rail is being called; sent: the rail accepted it; paid or failed only once the rail's status query confirmed it (a bank transfer is recorded paid)",
    ),
    payee: obj({
      type: oneOf(PAYEE_TYPES),
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

/** A refusal in the service's words, except for a value left out (`required`, as for any field). */
const inWords = (message: string) => ({
  error: (iss: { input?: unknown }) => (iss.input == null ? undefined : message),
});
const AMOUNT_MESSAGE = 'whole shillings, at least 1 (or final: true to pay what remains)';
/** Text the service requires for a method: trimmed, 1 to `max` characters, else `message`. */
const needs = (v: string | null | undefined, max: number) => {
  const t = (v ?? '').trim();
  return t.length >= 1 && t.length <= max;
};

/**
 * POST /claims/{uuid}/payments, as settlement/pay.ts validates it (in its words): what remains to pay, M-Pesa's
 * KES 10–250,000 and a recorded bank reference need the claim and stay the service's.
 */
export const payClaimBody = z
  .object({
    amount: whole(
      z.int().min(1, AMOUNT_MESSAGE),
      shillingsIn('Whole shillings; omit with final: true. M-Pesa: 10–250,000', 1),
    ).nullish(),
    final: z.boolean().describe('Pay exactly what remains (net payable − paid − instructed), cents included').nullish(),
    method: z.enum(PAYMENT_METHODS, inWords('mpesa_b2c or bank_transfer')),
    payee_type: z.enum(PAYEE_TYPES, inWords('claimant, garage or other')).describe('Default claimant').nullish(),
    payee_name: z
      .string()
      .trim()
      .min(1, { message: 'who is paid: 1–200 characters', ...onText })
      .max(200, { message: 'who is paid: 1–200 characters', ...onText }),
    phone: z.string().describe('mpesa_b2c (required): Kenyan mobile, any format').nullish(),
    bank_name: z.string().describe('bank_transfer (required): 1–100 characters').nullish(),
    bank_account: z.string().describe('bank_transfer (required): 1–50 characters').nullish(),
    bank_reference: z
      .string()
      .describe("bank_transfer (required): the transfer's reference, 1–100 characters (once per organisation)")
      .nullish(),
    note: z
      .string()
      .trim()
      .max(1000, { message: 'at most 1,000 characters', ...onText })
      .nullish(),
  })
  .superRefine((b, c) => {
    const issue = (field: string, message: string) => c.addIssue({ code: 'custom', path: [field], message });
    if (b.amount == null && b.final !== true) issue('amount', AMOUNT_MESSAGE);
    const refuse = (fields: (keyof typeof b)[], why: string) => {
      for (const f of fields) if (b[f] != null) issue(f, why);
    };
    if (b.method === 'mpesa_b2c') {
      if (!normalisePhone((b.phone ?? '').trim())) issue('phone', 'a Kenyan mobile number (07…, 01…, +254…)');
      refuse(['bank_name', 'bank_account', 'bank_reference'], 'only for bank_transfer');
    } else {
      if (!needs(b.bank_name, 100)) issue('bank_name', 'the bank: 1–100 characters');
      if (!needs(b.bank_account, 50)) issue('bank_account', 'the account paid: 1–50 characters');
      if (!needs(b.bank_reference, 100)) issue('bank_reference', "the transfer's reference: 1–100 characters");
      refuse(['phone'], 'only for mpesa_b2c');
    }
  });

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
