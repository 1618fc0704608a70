import {
  ConfirmCancellationDocument,
  DiscardCancellationDocument,
  PolicyCancellationsDocument,
  PreviewCancellationDocument,
  ReinstatePolicyDocument,
} from '../generated/operations.ts';
import { cancellationInputFromRest, cancellationToRest } from '../mappers/cancellation.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { CancellationInput, ReinstateInput } from '../schemas/cancellation.ts';
import { arr, dataOf, obj, ref } from '../schemas/builders.ts';

const common = { tag: 'Policies', serviceOnly: true };
const writeErrors = ['not_found', 'validation_failed', 'invalid_state', 'actor_forbidden'] as const;

export const cancellationRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'previewCancellation',
    method: 'POST',
    path: '/policies/{uuid}/cancellation',
    summary:
      'Price a cancellation of an active policy: a quoted cancellation with the itemised refund (valid 72 hours)',
    description:
      'Changes nothing. effective_date is the first day without cover (default today, Nairobi), between the start (or the latest confirmed ' +
      'endorsement) and the day after the end. The refund: unearned basic premium Σ U(B, c) = B × days left / days in period per premium item, ' +
      "each percent levy's share term by term, flat duties (stamp duty) kept as non_refundable; the credit note total is applied to open debit " +
      "notes first (applied_to_debit_notes) and the rest goes to the client's credit balance (refund_to_client), or, when a premium-finance loan paid " +
      'the premium (refund_payee lender), to the lender (refund_to_lender). A policy that is not active: 409 invalid_state.',
    scopes: ['bind'],
    idempotent: true,
    operation: PreviewCancellationDocument,
    requestBody: CancellationInput,
    parseBody: true,
    toVariables: (input) => ({
      policyUuid: input.params.uuid,
      input: cancellationInputFromRest(bodyOf(input, CancellationInput)),
    }),
    toResponse: (d) => ({ status: 201, body: { data: cancellationToRest(d.previewCancellation) } }),
    response: { status: 201, description: 'The quoted cancellation', schema: dataOf(ref('Cancellation')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'confirmCancellation',
    method: 'POST',
    path: '/policies/{uuid}/cancellations/{cancellation_uuid}/confirm',
    summary:
      'Confirm a quoted cancellation: credit note, refund to the client balance (or the lender), policy cancelled, certificates cancelled',
    description:
      'Refused when the cancellation is not quoted (409 invalid_state), past expires_at (409 preview_expired) or priced before the policy last ' +
      'changed (409 preview_stale: an endorsement, cancellation or reinstatement since). Emits policy.cancelled; the registry cancellations run as jobs ' +
      '(refused after 24 hours from issue: the certificate becomes cancel_refused).',
    scopes: ['bind'],
    idempotent: true,
    operation: ConfirmCancellationDocument,
    toVariables: ({ params }) => ({ uuid: params.cancellation_uuid, policyUuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: cancellationToRest(d.confirmCancellation) } }),
    response: { status: 200, description: 'The confirmed cancellation', schema: dataOf(ref('Cancellation')) },
    errors: [...writeErrors, 'preview_stale', 'preview_expired'],
  }),
  route({
    ...common,
    operationId: 'discardCancellation',
    method: 'POST',
    path: '/policies/{uuid}/cancellations/{cancellation_uuid}/discard',
    summary: 'Drop a quoted cancellation',
    scopes: ['bind'],
    idempotent: true,
    operation: DiscardCancellationDocument,
    toVariables: ({ params }) => ({ uuid: params.cancellation_uuid, policyUuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: cancellationToRest(d.discardCancellation) } }),
    response: { status: 200, description: 'The discarded cancellation', schema: dataOf(ref('Cancellation')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'reinstatePolicy',
    method: 'POST',
    path: '/policies/{uuid}/reinstate',
    summary: 'Reverse the latest confirmed cancellation within 30 days of its confirmation',
    description:
      "Restores the premium items, undoes the credit note's applications to debit notes, takes the refund back from the client's credit as far as " +
      "the balance allows, and raises a reinstatement debit note DN-<policy>-R<n> for the credit note's amount, credited with what was applied and " +
      'recovered. The policy is active again (policy.reinstated) and its certificates are issued again as a new series. Outside the window, or for a ' +
      'policy that is not cancelled: 409 invalid_state; a vehicle insured on another policy since: 409 double_insurance.',
    scopes: ['bind'],
    idempotent: true,
    operation: ReinstatePolicyDocument,
    requestBody: ReinstateInput,
    parseBody: true,
    toVariables: (input) => {
      const { note } = bodyOf(input, ReinstateInput);
      return { policyUuid: input.params.uuid, note: note ?? undefined };
    },
    toResponse: (d) => ({ status: 200, body: { data: cancellationToRest(d.reinstatePolicy) } }),
    response: {
      status: 200,
      description: 'The reversed cancellation (status reinstated) with the policy active again',
      schema: dataOf(ref('Cancellation')),
    },
    errors: [...writeErrors, 'double_insurance'],
  }),
  route({
    ...common,
    operationId: 'listCancellations',
    method: 'GET',
    path: '/policies/{uuid}/cancellations',
    summary:
      "A policy's cancellations, previews included (the policy record lists only those that took effect), newest first",
    scopes: ['read'],
    idempotent: false,
    operation: PolicyCancellationsDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: d.cancellations.map(cancellationToRest) } }),
    response: { status: 200, description: 'The cancellations', schema: obj({ data: arr(ref('Cancellation')) }) },
    errors: ['not_found'],
  }),
];
