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
  description: "The caller's organisation (tenant): every record read or written belongs to it.",
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The organisation code, unique.' }),
    name: t.exposeString('name', { description: 'The organisation name.' }),
    type: t.exposeString('type', { description: 'brokerage, agency, sacco or microfinance' }),
    paybill: t.exposeString('paybill', { description: 'The M-Pesa paybill number premiums are paid to.' }),
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
  description: 'The access token this request carried.',
  fields: (t) => ({
    expiresAt: t.field({ type: 'DateTime', description: 'When the token expires.', resolve: (tok) => tok.expiresAt }),
    expiresIn: t.int({
      description: 'Seconds until it expires (0 once expired).',
      resolve: (tok) => Math.max(0, Math.floor((tok.expiresAt.getTime() - Date.now()) / 1000)),
    }),
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
