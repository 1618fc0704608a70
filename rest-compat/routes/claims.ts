import type { SchemaObject } from 'openapi3-ts/oas31';
import {
  AdjustClaimReserveDocument,
  AppointClaimAssessorDocument,
  ApproveClaimDocument,
  ClaimCausesDocument,
  ClaimDocument,
  ClaimsDocument,
  MoveClaimDocument,
  RecordClaimAssessmentDocument,
  RegisterClaimDocument,
  ReopenClaimDocument,
  RepudiateClaimDocument,
  UpdateClaimDocument,
} from '../generated/operations.ts';
import { claimDocumentToRest } from '../mappers/claim-document.ts';
import {
  claimCauseToRest,
  claimHistoryToRest,
  claimToRest,
  registerClaimFromRest,
  reserveMovementsToRest,
} from '../mappers/claim.ts';
import { claimPaymentToRest } from '../mappers/claim-payment.ts';
import { moneyPair } from '../mappers/money.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, asObject, intParam, route } from '../route.ts';
import { arr, bool, dataOf, int, ref, str } from '../schemas/builders.ts';
import { CLAIM_STATUSES } from '../schemas/claim.ts';

const common = { tag: 'Claims', serviceOnly: true };
const writeErrors = ['not_found', 'validation_failed', 'invalid_state', 'domain_rule', 'actor_forbidden'] as const;

const q = (name: string, schema: SchemaObject, description?: string) => ({
  name,
  in: 'query' as const,
  schema,
  ...(description ? { description } : {}),
});
const filterParams = [
  q('status', str(), `Comma-separated statuses: ${CLAIM_STATUSES.join(', ')}`),
  q('policy_uuid', str()),
  q('client_no', str()),
  q('insurer_id', int()),
  q('assignee_id', int()),
  q('reported_from', str(), 'ISO 8601 date-time'),
  q('reported_to', str(), 'ISO 8601 date-time'),
  q('loss_from', str(), 'Y-m-d'),
  q('loss_to', str(), 'Y-m-d'),
  q('sla_breached', bool(), 'true: open claims past their service level; false: the others'),
  q('search', str(), 'Claim number or vehicle registration'),
  ...pageParams(),
];
const boolParam = (v: string | null) => (v === 'true' ? true : v === 'false' ? false : v == null ? undefined : v);

/** The claim with its history: every write answers with the claim as it now is. */
const detail = (c: Parameters<typeof claimToRest>[0] & Parameters<typeof claimHistoryToRest>[0]) => ({
  ...claimToRest(c),
  history: claimHistoryToRest(c),
});

