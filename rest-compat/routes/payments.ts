import { jsonSchemaOf } from '../schemas/json-schema.ts';
import {
  ClientBalanceDocument,
  InitiateStkPushDocument,
  ReceiptDocument,
  ReceiptsDocument,
  RotateMpesaCallbackTokenDocument,
  StkPushStatusDocument,
} from '../generated/operations.ts';
import {
  callbackTokenToRest,
  clientBalanceToRest,
  paymentRequestToRest,
  receiptToRest,
  stkPushToRest,
} from '../mappers/payment.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { dataOf, ref, str } from '../schemas/builders.ts';
import { callbackTokenResponse, clientBalanceResponse, stkPushBody, stkPushResponse } from '../schemas/payment.ts';

const common = { serviceOnly: true };

export const paymentRoutes: AnyRoute[] = [
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
      'payment request id). The Idempotency-Key makes the push exactly-once even across a crash: a retry answers the first answer ' +
      'byte for byte (header Idempotent-Replayed), whatever the request became since, and never prompts the phone again; while the ' +
      'first is still calling the rail the retry waits for it. A request left `sending` by a fault is in doubt: it is looked up on ' +
      "the rail (its callback, the paybill statement) and a retry meanwhile is 503 with Retry-After, never a 202 without the rail's ids. " +
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
    operation: InitiateStkPushDocument,
    requestBody: stkPushBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, stkPushBody);
      const { idempotencyKey } = input;
      return { input: { phone: b.phone, amount: b.amount, account: b.account, purpose: b.purpose, idempotencyKey } };
    },
    toResponse: ({ initiateStkPush: a }) => ({
      status: 202,
      replayed: a.replayed,
      body: { data: stkPushToRest(a) },
    }),
    response: { status: 202, description: 'Prompt sent (Daraja acknowledgement)', schema: stkPushResponse },
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
    operation: RotateMpesaCallbackTokenDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: callbackTokenToRest(d.rotateMpesaCallbackToken) } }),
    response: { status: 200, description: 'Rotated', schema: callbackTokenResponse },
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
    operation: StkPushStatusDocument,
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
    operation: ReceiptsDocument,
    queryParams: [
      { name: 'client_no', in: 'query', schema: jsonSchemaOf(str()) },
      { name: 'policy_no', in: 'query', schema: jsonSchemaOf(str()) },
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
    operation: ReceiptDocument,
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
    operation: ClientBalanceDocument,
    toVariables: ({ params }) => ({ clientNo: params.client_no }),
    toResponse: (d) => ({ status: 200, body: { data: clientBalanceToRest(d.clientBalance) } }),
    response: { status: 200, description: 'The balance', schema: clientBalanceResponse },
    errors: ['not_found'],
  }),
];
