import {
  AdjustClaimReserveDocument,
  AppointClaimAssessorDocument,
  ApproveClaimDocument,
  MoveClaimDocument,
  RecordClaimAssessmentDocument,
  ReopenClaimDocument,
  RepudiateClaimDocument,
} from '../generated/operations.ts';
import { claimDetailToRest } from '../mappers/claim.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import {
  approveClaimBody,
  assessmentClaimBody,
  assessorClaimBody,
  moveClaimBody,
  reopenClaimBody,
  repudiateClaimBody,
  reserveClaimBody,
} from '../schemas/claim.ts';
import { dataOf, ref } from '../schemas/builders.ts';

const common = { tag: 'Claims', serviceOnly: true };
const writeErrors = ['not_found', 'validation_failed', 'invalid_state', 'domain_rule', 'actor_forbidden'] as const;

/** The handling commands of a claim: POST /claims/{uuid}/<command>, each answering the claim with its history. */
export const claimCommandRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'moveClaim',
    method: 'POST',
    path: '/claims/{uuid}/transitions',
    summary: 'Move a claim: documents_pending, with_underwriter, under_assessment, closed or withdrawn',
    description:
      'The state machine (docs/claims.md "Claims"). with_underwriter needs every required document received or waived (409 invalid_state with ' +
      'missing_documents otherwise); closed needs no reserve left; withdrawn is refused once money is instructed. approved, repudiated and ' +
      'settled have their own commands (422 naming it). Any move the machine does not list: 409 invalid_state with `allowed`. Emits claim.moved.',
    scopes: ['crm'],
    idempotent: true,
    operation: MoveClaimDocument,
    requestBody: moveClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, moveClaimBody);
      return { uuid: input.params.uuid, input: { to: b.to, reason: b.reason } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.moveClaim) } }),
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
    requestBody: reserveClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, reserveClaimBody);
      return { uuid: input.params.uuid, input: { amount: b.amount, reason: b.reason } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.adjustClaimReserve) } }),
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
    requestBody: assessorClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, assessorClaimBody);
      return { uuid: input.params.uuid, input: { name: b.name, phone: b.phone, firm: b.firm } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.appointClaimAssessor) } }),
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
    requestBody: assessmentClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, assessmentClaimBody);
      return {
        uuid: input.params.uuid,
        input: { assessedAmount: b.assessed_amount, salvage: b.salvage, notes: b.notes },
      };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.recordClaimAssessment) } }),
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
    requestBody: approveClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, approveClaimBody);
      return { uuid: input.params.uuid, input: { approvedAmount: b.approved_amount, reason: b.reason } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.approveClaim) } }),
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
    requestBody: repudiateClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, repudiateClaimBody);
      return { uuid: input.params.uuid, input: { reason: b.reason, note: b.note } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.repudiateClaim) } }),
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
    requestBody: reopenClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, reopenClaimBody);
      return { uuid: input.params.uuid, input: { reason: b.reason, reserve: b.reserve } };
    },
    toResponse: (d) => ({ status: 200, body: { data: claimDetailToRest(d.reopenClaim) } }),
    response: { status: 200, description: 'The reopened claim', schema: dataOf(ref('ClaimDetail')) },
    errors: [...writeErrors],
  }),
];
