import { AppError } from '../../src/lib/problem.ts';
import {
  CancelIpfApplicationDocument,
  CreateIpfApplicationDocument,
  IpfApplicationAgreementDocument,
  IpfApplicationDocument,
  IpfApplicationsDocument,
  RequestIpfSigningCodeDocument,
  SignIpfApplicationDocument,
  SubmitIpfApplicationDocument,
} from '../generated/operations.ts';
import {
  createIpfApplicationFromRest,
  ipfApplicationDetailToRest,
  ipfApplicationToRest,
  signingCodeToRest,
} from '../mappers/ipf-application.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, intParam, route } from '../route.ts';
import { dataOf, int, queryParam, ref, str } from '../schemas/builders.ts';
import {
  IPF_APPLICATION_STATUSES,
  IpfApplicationCancelInput,
  IpfApplicationInput,
  IpfApplicationSignInput,
} from '../schemas/ipf-application.ts';

const common = { tag: 'Premium finance', serviceOnly: true };
const readScopes: ('read' | 'bind')[] = ['read', 'bind'];
const writeErrors = ['not_found', 'validation_failed', 'invalid_state', 'ipf_not_offered', 'actor_forbidden'] as const;
const detail = {
  status: 200,
  description: 'The application with its history',
  schema: dataOf(ref('IpfApplicationDetail')),
};

const q = queryParam;

