import { ValidationError } from '../../src/lib/problem.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { moneyObject, moneyPair } from '../mappers/money.ts';
import { asObject, intParam, route, type RestInput, type RestRoute } from '../route.ts';
import { arr, bool, date, dataOf, int, money, nullable, obj, ref, str, timestamp } from '../schemas.ts';

function paymentRequestToRest(r: any) {
  return {
    id: r.id,
    merchant_request_id: r.merchantRequestId,
    checkout_request_id: r.checkoutRequestId,
    status: r.status,
    phone: r.phone,
    ...moneyPair('amount', r.amount),
    account: r.account,
    purpose: r.purpose,
    result_code: r.resultCode ?? null,
    result_desc: r.resultDesc ?? null,
    mpesa_receipt_number: r.mpesaReceiptNumber ?? null,
    receipt_no: r.receiptNo ?? null,
    resolved_via: r.resolvedVia ?? null,
    resolved_at: r.resolvedAt ?? null,
    created_at: r.createdAt,
  };
}

function receiptToRest(r: any) {
  return {
    receipt_no: r.receiptNo,
    ...moneyPair('amount', r.amount),
    unallocated: moneyObject(r.unallocated),
    currency: 'KES',
    method: r.method,
    transaction_ref: r.transactionRef,
    phone: r.phone,
    account: r.account,
    purpose: r.purpose,
    client_no: r.clientNo,
    policy_no: r.policyNo,
    paid_at: r.paidAt,
    created_at: r.createdAt,
    allocations: r.allocations.map((a: any) => ({ debit_note_no: a.debitNoteNo, ...moneyPair('amount', a.amount) })),
  };
}

const moneyObj = obj(money('amount'));
const PaymentRequest = obj({
  id: str('Payment request id (UUID)'),
  merchant_request_id: nullable(str('Null while `sending`')),
  checkout_request_id: nullable(str('Null while `sending`: follow the request by its id')),
  status: {
    type: 'string',
    enum: ['sending', 'pending', 'succeeded', 'failed'],
    description:
      "sending: recorded, the rail's acknowledgement not yet (after a fault the paybill statement settles it); pending: on the phone",
  },
  phone: str('2547XXXXXXXX'),
  ...money('amount'),
  account: str(),
  purpose: { type: 'string', enum: ['premium', 'ipf_repayment'] },
  result_code: nullable(
    int('Daraja ResultCode: 0 success, 1 insufficient funds, 1032 cancelled, 1037 timeout, 2001 wrong PIN, …'),
  ),
  result_desc: nullable(str()),
  mpesa_receipt_number: nullable(str()),
  receipt_no: nullable(str('Our receipt once succeeded')),
  resolved_via: nullable({
    type: 'string',
    enum: ['callback', 'query', 'statement', 'push'],
    description:
      "How the rail's result became known: a callback confirmed by the status query, the query, the paybill statement, or the push itself (refused)",
  }),
  resolved_at: nullable(timestamp()),
  created_at: timestamp(),
});
const Receipt = obj({
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
});

export const paymentSchemas = { PaymentRequest, Receipt };

const common = { serviceOnly: true };