export const claimRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listClaimCauses',
    method: 'GET',
    path: '/claims/causes',
    summary: 'The causes of loss the organisation accepts, per product line, with their document checklists',
    scopes: ['read'],
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
    scopes: ['read'],
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
    requestBody: ref('ClaimInput'),
    fieldNames: { policy_id: 'policy_uuid' },
    toVariables: ({ body }) => ({ input: registerClaimFromRest(asObject(body)) }),
    toResponse: (d) => ({ status: 201, body: { data: detail(d.registerClaim) } }),
    response: { status: 201, description: 'The registered claim', schema: dataOf(ref('ClaimDetail')) },
    errors: ['validation_failed', 'domain_rule', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getClaim',
    method: 'GET',
    path: '/claims/{uuid}',
    summary: 'Read a claim with its history, documents checklist, reserve movements and payments',
    scopes: ['read'],
    idempotent: false,
    operation: ClaimDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({
      status: 200,
      body: {
        data: {
          ...detail(d.claim),
          documents_complete: d.claim.documentsComplete,
          documents: d.claim.documents.map((x) => claimDocumentToRest(x, d.claim.uuid)),
          ...moneyPair('committed', d.claim.committed),
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
    requestBody: ref('ClaimUpdateInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { assigneeId: b.assignee_id, policeAbstractNo: b.police_abstract_no } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.updateClaim) } }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'moveClaim',
    method: 'POST',
    path: '/claims/{uuid}/transitions',
    summary: 'Move a claim: documents_pending, with_underwriter, under_assessment, closed or withdrawn',
    description:
      'The state machine (README "Claims"). with_underwriter needs every required document received or waived (409 invalid_state with ' +
      'missing_documents otherwise); closed needs no reserve left; withdrawn is refused once money is instructed. approved, repudiated and ' +
      'settled have their own commands (422 naming it). Any move the machine does not list: 409 invalid_state with `allowed`. Emits claim.moved.',
    scopes: ['crm'],
    idempotent: true,
    operation: MoveClaimDocument,
    requestBody: ref('ClaimMoveInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { to: b.to as never, reason: b.reason } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.moveClaim) } }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'adjustClaimReserve',
    method: 'POST',
    path: '/claims/{uuid}/reserve',
    summary: 'Set the outstanding reserve (whole shillings) with a reason, before approval',
    scopes: ['crm'],
    idempotent: true,
    operation: AdjustClaimReserveDocument,
    requestBody: ref('ClaimReserveInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { amount: b.amount, reason: b.reason } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.adjustClaimReserve) } }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'appointClaimAssessor',
    method: 'POST',
    path: '/claims/{uuid}/assessor',
    summary: 'Appoint the assessor (with the underwriter or under assessment)',
    scopes: ['crm'],
    idempotent: true,
    operation: AppointClaimAssessorDocument,
    requestBody: ref('ClaimAssessorInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { name: b.name, phone: b.phone, firm: b.firm } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.appointClaimAssessor) } }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'recordClaimAssessment',
    method: 'POST',
    path: '/claims/{uuid}/assessment',
    summary: "Record the assessor's report: assessed amount, salvage, notes (under assessment)",
    scopes: ['crm'],
    idempotent: true,
    operation: RecordClaimAssessmentDocument,
    requestBody: ref('ClaimAssessmentInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { assessedAmount: b.assessed_amount, salvage: b.salvage, notes: b.notes } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.recordClaimAssessment) } }),
    response: { status: 200, description: 'The claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'approveClaim',
    method: 'POST',
    path: '/claims/{uuid}/approve',
    summary: 'Approve: approved amount, the excess from the product terms, net payable',
    description:
      "excess = max(rate × basis, minimum) of the product's excess term for the cause (basis: the sum insured, or the approved amount), " +
      'never above the approved amount; net_payable = approved − excess. A net payable of nothing is 422 domain_rule (repudiate with ' +
      'below_excess). Emits claim.approved and claim.moved.',
    scopes: ['crm'],
    idempotent: true,
    operation: ApproveClaimDocument,
    requestBody: ref('ClaimApproveInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { approvedAmount: b.approved_amount, reason: b.reason } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.approveClaim) } }),
    response: { status: 200, description: 'The approved claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'repudiateClaim',
    method: 'POST',
    path: '/claims/{uuid}/repudiate',
    summary: 'Repudiate for a documented reason (the reserve is released)',
    scopes: ['crm'],
    idempotent: true,
    operation: RepudiateClaimDocument,
    requestBody: ref('ClaimRepudiateInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { reason: b.reason, note: b.note } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.repudiateClaim) } }),
    response: { status: 200, description: 'The repudiated claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'reopenClaim',
    method: 'POST',
    path: '/claims/{uuid}/reopen',
    summary: 'Reopen a closed claim within 90 days of closing (→ under_assessment)',
    scopes: ['crm'],
    idempotent: true,
    operation: ReopenClaimDocument,
    requestBody: ref('ClaimReopenInput'),
    toVariables: ({ params, body }) => {
      const b = asObject(body);
      return { uuid: params.uuid, input: { reason: b.reason, reserve: b.reserve } };
    },
    toResponse: (d) => ({ status: 200, body: { data: detail(d.reopenClaim) } }),
    response: { status: 200, description: 'The reopened claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
];
