import { builder } from '../../graphql/builder.ts';
import { ValidationError } from '../../lib/problem.ts';
import { apiClientService } from './api-client.service.ts';

interface SecretPayload {
  apiClient: { id: number };
  clientSecret: string;
}

const ApiClientSecretPayload = builder.objectRef<SecretPayload>('ApiClientSecretPayload').implement({
  description: 'An API client together with its new secret, which this answer alone shows.',
  fields: (t) => ({
    apiClient: t.prismaField({
      description: 'The API client created or rotated.',
      type: 'ApiClient',
      resolve: (query, p, _a, ctx) => apiClientService.byId(ctx, p.apiClient.id, query),
    }),
    clientSecret: t.exposeString('clientSecret', { description: 'Shown once. Store it now: only a hash is kept.' }),
  }),
});

const CreateApiClientInput = builder.inputType('CreateApiClientInput', {
  description: 'A new API client: its name, scopes, acting user and rate limit.',
  fields: (t) => ({
    name: t.string({ description: 'A name for the client (1–100 characters, trimmed).', required: true }),
    scopes: t.stringList({
      description: 'At least one of read, quote, bind, crm, webhooks, admin; duplicates are dropped.',
      required: true,
    }),
    actorUserId: t.int({ description: 'User the key acts as; defaults to the creating user.' }),
    rateLimitPerMinute: t.int({
      description:
        "Requests per minute per token (1–100000), this client's own limit; omitted or null: it follows the deployment's default (RATE_LIMIT_PER_MINUTE, 60 unless set), including later changes of it.",
    }),
  }),
});

const UpdateApiClientInput = builder.inputType('UpdateApiClientInput', {
  description: 'Changes to an API client; omitted or null fields stay as they are (but rateLimitPerMinute).',
  fields: (t) => ({
    clientId: t.string({ description: 'The client_id of the API client to change.', required: true }),
    name: t.string({ description: 'A new name (1–100 characters, trimmed); omitted: unchanged.' }),
    scopes: t.stringList({ description: 'Replaces the scopes; tokens already issued lose removed scopes at once.' }),
    actorUserId: t.int({ description: 'An active user of the organisation the key then acts as; omitted: unchanged.' }),
    rateLimitPerMinute: t.int({
      description:
        "Sets the client's own per-minute limit (1–100000); null: removes it, so the client follows the deployment's default; omitted: unchanged.",
    }),
  }),
});

/** Expected failures are typed results: `<Mutation>Result = <Payload> | ValidationProblem`. */
const errors = (name: string) => ({
  types: [ValidationError],
  directResult: true as const,
  union: { name: `${name}Result` },
});

builder.mutationFields((t) => ({
  createApiClient: t.field({
    description: 'A new API client (key) with its scopes; its secret is shown once, in this answer only. Scope admin.',
    type: ApiClientSecretPayload,
    authScopes: { admin: true },
    errors: errors('CreateApiClient'),
    args: {
      input: t.arg({
        description: 'Name, scopes and acting user of the new API client.',
        type: CreateApiClientInput,
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => apiClientService.create(ctx, input),
  }),
  updateApiClient: t.prismaField({
    description:
      "Renames an API client or changes its scopes or acting user; its tokens' scopes follow at once. Scope admin.",
    type: 'ApiClient',
    authScopes: { admin: true },
    errors: errors('UpdateApiClient'),
    args: {
      input: t.arg({
        description: 'The client_id and the fields to change.',
        type: UpdateApiClientInput,
        required: true,
      }),
    },
    resolve: (_q, _r, { input }, ctx) => {
      const { clientId, ...patch } = input;
      return apiClientService.update(ctx, clientId, patch);
    },
  }),
  rotateApiClientSecret: t.field({
    description:
      'A new secret for an API client, shown once; the previous one stays valid for grace_hours (default 24).',
    type: ApiClientSecretPayload,
    authScopes: { admin: true },
    errors: errors('RotateApiClientSecret'),
    args: {
      clientId: t.arg.string({ description: 'The client_id of the API client.', required: true }),
      graceHours: t.arg.int({ description: 'How long the previous secret keeps working (0–168 h).' }),
    },
    resolve: (_r, args, ctx) => apiClientService.rotateSecret(ctx, args.clientId, args.graceHours),
  }),
  revokeApiClient: t.prismaField({
    description: 'Revokes an API client and every token it holds, at once. Scope admin.',
    type: 'ApiClient',
    authScopes: { admin: true },
    args: { clientId: t.arg.string({ description: 'The client_id of the API client.', required: true }) },
    resolve: (_q, _r, args, ctx) => apiClientService.revoke(ctx, args.clientId),
  }),
}));

const AgentKeyPayload = builder.objectRef<{ agent: { id: number }; agentKey: string }>('AgentKeyPayload').implement({
  description: 'An agent together with its new agent key, which this answer alone shows.',
  fields: (t) => ({
    agent: t.prismaField({
      description: 'The agent the key was issued to.',
      type: 'User',
      resolve: (query, p, _a, ctx) => apiClientService.agentById(ctx, p.agent.id, query),
    }),
    agentKey: t.exposeString('agentKey', { description: 'Shown once; send as X-Agent-Key with X-Agent-Code.' }),
  }),
});

builder.mutationField('issueAgentKey', (t) =>
  t.field({
    type: AgentKeyPayload,
    authScopes: { admin: true },
    description: 'Issues a new key for an agent, replacing any earlier key.',
    args: { userId: t.arg.int({ description: 'The agent user (databaseId) to issue a key for.', required: true }) },
    resolve: (_r, args, ctx) => apiClientService.issueAgentKey(ctx, args.userId),
  }),
);
