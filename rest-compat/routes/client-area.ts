import { jsonSchemaOf } from '../schemas/json-schema.ts';
import {
  UpdateViewerContactDocument,
  ViewerClaimsDocument,
  ViewerDocument,
  ViewerLoansDocument,
  ViewerPayDocument,
  ViewerPoliciesDocument,
  ViewerRegisterClaimDocument,
  ViewerStatementDocument,
} from '../generated/operations.ts';
import {
  statementToRest,
  viewerClaimFromRest,
  viewerClaimToRest,
  viewerLoanToRest,
  viewerPolicyToRest,
  viewerToRest,
} from '../mappers/client-area.ts';
import { type AnyRoute, BinaryBody, bodyOf, type RestOutput, route } from '../route.ts';
import { bodyObject } from '../schemas/inputs.ts';
import { dataOf, ref, oneOf } from '../schemas/builders.ts';
import { claimBody, contactBody, listOf, payBody } from '../schemas/client-area.ts';

const common = { tag: 'Client area', serviceOnly: true };
const CUSTOMER =
  'Acts for the client signed in with X-Client-No and X-Client-Key (sent with the bearer token); without them, or with a ' +
  'replaced key or one of another organisation, 401 invalid_client_key. ';

/** The signed-in client's own records (sign-in is in client-area-sign-in.ts). */
export const clientAreaRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'getViewer',
    method: 'GET',
    path: '/client-area/me',
    summary: "The signed-in client's details",
    description: CUSTOMER,
    scopes: ['read'],
    idempotent: false,
    operation: ViewerDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: viewerToRest(d.viewer) } }),
    response: { status: 200, description: 'The client', schema: dataOf(ref('Viewer')) },
    errors: ['invalid_client_key'],
  }),
  route({
    ...common,
    operationId: 'updateViewerContact',
    method: 'PATCH',
    path: '/client-area/me',
    summary: "Change the signed-in client's phone, email, alternative phone or physical address (audited)",
    description:
      CUSTOMER +
      'A phone changed here by a client signed in with a one-time code is trusted for codes at once (with a key from a policy save it is ' +
      "held 72 hours like the organisation's change); the previous phone is told by SMS. Another client's phone: 409 duplicate_client, no matches listed.",
    scopes: ['crm'],
    idempotent: true,
    operation: UpdateViewerContactDocument,
    requestBody: bodyObject(contactBody),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, contactBody);
      return { input: { phone: b.phone, email: b.email, altPhone: b.alt_phone, physicalAddress: b.physical_address } };
    },
    toResponse: (d) => ({ status: 200, body: { data: viewerToRest(d.updateViewerContact) } }),
    response: { status: 200, description: 'Updated', schema: dataOf(ref('Viewer')) },
    errors: ['invalid_client_key', 'validation_failed', 'duplicate_client', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listViewerPolicies',
    method: 'GET',
    path: '/client-area/policies',
    summary: "The signed-in client's policies (status 1 active cover, 0 otherwise)",
    description: CUSTOMER,
    scopes: ['read'],
    idempotent: false,
    operation: ViewerPoliciesDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.viewer.policies.map(viewerPolicyToRest) } }),
    response: { status: 200, description: 'Newest first', schema: listOf('ViewerPolicy') },
    errors: ['invalid_client_key'],
  }),
  route({
    ...common,
    operationId: 'getViewerStatement',
    method: 'GET',
    path: '/client-area/statement',
    summary: 'Statement of account: debit notes, receipts and credit notes in date order with a running balance',
    description:
      CUSTOMER +
      '`?format=html` answers a printable HTML page (print it to PDF) instead of JSON; any other value answers JSON.',
    scopes: ['read'],
    idempotent: false,
    operation: ViewerStatementDocument,
    queryParams: [{ name: 'format', in: 'query', schema: jsonSchemaOf(oneOf(['json', 'html'])) }],
    toVariables: ({ query }) => ({ html: query.get('format') === 'html' }),
    toResponse: (d): RestOutput<BinaryBody | { data: ReturnType<typeof statementToRest> }> => {
      const html = d.viewer.statement.html;
      if (html != null) {
        return { status: 200, body: new BinaryBody(new TextEncoder().encode(html), 'text/html; charset=utf-8') };
      }
      return { status: 200, body: { data: statementToRest(d.viewer, d.viewer.statement) } };
    },
    response: {
      status: 200,
      description: 'The statement',
      schema: dataOf(ref('ViewerStatement')),
      mediaTypes: ['application/json', 'text/html'],
    },
    errors: ['invalid_client_key'],
  }),
  route({
    ...common,
    operationId: 'viewerPay',
    method: 'POST',
    path: '/client-area/pay',
    summary: "Send an M-Pesa STK push for one of the signed-in client's open debit notes (cents only)",
    description:
      CUSTOMER +
      'Amount in cents, a multiple of 100 (M-Pesa collects whole shillings); default the outstanding amount rounded up. ' +
      "Phone default the client's. Otherwise as POST /payment/stk/push (throttles, Idempotency-Key exactly-once, 503).",
    scopes: ['bind'],
    idempotent: 'operation',
    operation: ViewerPayDocument,
    requestBody: bodyObject(payBody),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, payBody);
      const { idempotencyKey } = input;
      return { input: { debitNoteNo: b.debit_note_no, phone: b.phone, amountMinor: b.amount_minor, idempotencyKey } };
    },
    toResponse: ({ viewerPay: a }) => ({
      status: 202,
      replayed: a.replayed,
      body: {
        data: {
          id: a.id,
          checkout_request_id: a.checkoutRequestId,
          status: a.paymentStatus,
          customer_message: a.customerMessage,
          phone: a.phone,
          amount_minor: a.amountMinor,
          debit_note_no: a.debitNoteNo,
        },
      },
    }),
    response: { status: 202, description: 'Prompt sent', schema: dataOf(ref('ViewerPayment')) },
    errors: ['invalid_client_key', 'validation_failed', 'domain_rule', 'actor_forbidden', 'service_unavailable'],
  }),
  route({
    ...common,
    operationId: 'listViewerClaims',
    method: 'GET',
    path: '/client-area/claims',
    summary: "The signed-in client's claims, newest first (cents only)",
    description: CUSTOMER,
    scopes: ['read'],
    idempotent: false,
    operation: ViewerClaimsDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.viewer.claims.map(viewerClaimToRest) } }),
    response: { status: 200, description: 'Claims', schema: listOf('ViewerClaim') },
    errors: ['invalid_client_key'],
  }),
  route({
    ...common,
    operationId: 'viewerRegisterClaim',
    method: 'POST',
    path: '/client-area/claims',
    summary: "Register a claim on one of the signed-in client's policies (cents only)",
    description:
      CUSTOMER +
      "As POST /claims with channel client_area; another client's policy reads as missing (422 on policy_uuid).",
    scopes: ['crm'],
    idempotent: true,
    operation: ViewerRegisterClaimDocument,
    requestBody: bodyObject(claimBody),
    parseBody: true,
    toVariables: (input) => ({ input: viewerClaimFromRest(bodyOf(input, claimBody)) }),
    toResponse: (d) => ({ status: 201, body: { data: viewerClaimToRest(d.viewerRegisterClaim) } }),
    response: { status: 201, description: 'Registered', schema: dataOf(ref('ViewerClaim')) },
    errors: ['invalid_client_key', 'validation_failed', 'domain_rule', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listViewerLoans',
    method: 'GET',
    path: '/client-area/loans',
    summary: "The signed-in client's premium-finance loans, newest first, with schedule and balance (cents only)",
    description:
      CUSTOMER +
      'balance_minor = total repayable − paid − rebate; arrears_minor = what is unpaid on the instalments due on or ' +
      'before today; next_due is the oldest instalment with something unpaid. A SACCO or microfinance organisation ' +
      'gets 403 ipf_not_offered.',
    scopes: ['read'],
    idempotent: false,
    operation: ViewerLoansDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.viewer.loans.map(viewerLoanToRest) } }),
    response: { status: 200, description: 'Loans', schema: listOf('ViewerLoan') },
    errors: ['invalid_client_key', 'ipf_not_offered'],
  }),
];
