import { type Principal, tokenRateLimit } from '../../auth/principal.ts';
import { builder } from '../../graphql/builder.ts';

interface IdentityShape {
  principal: Principal;
  requestId: string;
}

const IdentityClient = builder.objectRef<Principal['apiClient']>('IdentityClient').implement({
  description: 'The API client (key) the bearer token was issued to.',
  fields: (t) => ({
    id: t.exposeString('clientId', { description: 'Public client id.' }),
    name: t.exposeString('name', { description: 'The name the organisation gave the API client.' }),
    rateLimitPerMinute: t.int({
      description:
        "Requests per minute per token that apply to this client: its own limit, else the deployment's default (RATE_LIMIT_PER_MINUTE, 60 unless set).",
      // The limiter's own rule (src/http/rate-limits.ts): what is reported is what is enforced.
      resolve: (c, _a, ctx) => tokenRateLimit(c.rateLimitPerMinute, ctx.app.config),
    }),
  }),
});

const TenantRef = builder.objectRef<Principal['tenant']>('Tenant').implement({
  description: 'The organisation (tenant) the API client belongs to; every record the token reaches is its own.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Short stable code of the organisation.' }),
    name: t.exposeString('name', { description: 'The name of the organisation.' }),
    type: t.exposeString('type', { description: 'Kind of organisation: brokerage, agency, sacco or microfinance.' }),
    paybill: t.exposeString('paybill', {
      description: 'The M-Pesa paybill number clients pay premiums to (the organisation’s collection account).',
    }),
  }),
});

const ActorRef = builder.objectRef<NonNullable<Principal['actor']>>('Actor').implement({
  description:
    "The user the call acts as: the agent named by the X-Agent-Code/X-Agent-Key headers, else the key's actor user, else the user who created the key.",
  fields: (t) => ({
    id: t.exposeInt('userId', { description: 'The REST id of the user (an integer).' }),
    name: t.exposeString('name', { description: 'Full name of the user.' }),
    role: t.exposeString('role', { description: 'The user role: admin, account_exec, agent or viewer.' }),
    code: t.exposeString('code', {
      description: 'The agent code (what X-Agent-Code expects); null for users who are not agents.',
      nullable: true,
    }),
    ownRecordsOnly: t.exposeBoolean('ownRecordsOnly', {
      description:
        'True when the actor is an agent: the call then sees only the clients, policies and claims within the agent’s reach (REST own_records_only).',
    }),
  }),
});

const TokenInfo = builder.objectRef<Principal['token']>('TokenInfo').implement({
  description: 'The bearer token used for this call.',
  fields: (t) => ({
    expiresAt: t.field({
      description: 'When the token stops being accepted.',
      type: 'DateTime',
      resolve: (tok) => tok.expiresAt,
    }),
    expiresIn: t.int({
      description: 'Whole seconds until the token expires (0 once expired); tokens live 24 hours by default.',
      resolve: (tok) => Math.max(0, Math.floor((tok.expiresAt.getTime() - Date.now()) / 1000)),
    }),
  }),
});

const IdentityRef = builder.objectRef<IdentityShape>('Identity').implement({
  description: 'Who is calling: the API client, its organisation, the granted scopes and the acting user.',
  fields: (t) => ({
    client: t.field({
      description: 'The API client the token was issued to.',
      type: IdentityClient,
      resolve: (i) => i.principal.apiClient,
    }),
    tenant: t.field({
      description: 'The organisation the API client belongs to.',
      type: TenantRef,
      resolve: (i) => i.principal.tenant,
    }),
    scopes: t.stringList({
      description: 'The scopes granted to the token (read, quote, bind, crm, webhooks, admin), sorted.',
      resolve: (i) => [...i.principal.scopes].sort(),
    }),
    actor: t.field({
      description: 'The user the call acts as; null when the key has no acting user.',
      type: ActorRef,
      nullable: true,
      resolve: (i) => i.principal.actor,
    }),
    token: t.field({
      description: 'The bearer token of this call.',
      type: TokenInfo,
      resolve: (i) => i.principal.token,
    }),
    requestId: t.exposeString('requestId', {
      description:
        'The id of this request (the X-Request-Id sent, when well-formed, else req_ and 32 hex digits; echoed as the X-Request-Id response header); quote it when reporting a problem.',
    }),
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