/** Premium-finance applications under /ipf/applications (docs/premium-finance.md "Premium finance: applications, decision and signing"). */
export const ipfApplicationsRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listIpfApplications',
    method: 'GET',
    path: '/ipf/applications',
    summary: 'Premium-finance applications the caller may see, newest first (cursor pagination, filters)',
    scopes: readScopes,
    idempotent: false,
    operation: IpfApplicationsDocument,
    queryParams: [
      q('status', str(), `Comma-separated statuses: ${IPF_APPLICATION_STATUSES.join(', ')}`),
      q('policy_uuid', str()),
      q('policy_no', str()),
      q('client_no', str()),
      q('lender_id', int()),
      ...pageParams({ pages: false }),
    ],
    toVariables: ({ query }) => ({
      ...pageArgs(query, { pages: false }),
      status: query.get('status')?.split(',').filter(Boolean) as never,
      policyUuid: query.get('policy_uuid') || undefined,
      policyNo: query.get('policy_no') || undefined,
      clientNo: query.get('client_no') || undefined,
      lenderId: intParam(query.get('lender_id')),
    }),
    toResponse: (d, input) => connectionPage(d.ipfApplications, input, ipfApplicationToRest, { pages: false }),
    response: { status: 200, description: 'A page of applications', schema: pageSchema(ref('IpfApplication')) },
    errors: ['validation_failed', 'ipf_not_offered'],
  }),
  route({
    ...common,
    operationId: 'createIpfApplication',
    method: 'POST',
    path: '/ipf/applications',
    summary:
      'Apply to finance a policy pending payment (payment_mode ipf): KYC, lender and tenor; a draft or submitted',
    description:
      'The policy must be visible, pending payment and bound with payment_mode ipf, with no other live application (409 invalid_state). ' +
      'KYC: id_number (or idno) and kra_pin (or pin) must match what the client record holds, income_band one of the bands, consent true. ' +
      'Priced now with the lender’s terms: a tenor the lender does not offer is 422 on tenor_months, a premium it cannot finance 422 on ipf. ' +
      'submit: true submits it at once (the lender decides in the background: ipf.decided).',
    scopes: ['bind'],
    idempotent: true,
    operation: CreateIpfApplicationDocument,
    requestBody: IpfApplicationInput,
    parseBody: true,
    toVariables: (input) => ({ input: createIpfApplicationFromRest(bodyOf(input, IpfApplicationInput)) }),
    toResponse: (d) => ({ status: 201, body: { data: ipfApplicationDetailToRest(d.createIpfApplication) } }),
    response: { ...detail, status: 201, description: 'The new application' },
    errors: ['validation_failed', 'invalid_state', 'ipf_not_offered', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getIpfApplication',
    method: 'GET',
    path: '/ipf/applications/{uuid}',
    summary: 'Read an application: offer, schedule, KYC (partly shown), decision, signing, loan, history',
    scopes: readScopes,
    idempotent: false,
    operation: IpfApplicationDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: ipfApplicationDetailToRest(found(d.ipfApplication)) } }),
    response: detail,
    errors: ['not_found', 'ipf_not_offered'],
  }),
  route({
    ...common,
    operationId: 'getIpfApplicationAgreement',
    method: 'GET',
    path: '/ipf/applications/{uuid}/agreement',
    summary: 'The loan agreement as plain text with its SHA-256: as sent for signing, or a preview once approved',
    scopes: readScopes,
    idempotent: false,
    operation: IpfApplicationAgreementDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => {
      const a = found(d.ipfApplication);
      if (!a.agreement) throw new AppError('not_found', { detail: 'No agreement before the lender approves' });
      const { uuid, applicationNo, applicationStatus: status } = a;
      return { status: 200, body: { data: { uuid, application_no: applicationNo, status, ...a.agreement } } };
    },
    response: { status: 200, description: 'The agreement', schema: dataOf(ref('IpfAgreement')) },
    errors: ['not_found', 'ipf_not_offered'],
  }),
  route({
    ...command('submitIpfApplication', 'submit', 'Submit a draft to the lender'),
    description:
      'draft → submitted; the lender decides in the background (approved or declined with reasons; event ipf.decided).',
    operation: SubmitIpfApplicationDocument,
    toVariables: ({ params }) => ({ input: { uuid: params.uuid } }),
    toResponse: (d) => ({ status: 200, body: { data: ipfApplicationDetailToRest(d.submitIpfApplication) } }),
  }),
  route({
    ...command('cancelIpfApplication', 'cancel', 'Withdraw an application, with a reason'),
    description:
      'draft, submitted or approved → cancelled; a signed one only while its loan has received no money (the loan is cancelled with it).',
    operation: CancelIpfApplicationDocument,
    requestBody: IpfApplicationCancelInput,
    parseBody: true,
    toVariables: (input) => ({
      input: { uuid: input.params.uuid, reason: bodyOf(input, IpfApplicationCancelInput).reason },
    }),
    toResponse: (d) => ({ status: 200, body: { data: ipfApplicationDetailToRest(d.cancelIpfApplication) } }),
  }),
  route({
    ...command(
      'requestIpfSigningCode',
      'signing-code',
      'Render the agreement of an approved application and send the client a signing code by SMS',
    ),
    description:
      'Six digits, valid 5 minutes, 5 attempts, bound to this agreement’s SHA-256; a new code replaces the last. One code per 60 s ' +
      '(and at most 5 per phone per hour): 422 validation_failed on otp with Retry-After. While a change of the client’s phone by the ' +
      'organisation is held (72 hours), the code goes to the phone trusted before it; 409 phone_recently_changed on phone if there is none.',
    operation: RequestIpfSigningCodeDocument,
    errors: [...writeErrors, 'phone_recently_changed'],
    toVariables: ({ params }) => ({ input: { uuid: params.uuid } }),
    toResponse: (d) => ({ status: 200, body: { data: signingCodeToRest(d.requestIpfSigningCode) } }),
    response: { status: 200, description: 'The code was sent', schema: dataOf(ref('IpfSigningCode')) },
  }),
  route({
    ...command('signIpfApplication', 'sign', 'Sign with the client’s code: creates the loan'),
    description:
      'approved → signed; the loan is created with its schedule (deposit due today). A wrong code spends an attempt; wrong, expired, ' +
      'spent or a changed agreement: 422 validation_failed on otp. Runs outside the key’s transaction, so a spent attempt stays spent.',
    idempotent: 'outside-transaction',
    operation: SignIpfApplicationDocument,
    requestBody: IpfApplicationSignInput,
    parseBody: true,
    toVariables: (input) => ({
      input: { uuid: input.params.uuid, code: bodyOf(input, IpfApplicationSignInput).code },
    }),
    toResponse: (d) => ({ status: 200, body: { data: ipfApplicationDetailToRest(d.signIpfApplication) } }),
  }),
];

/** A record the operation answered (a missing one is already a not_found problem; this only narrows the type). */
function found<T>(v: T | null | undefined): T {
  if (v == null) throw new AppError('not_found', { detail: 'Premium-finance application not found' });
  return v;
}

/** POST /ipf/applications/{uuid}/<verb>: a command answering the application (scope bind, Idempotency-Key). */
function command(operationId: string, verb: string, summary: string) {
  return {
    ...common,
    operationId,
    method: 'POST' as const,
    path: `/ipf/applications/{uuid}/${verb}`,
    summary,
    scopes: ['bind' as const],
    idempotent: true,
    response: detail,
    errors: [...writeErrors],
  };
}
