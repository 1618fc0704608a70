import {
  ApiClientDocument,
  ApiClientsDocument,
  CreateApiClientDocument,
  IssueAgentKeyDocument,
  RevokeApiClientDocument,
  RotateApiClientSecretDocument,
  UpdateApiClientDocument,
} from '../generated/operations.ts';
import { agentKeyToRest, apiClientToRest, apiClientWithSecretToRest } from '../mappers/api-client.ts';
import { redactSecret } from '../mappers/replay.ts';
import { type AnyRoute, bodyOf, intParam, route } from '../route.ts';
import { bodyObject } from '../schemas/inputs.ts';
import {
  agentKeyResponse,
  apiClientSecretResponse,
  createApiClientBody,
  rotateSecretBody,
  updateApiClientBody,
} from '../schemas/api-client.ts';
import { arr, dataOf, ref } from '../schemas/builders.ts';

const common = { tag: 'API clients', serviceOnly: true, scopes: ['admin' as const] };

export const apiClientRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listApiClients',
    method: 'GET',
    path: '/api-clients',
    summary: "List the organisation's API clients",
    idempotent: false,
    operation: ApiClientsDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.apiClients.map(apiClientToRest) } }),
    response: { status: 200, description: 'API clients', schema: dataOf(arr(ref('ApiClient'))) },
    errors: [],
  }),
  route({
    ...common,
    operationId: 'createApiClient',
    method: 'POST',
    path: '/api-clients',
    summary: 'Create an API client (the secret is shown once)',
    idempotent: true,
    operation: CreateApiClientDocument,
    requestBody: bodyObject(createApiClientBody),
    parseBody: true,
    toVariables: (input) => {
      const x = bodyOf(input, createApiClientBody);
      return {
        input: {
          name: x.name,
          scopes: x.scopes,
          actorUserId: x.actor_user_id,
          rateLimitPerMinute: x.rate_limit_per_minute,
        },
      };
    },
    toResponse: (d) => ({ status: 201, body: apiClientWithSecretToRest(d.createApiClient) }),
    redactForReplay: (b) => redactSecret(b, 'client_secret'),
    response: { status: 201, description: 'Created', schema: apiClientSecretResponse },
    errors: ['validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getApiClient',
    method: 'GET',
    path: '/api-clients/{client_id}',
    summary: 'Read an API client',
    idempotent: false,
    operation: ApiClientDocument,
    toVariables: ({ params }) => ({ clientId: params.client_id }),
    toResponse: (d) => ({ status: 200, body: { data: apiClientToRest(d.apiClient) } }),
    response: { status: 200, description: 'API client', schema: dataOf(ref('ApiClient')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'updateApiClient',
    method: 'PATCH',
    path: '/api-clients/{client_id}',
    summary: 'Change name, scopes, acting user or rate limit (scope removals bind issued tokens at once)',
    idempotent: true,
    operation: UpdateApiClientDocument,
    requestBody: bodyObject(updateApiClientBody),
    parseBody: true,
    toVariables: (input) => {
      const x = bodyOf(input, updateApiClientBody);
      return {
        input: {
          clientId: input.params.client_id,
          name: x.name,
          scopes: x.scopes,
          actorUserId: x.actor_user_id,
          rateLimitPerMinute: x.rate_limit_per_minute,
        },
      };
    },
    toResponse: (d) => ({ status: 200, body: { data: apiClientToRest(d.updateApiClient) } }),
    response: { status: 200, description: 'Updated', schema: dataOf(ref('ApiClient')) },
    errors: ['not_found', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'rotateApiClientSecret',
    method: 'POST',
    path: '/api-clients/{client_id}/rotate-secret',
    summary: 'Rotate the secret; the previous one keeps working for grace_hours',
    idempotent: true,
    operation: RotateApiClientSecretDocument,
    requestBody: bodyObject(rotateSecretBody),
    parseBody: true,
    toVariables: (input) => ({
      clientId: input.params.client_id,
      graceHours: bodyOf(input, rotateSecretBody).grace_hours,
    }),
    toResponse: (d) => ({ status: 200, body: apiClientWithSecretToRest(d.rotateApiClientSecret) }),
    redactForReplay: (b) => redactSecret(b, 'client_secret'),
    response: { status: 200, description: 'Rotated', schema: apiClientSecretResponse },
    errors: ['not_found', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'revokeApiClient',
    method: 'POST',
    path: '/api-clients/{client_id}/revoke',
    summary: 'Revoke a client and every token it holds',
    idempotent: true,
    operation: RevokeApiClientDocument,
    toVariables: ({ params }) => ({ clientId: params.client_id }),
    toResponse: (d) => ({ status: 200, body: { data: apiClientToRest(d.revokeApiClient) } }),
    response: { status: 200, description: 'Revoked', schema: dataOf(ref('ApiClient')) },
    errors: ['not_found', 'actor_forbidden', 'domain_rule'],
  }),
  route({
    ...common,
    tag: 'Agents',
    operationId: 'issueAgentKey',
    method: 'POST',
    path: '/sales-people/{id}/agent-key',
    summary: 'Issue a new agent key (shown once) for X-Agent-Key; replaces any earlier key',
    idempotent: true,
    operation: IssueAgentKeyDocument,
    toVariables: ({ params }) => ({ userId: intParam(params.id) }),
    // The path names it `id` (an outside check saw `/sales-people/004/agent-key` refused on `user_id`).
    fieldNames: { user_id: 'id' },
    toResponse: (d) => ({ status: 201, body: agentKeyToRest(d.issueAgentKey) }),
    redactForReplay: (b) => redactSecret(b, 'key'),
    response: { status: 201, description: 'Issued', schema: agentKeyResponse },
    errors: ['not_found', 'actor_forbidden', 'domain_rule', 'validation_failed'],
  }),
];