export const paymentRoutes: RestRoute[] = [
  route({
    ...common,
    tag: 'Payments',
    operationId: 'stkPush',
    method: 'POST',
    path: '/payment/stk/push',
    summary: 'Send an M-Pesa STK push prompt for a policy, debit note or premium-finance loan',
    description:
      "Answers 202: the prompt is in flight. The result arrives by the rail's callback, which is only a hint: the service confirms it " +
      "with the rail's status query before anything is receipted. Follow it with GET /payment/stk/{checkout_request_id} (or the " +
      'payment request id). The Idempotency-Key makes the push exactly-once even across a crash: a retry answers the first attempt ' +
      '(header Idempotent-Replayed) and never prompts the phone again; while the first is still calling the rail the retry waits ' +
      'for it. A request left `sending` by a fault (checkout_request_id null) is settled from the paybill statement. ' +
      'An account the caller cannot see (or that does not exist, including any ipf_repayment until premium finance exists) is 422 ' +
      'validation_failed on `account`; a cancelled or expired policy is 422 domain_rule. Amount: whole shillings, 1–250,000. ' +
      'Prompts are throttled per organisation (429 rate_limited with Retry-After): at most 3 to one phone number per 10 minutes ' +
      'and 5 for one account (the policy it resolves to, whatever its spelling) per hour (STK_PHONE_*, STK_ACCOUNT_*), and none ' +
      'while an earlier prompt to the same phone or for the same account is still pending, for up to 2 minutes after it was sent ' +
      '(STK_PENDING_HOLD_SECONDS) or while another push to it is being sent. Refused requests do not count. A rail that refuses ' +
      'the push is 503 service_unavailable (the key may be reused); one that does not answer within MPESA_RAIL_TIMEOUT_MS is 503 ' +
      'with Retry-After: retry with the same key.',
    scopes: ['bind'],
    idempotent: 'operation',
    operation: 'InitiateStkPush',
    requestBody: obj(
      {
        phone: str('Kenyan mobile, any format (07…, 01…, +254…, 254…)'),
        amount: int('Whole shillings, 1–250,000'),
        account: str('Policy number, debit note number, or premium-finance loan reference'),
        purpose: { type: 'string', enum: ['premium', 'ipf_repayment'], default: 'premium' },
      },
      ['phone', 'amount', 'account'],
    ),
    toVariables: ({ body, idempotencyKey }) => {
      const b = asObject(body);
      return { input: { phone: b.phone, amount: b.amount, account: b.account, purpose: b.purpose, idempotencyKey } };
    },
    toResponse: (d) => {
      const a = d.initiateStkPush;
      return {
        status: 202,
        replayed: a.replayed,
        body: {
          data: {
            id: a.id,
            merchant_request_id: a.merchantRequestId,
            checkout_request_id: a.checkoutRequestId,
            response_code: a.responseCode,
            response_description: a.responseDescription,
            customer_message: a.customerMessage,
            status: a.paymentRequest.status,
            phone: a.paymentRequest.phone,
            ...moneyPair('amount', a.paymentRequest.amount),
            account: a.paymentRequest.account,
            purpose: a.paymentRequest.purpose,
            links: { status: `/api/v1/payment/stk/${encodeURIComponent(a.checkoutRequestId ?? a.id)}` },
          },
        },
      };
    },
    response: {
      status: 202,
      description: 'Prompt sent (Daraja acknowledgement)',
      schema: dataOf(
        obj({
          id: str('Payment request id'),
          merchant_request_id: nullable(str()),
          checkout_request_id: nullable(str('Null only while the request is `sending` after a fault')),
          response_code: nullable(str('"0" when accepted')),
          response_description: nullable(str()),
          customer_message: nullable(str()),
          status: str('pending; on a replay, whatever the request has become (sending, pending, succeeded, failed)'),
          phone: str(),
          ...money('amount'),
          account: str(),
          purpose: str(),
          links: obj({ status: str() }),
        }),
      ),
    },
    errors: ['validation_failed', 'domain_rule', 'actor_forbidden', 'service_unavailable'],
  }),
  route({
    ...common,
    tag: 'Payments',
    operationId: 'rotateMpesaCallbackToken',
    method: 'POST',
    path: '/payment/callback-token/rotate',
    summary: "Rotate the organisation's M-Pesa callback token",
    description:
      'New prompts carry a CallBackURL with the next token; callbacks carrying the previous one are taken for ' +
      'MPESA_CALLBACK_TOKEN_GRACE_SECONDS more (prompts already on phones carry it). The token is never shown or stored: it is ' +
      'derived from the master key, and only its hash is kept. A callback is a hint in any case: nothing is receipted before the ' +
      "rail's status query confirms it. Needs scope admin and a user who manages API clients.",
    scopes: ['admin'],
    idempotent: true,
    operation: 'RotateMpesaCallbackToken',
    toVariables: () => ({}),
    toResponse: (d) => {
      const c = d.rotateMpesaCallbackToken;
      return {
        status: 200,
        body: {
          data: {
            shortcode: c.shortcode,
            generation: c.generation,
            rotated_at: c.rotatedAt,
            previous_valid_until: c.previousValidUntil,
          },
        },
      };
    },
    response: {
      status: 200,
      description: 'Rotated',
      schema: dataOf(
        obj({
          shortcode: str('The paybill'),
          generation: int('Which token new prompts carry'),
          rotated_at: timestamp(),
          previous_valid_until: {
            ...timestamp(),
            description: 'Callbacks with the previous token are taken until then (ISO 8601 with offset)',
          },
        }),
      ),
    },
    errors: ['actor_forbidden'],
  }),
  route({
    ...common,
    tag: 'Payments',
    operationId: 'stkPushStatus',
    method: 'GET',
    path: '/payment/stk/{checkout_request_id}',
    summary:
      'Follow an STK push by checkout request id or payment request id: sending, pending, succeeded or failed (confirmed with the rail when no callback came in time)',
    scopes: ['read'],
    idempotent: false,
    operation: 'StkPushStatus',
    toVariables: ({ params }) => ({ checkoutRequestId: params.checkout_request_id }),
    toResponse: (d) => ({ status: 200, body: { data: paymentRequestToRest(d.stkPushStatus) } }),
    response: { status: 200, description: 'The payment request', schema: dataOf(ref('PaymentRequest')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    tag: 'Payments',
    operationId: 'listReceipts',
    method: 'GET',
    path: '/receipts',
    summary: 'Receipts the caller may see, newest first (cursor pagination)',
    scopes: ['read'],
    idempotent: false,
    operation: 'Receipts',
    queryParams: [
      { name: 'client_no', in: 'query', schema: str() },
      { name: 'policy_no', in: 'query', schema: str() },
      ...pageParams({ pages: false }),
    ],
    toVariables: ({ query }) => ({
      ...pageArgs(query, { pages: false }),
      clientNo: query.get('client_no') || undefined,
      policyNo: query.get('policy_no') || undefined,
    }),
    toResponse: (d, input) => connectionPage(d.receipts, input, receiptToRest, { pages: false }),
    response: {
      status: 200,
      description: 'A page of receipts',
      schema: pageSchema(ref('Receipt')),
    },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    tag: 'Payments',
    operationId: 'getReceipt',
    method: 'GET',
    path: '/receipts/{receipt_no}',
    summary: 'Read a receipt and its allocations',
    scopes: ['read'],
    idempotent: false,
    operation: 'Receipt',
    toVariables: ({ params }) => ({ receiptNo: params.receipt_no }),
    toResponse: (d) => ({ status: 200, body: { data: receiptToRest(d.receipt) } }),
    response: { status: 200, description: 'The receipt', schema: dataOf(ref('Receipt')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    tag: 'Clients',
    operationId: 'getClientBalance',
    method: 'GET',
    path: '/clients/{client_no}/balance',
    summary: 'What a client owes (open debit notes of pending and active policies) and their credit balance',
    scopes: ['read'],
    idempotent: false,
    operation: 'ClientBalance',
    toVariables: ({ params }) => ({ clientNo: params.client_no }),
    toResponse: (d) => {
      const b = d.clientBalance;
      return {
        status: 200,
        body: {
          data: {
            client_no: b.clientNo,
            outstanding: moneyObject(b.outstanding),
            credit: moneyObject(b.credit),
            debit_notes: b.openDebitNotes.map((n: any) => ({
              number: n.number,
              instalment_no: n.instalmentNo,
              due_on: n.dueOn,
              ...moneyPair('amount', n.amount),
              ...moneyPair('paid', n.paid),
              ...moneyPair('outstanding', n.outstanding),
            })),
          },
        },
      };
    },
    response: {
      status: 200,
      description: 'The balance',
      schema: dataOf(
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
      ),
    },
    errors: ['not_found'],
  }),
];
