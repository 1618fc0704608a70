import {
  ClaimCausesDocument,
  ClaimDocument,
  ClaimsDocument,
  RegisterClaimDocument,
  UpdateClaimDocument,
} from '../generated/operations.ts';
import { claimDocumentToRest } from '../mappers/claim-document.ts';
import {
  claimCauseToRest,
  claimDetailToRest,
  claimToRest,
  registerClaimFromRest,
  reserveMovementsToRest,
} from '../mappers/claim.ts';
import { claimPaymentToRest } from '../mappers/claim-payment.ts';
import { minor, whole } from '../mappers/money.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, boolParam, intParam, route } from '../route.ts';
import { arr, bool, dataOf, dateInput, dateTimeInput, int, queryParam, ref, str } from '../schemas/builders.ts';
import { CLAIM_STATUSES, registerClaimBody, updateClaimBody } from '../schemas/claim.ts';

const common = { tag: 'Claims', serviceOnly: true };
const writeErrors = ['not_found', 'validation_failed', 'invalid_state', 'domain_rule', 'actor_forbidden'] as const;

const q = queryParam;
const filterParams = [
  q('status', str(), `Comma-separated statuses: ${CLAIM_STATUSES.join(', ')}`),
  q('policy_uuid', str()),
  q('client_no', str()),
  q('insurer_id', int()),
  q('assignee_id', int()),
  q('reported_from', dateTimeInput(), 'Reported at or after (RFC 3339 date-time)'),
  q('reported_to', dateTimeInput(), 'Reported at or before (RFC 3339 date-time)'),
  q('loss_from', dateInput(), 'Loss on or after (Y-m-d)'),
  q('loss_to', dateInput(), 'Loss on or before (Y-m-d)'),
  q('sla_breached', bool(), 'true: open claims past their service level; false: the others'),
  q('search', str(), 'Claim number or vehicle registration, literal (case-insensitive; % and _ are themselves)'),
  ...pageParams(),
];

/** Claims: reading, registering and updating; the handling commands are in claim-commands.ts. */
export const claimRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listClaimCauses',
    method: 'GET',
    path: '/claims/causes',
    summary: 'The causes of loss the organisation accepts, per product line, with their document checklists',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimCausesDocument,
    queryParams: [q('product_line', str(), 'motor, medical, travel or standard')],
    toVariables: ({ query }) => ({ productLine: query.get('product_line') || undefined }),
    toResponse: (d) => ({ status: 200, body: { data: d.claimCauses.map(claimCauseToRest) } }),
    response: { status: 200, description: 'Causes', schema: dataOf(arr(ref('ClaimCause'))) },
    errors: [],
  }),
  route({
    ...common,
    operationId: 'listClaims',
    method: 'GET',
    path: '/claims',
    summary: 'Claims the caller may see, newest first (cursor pagination, filters)',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimsDocument,
    queryParams: filterParams,
    toVariables: ({ query }) => ({
      ...pageArgs(query),
      status: query.get('status')?.split(',').filter(Boolean) as never,
      policyUuid: query.get('policy_uuid') || undefined,
      clientNo: query.get('client_no') || undefined,
      insurerId: intParam(query.get('insurer_id')),
      assigneeId: intParam(query.get('assignee_id')),
      reportedFrom: query.get('reported_from') || undefined,
      reportedTo: query.get('reported_to') || undefined,
      lossFrom: query.get('loss_from') || undefined,
      lossTo: query.get('loss_to') || undefined,
      slaBreached: boolParam(query.get('sla_breached')) as never,
      search: query.get('search') || undefined,
    }),
    toResponse: (d, input) => connectionPage(d.claims, input, claimToRest),
    response: { status: 200, description: 'A page of claims', schema: pageSchema(ref('Claim')) },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'registerClaim',
    method: 'POST',
    path: '/claims',
    summary: 'Register a claim (first notice of loss) against a policy in force on the loss date',
    description:
      'The policy must be visible to the caller and in force on loss_date (inside its cover period, on cover that day by its status history, ' +
      'not cancelled with effect by then); a motor claim names a vehicle that was on the policy that day. Otherwise 422 domain_rule. ' +
      'The claim is numbered CLM-YYYY-NNNNNN (gap-free per organisation and year), flagged late_notification when reported more than 48 hours ' +
      "after the loss, reserved by the cause's rule (or the reporter's estimate, capped at the sum insured) and given the cause's documents " +
      'checklist. Emits claim.registered.',
    scopes: ['crm'],
    idempotent: true,
    operation: RegisterClaimDocument,
    requestBody: registerClaimBody,
    parseBody: true,
    fieldNames: { policy_id: 'policy_uuid' },
    toVariables: (input) => ({ input: registerClaimFromRest(bodyOf(input, registerClaimBody)) }),
    toResponse: (d) => ({ status: 201, body: { data: claimDetailToRest(d.registerClaim) } }),
    response: { status: 201, description: 'The registered claim', schema: dataOf(ref('ClaimDetail')) },
    errors: ['validation_failed', 'domain_rule', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getClaim',
    method: 'GET',
    path: '/claims/{uuid}',
    summary: 'Read a claim with its history, documents checklist, reserve movements and payments',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({
      status: 200,
      body: {
        data: {
          ...claimDetailToRest(d.claim),
          documents_complete: d.claim.documentsComplete,
          documents: d.claim.documents.map((x) => claimDocumentToRest(x, d.claim.uuid)),
          committed: whole(d.claim.committed),
          committed_minor: minor(d.claim.committed),
          reserve_movements: reserveMovementsToRest(d.claim),
          payments: d.claim.payments.map(claimPaymentToRest),
        },
      },
    }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimRecord')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'updateClaim',
    method: 'PATCH',
    path: '/claims/{uuid}',
    summary: 'Assign a handler or record the police abstract number (audited)',
    scopes: ['crm'],
    idempotent: true,
    operation: UpdateClaimDocument,
    requestBody: updateClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, updateClaimBody);
      return { uuid: input.params.uuid, input: { assigneeId: b.assignee_id, policeAbstractNo: b.police_abstract_no } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.updateClaim) } }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
];
