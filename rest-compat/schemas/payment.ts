import { z } from 'zod';
import { normalisePhone } from '../../src/lib/identifiers.ts';
import { jsonSchemaOf, type PathItemWithZod } from './json-schema.ts';
import { arr, dataOf, date, int, money, nullable, obj, str, timestamp, describe, oneOf } from './builders.ts';

const moneyObj = obj(money('amount'));

export const paymentSchemas = {
  PaymentRequest: obj({
    id: str('Payment request id (UUID)'),
    merchant_request_id: nullable(str('Null while `sending`')),
    checkout_request_id: nullable(str('Null while `sending`: follow the request by its id')),
    status: oneOf(
      ['sending', 'pending', 'succeeded', 'failed'],
      "sending: recorded, the rail's acknowledgement not yet (after a fault the paybill statement settles it); pending: on the phone",
    ),
    phone: str('2547XXXXXXXX'),
    ...money('amount'),
    account: str(),
    purpose: oneOf(['premium', 'ipf_repayment']),
    result_code: nullable(
      int('Daraja ResultCode: 0 success, 1 insufficient funds, 1032 cancelled, 1037 timeout, 2001 wrong PIN, …'),
    ),
    result_desc: nullable(str()),
    mpesa_receipt_number: nullable(str()),
    receipt_no: nullable(str('Our receipt once succeeded')),
    resolved_via: nullable(
      oneOf(
        ['callback', 'query', 'statement', 'push'],
        "How the rail's result became known: a callback confirmed by the status query, the query, the paybill statement, or the push itself (refused)",
      ),
    ),
    resolved_at: nullable(timestamp()),
    created_at: timestamp(),
  }),
  Receipt: obj({
    receipt_no: str('RCT-YYYY-NNNNNN, sequential per organisation'),
    ...money('amount'),
    unallocated: moneyObj,
    currency: str(),
    method: str(),
    transaction_ref: str('M-Pesa receipt number'),
    phone: str(),
    account: str(),
    purpose: str(),
    client_no: nullable(str()),
    policy_no: nullable(str()),
    paid_at: timestamp(),
    created_at: timestamp(),
    allocations: arr(obj({ debit_note_no: str(), ...money('amount') })),
  }),
};

/** The domain's own words for a phone it cannot read as a Kenyan mobile (src/modules/payments/stk/initiate.ts). */
export const KENYAN_MOBILE_MESSAGE = 'a Kenyan mobile number (07…, 01…, +254…)';
/** A Kenyan mobile in any format the domain reads (normalisePhone); else its words. */
export const kenyanMobile = (description: string) =>
  z
    .string()
    .refine((v) => normalisePhone(v) !== null, KENYAN_MOBILE_MESSAGE)
    .describe(description);

/** Daraja's ceiling for one STK push, written out (the facade imports no module): stk/initiate.ts STK_MAX_AMOUNT. */
const STK_MAX_AMOUNT = 250_000;
const STK_AMOUNT_MESSAGE = `whole shillings from 1 to ${STK_MAX_AMOUNT.toLocaleString('en-KE')}`;

export const stkPushBody = obj(
  {
    phone: kenyanMobile('Kenyan mobile, any format (07…, 01…, +254…, 254…)'),
    amount: z
      .int()
      .min(1, STK_AMOUNT_MESSAGE)
      .max(STK_MAX_AMOUNT, STK_AMOUNT_MESSAGE)
      .describe('Whole shillings, 1–250,000'),
    account: z
      .string()
      .refine((v) => v.trim() !== '', 'a policy number, debit note number or premium-finance loan reference')
      .describe('Policy number, debit note number, or premium-finance loan reference (any case)'),
    purpose: describe(nullable(oneOf(['premium', 'ipf_repayment'])), 'premium when absent or null'),
  },
  ['phone', 'amount', 'account'],
);

export const stkPushResponse = dataOf(
  obj({
    id: str('Payment request id'),
    merchant_request_id: nullable(str('Null where checkout_request_id is')),
    checkout_request_id: nullable(
      str(
        "The rail's id for the prompt. Null only on a request the rail's acknowledgement never reached us for (its " +
          'first attempt cut short after the intent committed): such a request is never answered while in doubt ' +
          '(503), and once the paybill statement or the rail has settled it a replay answers `succeeded` or `failed` ' +
          "with these ids null unless the rail's callback was matched to it (docs/payments.md)",
      ),
    ),
    response_code: nullable(str('"0" when accepted; null where checkout_request_id is')),
    response_description: nullable(str()),
    customer_message: nullable(str()),
    status: str('pending; on a replay, whatever the request has become (sending, pending, succeeded, failed)'),
    phone: str(),
    ...money('amount'),
    account: str(),
    purpose: str(),
    links: obj({ status: str() }),
  }),
);

export const callbackTokenResponse = dataOf(
  obj({
    shortcode: str('The paybill'),
    generation: int('Which token new prompts carry'),
    rotated_at: nullable(timestamp()),
    previous_valid_until: describe(
      nullable(timestamp()),
      'Callbacks with the previous token are taken until then (ISO 8601 with offset)',
    ),
  }),
);

export const clientBalanceResponse = dataOf(
  obj({
    client_no: str(),
    outstanding: moneyObj,
    credit: moneyObj,
    debit_notes: arr(
      obj({
        number: str(),
        instalment_no: int(),
        due_on: date(),
        ...money('amount'),
        ...money('paid'),
        ...money('outstanding'),
      }),
    ),
  }),
);

/** POST /payment/callback/mpesa/{callback_token}: the rail's STK callback (openapi.ts adds its problem answers). */
export const stkCallbackPaths: Record<string, PathItemWithZod> = {
  '/payment/callback/mpesa/{callback_token}': {
    post: {
      operationId: 'mpesaCallback',
      tags: ['Payments'],
      summary: "The mobile-money rail's STK callback (Daraja shape); called by the rail, not by integrators",
      description:
        "No bearer token: the organisation's random callback token in the path authenticates the rail (stored hashed, compared " +
        'in constant time; unknown → 404 and nothing recorded). The raw body is recorded before it is acted on; duplicate ' +
        'callbacks (same CheckoutRequestID or MpesaReceiptNumber) change nothing. Always answers {ResultCode: 0, ResultDesc: "Accepted"}.',
      security: [],
      parameters: [{ name: 'callback_token', in: 'path', required: true, schema: jsonSchemaOf(str()) }],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: jsonSchemaOf(obj({ Body: obj({ stkCallback: { type: 'object' } }) })) },
        },
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
  },
};
