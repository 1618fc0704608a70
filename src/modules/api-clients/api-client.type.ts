import { tokenRateLimit } from '../../auth/principal.ts';
import { builder } from '../../graphql/builder.ts';
import { apiClientService } from './api-client.service.ts';
import { nodeAccess } from '../../graphql/access.ts';

/** Organisation settings: admins of the organisation only, never an agent. */
builder.prismaNode('ApiClient', {
  select: { id: true },
  description:
    "An API client (key) of the organisation: a client_id and secret that obtain bearer tokens with the client's scopes.",
  ...nodeAccess({ scopes: ['admin'], staffOnly: true }),
  id: { field: 'id' },
  fields: (t) => ({
    clientId: t.exposeString('clientId', {
      description: 'Public client id (send as client_id at the token endpoint).',
    }),
    name: t.exposeString('name', { description: 'The name the organisation gave the client (1–100 characters).' }),
    scopes: t.exposeStringList('scopes', {
      description: 'The scopes its tokens may carry (read, quote, bind, crm, webhooks, admin), sorted.',
    }),
    rateLimitPerMinute: t.int({
      select: { rateLimitPerMinute: true },
      description:
        "Requests per minute per token that apply to this client: its own limit (rateLimitOverride), else the deployment's default (RATE_LIMIT_PER_MINUTE, 60 unless set).",
      // The limiter's own rule (src/http/rate-limits.ts): what is reported is what is enforced.
      resolve: (c, _a, ctx) => tokenRateLimit(c.rateLimitPerMinute, ctx.app.config),
    }),
    rateLimitOverride: t.exposeInt('rateLimitPerMinute', {
      nullable: true,
      description: "The client's own per-minute limit; null when it follows the deployment's default.",
    }),
    actorUser: t.relation('actorUser', {
      description: 'The user calls made with this key act as; null: they act as the user who created it (createdBy).',
      nullable: true,
    }),
    createdBy: t.relation('createdByUser', {
      description: 'The user who created the client; null when it was created by the operator or seeded.',
      nullable: true,
    }),
    revokedAt: t.expose('revokedAt', {
      description: 'When the client and all its tokens were revoked; null while it is active.',
      type: 'DateTime',
      nullable: true,
    }),
    secretRotatedAt: t.expose('secretRotatedAt', {
      description: 'When the secret was last rotated; null when it never was.',
      type: 'DateTime',
      nullable: true,
    }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      description:
        'Until when the secret replaced by the last rotation still obtains tokens; null when there is no such grace period.',
      type: 'DateTime',
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When the client was created.', type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  apiClients: t.prismaField({
    type: ['ApiClient'],
    authScopes: { $all: { admin: true, staff: true } },
    description: "The organisation's API clients (secrets are never shown again).",
    resolve: (query, _r, _a, ctx) => apiClientService.list(ctx, query),
  }),
  apiClient: t.prismaField({
    description: 'One API client of the organisation by its client_id. Scope admin.',
    type: 'ApiClient',
    authScopes: { $all: { admin: true, staff: true } },
    args: { clientId: t.arg.string({ description: 'The client_id of the API client.', required: true }) },
    resolve: (query, _r, args, ctx) => apiClientService.get(ctx, args.clientId, query),
  }),
}));
