import {
  ConfirmEndorsementDocument,
  DiscardEndorsementDocument,
  EndorsePolicyDocument,
  PolicyEndorsementsDocument,
} from '../generated/operations.ts';
import { endorseFromRest, endorsementToRest } from '../mappers/endorsement.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { EndorsementRequest } from '../schemas/endorsement.ts';
import { arr, dataOf, ref } from '../schemas/builders.ts';

const common = { tag: 'Endorsements', serviceOnly: true };
const fieldNames = { reg_no: 'regno', 'vehicle.reg_no': 'vehicle.regno' };

export const endorsementRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'endorsePolicy',
    method: 'POST',
    path: '/policies/{uuid}/endorse',
    summary:
      'Price a mid-term change (add_vehicle, remove_vehicle, change_value, add_member, remove_member, change_sum_insured, change_details): a pending endorsement',
    description:
      'Nothing changes until the endorsement is confirmed; it can be confirmed for 72 hours while the policy is unchanged. The policy must be ' +
      'active (409 invalid_state). Vehicle operations are for motor policies, add_member and remove_member for medical, change_sum_insured ' +
      'for standard products; change_details for any (vehicle particulars on motor). Business rules answered with 422 domain_rule: an ' +
      'operation of another product line; a registration already on this policy or on another pending or active policy for overlapping ' +
      "dates; removing the last vehicle or member, or a family's principal; a sum insured change on non-comprehensive motor cover; a " +
      'vehicle, member or sum insured the insurer does not rate (its composition rules: ages, spouses).',
    scopes: ['bind'],
    idempotent: true,
    operation: EndorsePolicyDocument,
    requestBody: EndorsementRequest,
    parseBody: true,
    toVariables: (input) => ({
      policyUuid: input.params.uuid,
      input: endorseFromRest(bodyOf(input, EndorsementRequest)),
    }),
    toResponse: (d) => ({ status: 201, body: { data: endorsementToRest(d.endorsePolicy) } }),
    fieldNames,
    response: { status: 201, description: 'The pending endorsement, priced', schema: dataOf(ref('Endorsement')) },
    errors: ['validation_failed', 'not_found', 'invalid_state', 'domain_rule', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'confirmEndorsement',
    method: 'POST',
    path: '/policies/{uuid}/endorsements/{endorsement_uuid}/confirm',
    summary: 'Apply a pending endorsement: cover, a debit or credit note, policy totals; emits policy.endorsed',
    description:
      '409 invalid_state when it is not pending or the policy is not active; 409 preview_expired past its expires_at; 409 preview_stale when ' +
      'the policy changed (another endorsement, a cancellation …) since it was priced.',
    scopes: ['bind'],
    idempotent: true,
    operation: ConfirmEndorsementDocument,
    toVariables: ({ params }) => ({ uuid: params.endorsement_uuid, policyUuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: endorsementToRest(d.confirmEndorsement) } }),
    response: {
      status: 200,
      description: 'The confirmed endorsement with its note',
      schema: dataOf(ref('Endorsement')),
    },
    errors: ['not_found', 'invalid_state', 'preview_expired', 'preview_stale', 'domain_rule', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'discardEndorsement',
    method: 'POST',
    path: '/policies/{uuid}/endorsements/{endorsement_uuid}/discard',
    summary: 'Drop a pending endorsement',
    scopes: ['bind'],
    idempotent: true,
    operation: DiscardEndorsementDocument,
    toVariables: ({ params }) => ({ uuid: params.endorsement_uuid, policyUuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: endorsementToRest(d.discardEndorsement) } }),
    response: { status: 200, description: 'The discarded endorsement', schema: dataOf(ref('Endorsement')) },
    errors: ['not_found', 'invalid_state', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listEndorsements',
    method: 'GET',
    path: '/policies/{uuid}/endorsements',
    summary: "The policy's endorsements, previews included (the policy record lists only confirmed ones), newest first",
    scopes: ['read'],
    idempotent: false,
    operation: PolicyEndorsementsDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: d.policy.endorsements.map(endorsementToRest) } }),
    response: { status: 200, description: 'Endorsements', schema: dataOf(arr(ref('Endorsement'))) },
    errors: ['not_found'],
  }),
];
