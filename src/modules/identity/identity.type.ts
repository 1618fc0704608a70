import { type Principal, tokenRateLimit } from '../../auth/principal.ts';
import { builder } from '../../graphql/builder.ts';

interface IdentityShape {
  principal: Principal;
  requestId: string;
}

const IdentityClient = builder.objectRef<Principal['apiClient']>('IdentityClient').implement({
  fields: (t) => ({
    id: t.exposeString('clientId', { description: 'Public client id.' }),
    name: t.exposeString('name'),
    rateLimitPerMinute: t.int({
      description:
        "Requests per minute per token that apply to this client: its own limit, else the deployment's default (RATE_LIMIT_PER_MINUTE, 60 unless set).",
      // The limiter's own rule (src/http/rate-limits.ts): what is reported is what is enforced.
      resolve: (c, _a, ctx) => tokenRateLimit(c.rateLimitPerMinute, ctx.app.config),
    }),
  }),
});

const TenantRef = builder.objectRef<Principal['tenant']>('Tenant').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    type: t.exposeString('type'),
    paybill: t.exposeString('paybill'),
  }),
});

const ActorRef = builder.objectRef<NonNullable<Principal['actor']>>('Actor').implement({
  fields: (t) => ({
    id: t.exposeInt('userId'),
    name: t.exposeString('name'),
    role: t.exposeString('role'),
    code: t.exposeString('code', { nullable: true }),
    ownRecordsOnly: t.exposeBoolean('ownRecordsOnly'),
  }),
});

const TokenInfo = builder.objectRef<Principal['token']>('TokenInfo').implement({
  fields: (t) => ({
    expiresAt: t.field({ type: 'DateTime', resolve: (tok) => tok.expiresAt }),
    expiresIn: t.int({ resolve: (tok) => Math.max(0, Math.floor((tok.expiresAt.getTime() - Date.now()) / 1000)) }),
  }),
});

const IdentityRef = builder.objectRef<IdentityShape>('Identity').implement({
  description: 'Who is calling: the API client, its organisation, the granted scopes and the acting user.',
  fields: (t) => ({
    client: t.field({ type: IdentityClient, resolve: (i) => i.principal.apiClient }),
    tenant: t.field({ type: TenantRef, resolve: (i) => i.principal.tenant }),
    scopes: t.stringList({ resolve: (i) => [...i.principal.scopes].sort() }),
    actor: t.field({ type: ActorRef, nullable: true, resolve: (i) => i.principal.actor }),
    token: t.field({ type: TokenInfo, resolve: (i) => i.principal.token }),
    requestId: t.exposeString('requestId'),
  }),
});

builder.queryField('me', (t) =>
  t.field({
    type: IdentityRef,
    authScopes: { read: true },
    description: 'Connectivity check: the caller identity.',
    resolve: (_root, _args, ctx) => ({ principal: ctx.principal!, requestId: ctx.requestId }),
  }),
);
