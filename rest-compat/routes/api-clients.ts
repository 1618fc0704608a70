import { asObject, intParam, route, type RestRoute } from '../route.ts';
import { arr, dataOf, int, nullable, obj, ref, str, timestamp } from '../schemas.ts';

const apiClient = (c: any) => ({
  client_id: c.clientId,
  name: c.name,
  scopes: c.scopes,
  rate_limit_per_minute: c.rateLimitPerMinute,
  actor_user_id: c.actorUser?.databaseId ?? null,
  created_by_user_id: c.createdBy?.databaseId ?? null,
  revoked_at: c.revokedAt,
  secret_rotated_at: c.secretRotatedAt,
  previous_secret_expires_at: c.previousSecretExpiresAt,
  created_at: c.createdAt,
});

const REPLAY_NOTE = 'Replayed response: the secret was shown once, in the first response to this Idempotency-Key.';
const withSecret = (p: any) => ({ data: { ...apiClient(p.apiClient), client_secret: p.clientSecret } });
const redactSecret = (b: any) => ({ ...b, data: { ...b.data, client_secret: null }, replay_note: REPLAY_NOTE });

export const apiClientSchemas = {
  ApiClient: obj({
    client_id: str('Public client id'),
    name: str(),
    scopes: arr(str()),
    rate_limit_per_minute: int(),
    actor_user_id: nullable(int()),
    created_by_user_id: nullable(int()),
    revoked_at: nullable(timestamp()),
    secret_rotated_at: nullable(timestamp()),
    previous_secret_expires_at: nullable(timestamp()),
    created_at: timestamp(),
  }),
};

const secretResponse = obj(
  {
    data: {
      allOf: [ref('ApiClient'), obj({ client_secret: nullable(str('Shown once; null on an Idempotency-Key replay')) })],
    },
    replay_note: str('Present on a replayed response'),
  },
  ['data'],
);

const common = { tag: 'API clients', serviceOnly: true, scopes: ['admin' as const] };

export const apiClientRoutes: RestRoute[] = [
  route({
    ...common,
    operationId: 'listApiClients',
    method: 'GET',
    path: '/api-clients',
    summary: "List the organisation's API clients",
    idempotent: false,
    operation: 'ApiClients',
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.apiClients.map(apiClient) } }),
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
    operation: 'CreateApiClient',
    requestBody: obj(
      {
        name: str(),
        scopes: arr({ type: 'string', enum: ['read', 'quote', 'bind', 'crm', 'webhooks', 'admin'] }),
        actor_user_id: int('User the key acts as; default the creating user'),
        rate_limit_per_minute: int('Default 60'),
      },
      ['name', 'scopes'],
    ),
    toVariables: ({ body: b }) => {
      const x = asObject(b);
      return {
        input: {
          name: x.name,
          scopes: x.scopes,
          actorUserId: x.actor_user_id,
          rateLimitPerMinute: x.rate_limit_per_minute,
        },
      };
    },
    toResponse: (d) => ({ status: 201, body: withSecret(d.createApiClient) }),
    redactForReplay: redactSecret,
    response: { status: 201, description: 'Created', schema: secretResponse },
    errors: ['validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getApiClient',
    method: 'GET',
    path: '/api-clients/{client_id}',
    summary: 'Read an API client',
    idempotent: false,
    operation: 'ApiClient',
    toVariables: ({ params }) => ({ clientId: params.client_id }),
    toResponse: (d) => ({ status: 200, body: { data: apiClient(d.apiClient) } }),
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
    operation: 'UpdateApiClient',
    requestBody: obj({ name: str(), scopes: arr(str()), actor_user_id: int(), rate_limit_per_minute: int() }, []),
    toVariables: ({ params, body: b }) => {
      const x = asObject(b);
      return {
        input: {
          clientId: params.client_id,
          name: x.name,
          scopes: x.scopes,
          actorUserId: x.actor_user_id,
          rateLimitPerMinute: x.rate_limit_per_minute,
        },
      };
    },
    toResponse: (d) => ({ status: 200, body: { data: apiClient(d.updateApiClient) } }),
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
    operation: 'RotateApiClientSecret',
    requestBody: obj({ grace_hours: int('0–168, default 24') }, []),
    toVariables: ({ params, body: b }) => ({ clientId: params.client_id, graceHours: asObject(b).grace_hours }),
    toResponse: (d) => ({ status: 200, body: withSecret(d.rotateApiClientSecret) }),
    redactForReplay: redactSecret,
    response: { status: 200, description: 'Rotated', schema: secretResponse },
    errors: ['not_found', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'revokeApiClient',
    method: 'POST',
    path: '/api-clients/{client_id}/revoke',
    summary: 'Revoke a client and every token it holds',
    idempotent: true,
    operation: 'RevokeApiClient',
    toVariables: ({ params }) => ({ clientId: params.client_id }),
    toResponse: (d) => ({ status: 200, body: { data: apiClient(d.revokeApiClient) } }),
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
    operation: 'IssueAgentKey',
    toVariables: ({ params }) => ({ userId: intParam(params.id) }),
    toResponse: (d) => ({
      status: 201,
      body: {
        data: {
          user_id: d.issueAgentKey.agent.databaseId,
          code: d.issueAgentKey.agent.code,
          key: d.issueAgentKey.agentKey,
        },
      },
    }),
    redactForReplay: (b: any) => ({ ...b, data: { ...b.data, key: null }, replay_note: REPLAY_NOTE }),
    response: {
      status: 201,
      description: 'Issued',
      schema: obj(
        { data: obj({ user_id: int(), code: str(), key: nullable(str('Shown once')) }), replay_note: str() },
        ['data'],
      ),
    },
    errors: ['not_found', 'actor_forbidden', 'domain_rule', 'validation_failed'],
  }),
];
