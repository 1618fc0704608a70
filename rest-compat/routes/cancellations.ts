import type { SchemaObject } from 'openapi3-ts/oas31';
import { cancellationInputFromRest, cancellationRestSchemas, cancellationToRest } from '../mappers/cancellation.ts';
import { asObject, route, type RestRoute } from '../route.ts';
import { arr, dataOf, obj, ref } from '../schemas.ts';

const common = { tag: 'Policies', serviceOnly: true };
const writeErrors = ['not_found', 'validation_failed', 'invalid_state', 'actor_forbidden'] as const;

export const cancellationRoutes: RestRoute[] = [
  route({
    ...common,
    operationId: 'previewCancellation',
    method: 'POST',
    path: '/policies/{uuid}/cancellation',
    summary: 'Price a cancellation of an active policy: a quoted cancellation with the itemised refund (valid 72 hours)',
    scopes: ['bind'],
    idempotent: true,
    operation: 'PreviewCancellation',
    requestBody: ref('CancellationInput'),
    toVariables: ({ params, body }) => ({ policyUuid: params.uuid, input: cancellationInputFromRest(body) }),
    toResponse: (d) => ({ status: 201, body: { data: cancellationToRest(d.previewCancellation) } }),
    response: { status: 201, description: 'The quoted cancellation', schema: dataOf(ref('Cancellation')) },
    errors: [...writeErrors],
  }),
  route({
    ...common,
    operationId: 'confirmCancellation',
    method: 'POST',
    path: '/policies/{uuid}/cancellations/{cancellation_uuid}/confirm',
    summary: 'Confirm a quoted cancellation: credit note, refund to the client balance, policy cancelled, certificates cancelled',
    scopes: ['bind'],
    idempotent: true,
    operation: 'ConfirmCancellation',
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
    operation: 'DiscardCancellation',
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
    scopes: ['bind'],
    idempotent: true,
    operation: 'ReinstatePolicy',
    requestBody: ref('ReinstateInput'),
    toVariables: ({ params, body }) => {
      const note = asObject(body).note;
      return { policyUuid: params.uuid, note: note == null ? undefined : note };
    },
    toResponse: (d) => ({ status: 200, body: { data: cancellationToRest(d.reinstatePolicy) } }),
    response: { status: 200, description: 'The reversed cancellation (status reinstated) with the policy active again', schema: dataOf(ref('Cancellation')) },
    errors: [...writeErrors, 'double_insurance'],
  }),
  route({
    ...common,
    operationId: 'listCancellations',
    method: 'GET',
    path: '/policies/{uuid}/cancellations',
    summary: 'A policy\'s cancellations (previews included), newest first',
    scopes: ['read'],
    idempotent: false,
    operation: 'PolicyCancellations',
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: d.cancellations.map(cancellationToRest) } }),
    response: { status: 200, description: 'The cancellations', schema: obj({ data: arr(ref('Cancellation')) }) },
    errors: ['not_found'],
  }),
];

export const cancellationSchemas: Record<string, SchemaObject> = cancellationRestSchemas;
