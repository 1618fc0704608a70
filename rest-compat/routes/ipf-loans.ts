import { IpfLendersDocument, IpfLoanDocument, IpfLoansDocument, IpfQuoteDocument } from '../generated/operations.ts';
import {
  ipfLenderToRest,
  ipfLoanDetailToRest,
  ipfLoanToRest,
  ipfQuoteFromRest,
  ipfQuoteToRest,
} from '../mappers/ipf-loan.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, boolParam, intParam, route } from '../route.ts';
import { arr, bool, dataOf, int, queryParam, ref, str } from '../schemas/builders.ts';
import { IPF_LOAN_STATUSES, IpfQuoteRequest } from '../schemas/ipf-loan.ts';

const common = { tag: 'Premium finance', serviceOnly: true };
const NOT_OFFERED = 'A SACCO or microfinance organisation gets 403 ipf_not_offered. ';
const q = queryParam;

/** Premium finance under /ipf: the quote, the lender panel and the loans (docs/premium-finance.md "Premium finance"). */
export const ipfLoansRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'ipfQuote',
    method: 'POST',
    path: '/ipf/quote',
    summary: 'Premium-finance offers per lender and tenor for a premium or a policy pending payment (nothing stored)',
    description:
      NOT_OFFERED +
      'Send `premium` (whole shillings) or `policy` (the uuid of a policy pending payment that the caller may see: its ' +
      'gross premium); neither or both is 422 validation_failed naming premium, a bad premium names premium, a ' +
      'policy that is unknown, out of reach or not pending payment names policy. ' +
      '`lender_id` and `tenor_months` narrow the offers: a lender not on the panel is refused under errors.lender_id, ' +
      'a tenor outside 3–10 months or not offered under errors.tenor_months. Each offer gives the deposit, the ' +
      'instalment, the charge (cost of credit), the total repayable, apr_bps and the schedule with due dates from ' +
      '`start_date` (default and earliest today): the arithmetic of the motor quote’s ipf_offers. `ipf_reason` says ' +
      'why nothing is offered.',
    scopes: ['quote'],
    idempotent: false,
    operation: IpfQuoteDocument,
    requestBody: IpfQuoteRequest,
    parseBody: true,
    toVariables: (input) => ({ input: ipfQuoteFromRest(bodyOf(input, IpfQuoteRequest)) }),
    toResponse: (d) => ({ status: 200, body: { data: ipfQuoteToRest(d.ipfQuote) } }),
    // The core's policyUuid is the body's `policy` (policy_uuid is accepted for it).
    fieldNames: { policy_uuid: 'policy' },
    response: { status: 200, description: 'The offers', schema: dataOf(ref('IpfQuote')) },
    errors: ['validation_failed', 'ipf_not_offered'],
  }),
  route({
    ...common,
    operationId: 'listIpfLenders',
    method: 'GET',
    path: '/ipf/lenders',
    summary: "The organisation's premium-finance lenders and their terms",
    description:
      NOT_OFFERED +
      'Pricing (rate_per_tenor: a charge in basis points of the premium per tenor; flat_fee_by_band: a facility fee by ' +
      'premium band), the deposit rule, the premium bounds, the grace days and the tenors offered (3–10 months).',
    scopes: ['read', 'quote'],
    idempotent: false,
    operation: IpfLendersDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.ipfLenders.map(ipfLenderToRest) } }),
    response: { status: 200, description: 'Lenders', schema: dataOf(arr(ref('IpfLender'))) },
    errors: ['ipf_not_offered'],
  }),
  route({
    ...common,
    operationId: 'listIpfLoans',
    method: 'GET',
    path: '/ipf/loans',
    summary: 'Premium-finance loans the caller may see, newest first (cursor pagination, filters)',
    description:
      NOT_OFFERED +
      'An agent sees the loans of the policies within its reach. Balances are as of today (Nairobi): outstanding = ' +
      'total repayable − paid − rebate; arrears = what is unpaid on the instalments due on or before today.',
    scopes: ['read', 'bind'],
    idempotent: false,
    operation: IpfLoansDocument,
    queryParams: [
      q('status', str(), `Comma-separated statuses: ${IPF_LOAN_STATUSES.join(', ')}`),
      q('policy_uuid', str()),
      q('client_no', str()),
      q('lender_id', int()),
      q('in_arrears', bool(), 'true: loans with something unpaid due on or before today; false: the others'),
      ...pageParams({ pages: false }),
    ],
    toVariables: ({ query }) => ({
      ...pageArgs(query, { pages: false }),
      status: query.get('status')?.split(',').filter(Boolean) as never,
      policyUuid: query.get('policy_uuid') || undefined,
      clientNo: query.get('client_no') || undefined,
      lenderId: intParam(query.get('lender_id')),
      inArrears: boolParam(query.get('in_arrears')) as never,
    }),
    toResponse: (d, input) => connectionPage(d.ipfLoans, input, ipfLoanToRest, { pages: false }),
    response: { status: 200, description: 'A page of loans', schema: pageSchema(ref('IpfLoan')) },
    errors: ['validation_failed', 'ipf_not_offered'],
  }),
  route({
    ...common,
    operationId: 'getIpfLoan',
    method: 'GET',
    path: '/ipf/loans/{uuid}',
    summary: 'A premium-finance loan with its schedule, payments, balance, arrears and history',
    description:
      NOT_OFFERED +
      'Each instalment with its status (paid; waived at early settlement; else overdue, due today or upcoming); each ' +
      'receipt allocated to the loan with what went to which instalment. 404 when missing or out of reach.',
    scopes: ['read', 'bind'],
    idempotent: false,
    operation: IpfLoanDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: ipfLoanDetailToRest(d.ipfLoan!) } }),
    response: { status: 200, description: 'The loan', schema: dataOf(ref('IpfLoanRecord')) },
    errors: ['not_found', 'ipf_not_offered'],
  }),
];
