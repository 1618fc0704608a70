/**
 * OWASP API5:2023 Broken Function Level Authorization.
 *
 * The attack: call an operation your key was never meant to call — an organisation setting with a read-only key, a
 * webhook log as an agent, a write with a key that only prices — through whichever door is least guarded (a GraphQL
 * root field, a subscription, a nested relation). The defence: every root field declares its scopes (and `staff` where
 * agents are excluded) and every record type declares its rule once (src/graphql/access.ts). This file holds the
 * declared matrix: it fails when a root field or a database-backed type is added without a rule here.
 */
import {
  type DocumentNode,
  getNamedType,
  getNullableType,
  type GraphQLArgument,
  GraphQLEnumType,
  type GraphQLField,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  isCompositeType,
  parse,
  subscribe,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.ts';
import { schema } from '../../src/graphql/schema.ts';
import { useKit } from '../kit.ts';

/** Who may call each root field: any one of `scopes`, and with `staff` never an agent. */
interface Rule {
  scopes: string[];
  staff?: true;
}
const any = (...scopes: string[]): Rule => ({ scopes });
const staffOnly = (...scopes: string[]): Rule => ({ scopes, staff: true });
const AUTHENTICATED = ['read', 'quote', 'bind', 'crm', 'webhooks', 'admin'];

const QUERY: Record<string, Rule> = {
  me: any('read'),
  node: any(...AUTHENTICATED),
  nodes: any(...AUTHENTICATED),
  insurers: any('read'),
  branches: any('read'),
  businessSources: any('read'),
  prospectTypes: any('read'),
  riskManagers: any('read'),
  salesPeople: any('read'),
  // A live organisation's callers get 403 sandbox_only past these rules (test/sandbox-clock.test.ts).
  sandboxClock: any('read'),
  levies: any('read'),
  motorBenefits: any('read'),
  products: any('read'),
  eventCatalogue: any('read'),
  // The event history: the ServiceEvent type's own scopes; an agent sees only events about its records.
  events: any('read', 'webhooks'),
  event: any('read', 'webhooks'),
  clients: any('read'),
  client: any('read'),
  clientBalance: any('read'),
  policies: any('read'),
  policy: any('read'),
  // The dashboard's aggregates (src/http/pages/dashboard.ts): read as the lists they count, an agent's reach only.
  policyCounts: any('read'),
  collectionsSummary: any('read'),
  renewalsDue: any('read'),
  cancellations: any('read'),
  receipts: any('read'),
  receipt: any('read'),
  stkPushStatus: any('read'),
  certificate: any('read'),
  checkCertificate: any('read'),
  motorQuote: any('quote'),
  medicalQuote: any('quote'),
  travelQuote: any('quote'),
  standardQuote: any('quote'),
  // Premium finance (a SACCO or microfinance token is refused with ipf_not_offered after the scope): the quote prices
  // as the motor quote does; the panel is reference data for quoting; loans are read as policies are.
  ipfQuote: any('quote'),
  ipfLenders: any('read', 'quote'),
  ipfLoans: any('read', 'bind'),
  ipfLoan: any('read', 'bind'),
  ipfApplications: any('read', 'bind'),
  ipfApplication: any('read', 'bind'),
  // Claims and prospects are read by an integration that services them (`read`) or by a CRM key (`crm`).
  claims: any('read', 'crm'),
  claimCounts: any('read', 'crm'),
  claim: any('read', 'crm'),
  claimCauses: any('read', 'crm'),
  claimChecklist: any('read', 'crm'),
  claimDocumentFile: any('read', 'crm'),
  claimPayments: any('read', 'crm'),
  claimPayment: any('read', 'crm'),
  prospects: any('read', 'crm'),
  prospect: any('read', 'crm'),
  prospectFollowUps: any('read', 'crm'),
  // The SMS outbox holds every client's number and what was said: staff only, like the audit trail.
  smsMessages: staffOnly('read', 'crm'),
  smsMessage: staffOnly('read', 'crm'),
  smsBalance: staffOnly('read', 'crm'),
  smsSenderIds: staffOnly('read', 'crm'),
  smsTemplates: staffOnly('read', 'crm'),
  // The simulated gateway's handset inspection shows one-time codes in full: the admin's, and simulator only.
  simulatorHandsetMessages: staffOnly('admin'),
  // The ERP exports are the organisation's whole book: staff only, scope read (docs/erp-exports.md "ERP exports").
  erpClients: staffOnly('read'),
  erpPolicies: staffOnly('read'),
  erpClaims: staffOnly('read'),
  erpReceipts: staffOnly('read'),
  erpCreditNotes: staffOnly('read'),
  apiClients: staffOnly('admin'),
  apiClient: staffOnly('admin'),
  auditLog: staffOnly('admin'),
  webhookEndpoints: staffOnly('webhooks'),
  webhookEndpoint: staffOnly('webhooks'),
  // The client area's signed-in client (the customer check, 401 invalid_client_key, comes after the scope).
  viewer: any('read'),
};
const MUTATION: Record<string, Rule> = {
  createClient: any('crm'),
  updateClient: any('crm'),
  saveMotorQuote: any('quote', 'bind'),
  bindMotorPolicy: any('bind'),
  saveMedicalQuote: any('quote', 'bind'),
  saveTravelQuote: any('quote', 'bind'),
  saveStandardQuote: any('quote', 'bind'),
  bindMedicalPolicy: any('bind'),
  bindTravelPolicy: any('bind'),
  bindStandardPolicy: any('bind'),
  initiateStkPush: any('bind'),
  // Premium finance: the early settlement prompts the phone for the payoff, as a payment does (bind).
  settleIpfLoanEarly: any('bind'),
  // Applications are written by whoever sells the policy (ability policies.create: agents too, on policies in reach).
  createIpfApplication: any('bind'),
  submitIpfApplication: any('bind'),
  cancelIpfApplication: any('bind'),
  requestIpfSigningCode: any('bind'),
  signIpfApplication: any('bind'),
  endorsePolicy: any('bind'),
  confirmEndorsement: any('bind'),
  discardEndorsement: any('bind'),
  previewCancellation: any('bind'),
  confirmCancellation: any('bind'),
  discardCancellation: any('bind'),
  reinstatePolicy: any('bind'),
  renewalQuote: any('bind'),
  renewPolicy: any('bind'),
  issueCertificates: any('bind'),
  cancelCertificate: any('bind'),
  // Ability claims.register (agents too): register, upload a document.
  registerClaim: any('crm'),
  uploadClaimDocument: any('crm'),
  // Ability claims.manage (admin, account_exec; never an agent): the handling commands. moveClaim's sample moves to
  // `approved`, a claims.manage move (a withdrawal is claims.register, open to agents: claims.test.ts).
  moveClaim: staffOnly('crm'),
  adjustClaimReserve: staffOnly('crm'),
  appointClaimAssessor: staffOnly('crm'),
  recordClaimAssessment: staffOnly('crm'),
  approveClaim: staffOnly('crm'),
  repudiateClaim: staffOnly('crm'),
  reopenClaim: staffOnly('crm'),
  updateClaim: staffOnly('crm'),
  markClaimDocument: staffOnly('crm'),
  payClaim: staffOnly('crm'),
  // Ability prospects.write (agents too).
  createProspect: any('crm'),
  updateProspect: any('crm'),
  addProspectNote: any('crm'),
  convertProspect: any('crm'),
  // Ability sms.send (admin, account_exec; never an agent); sms.manage (admin) under the admin scope.
  sendSms: staffOnly('crm'),
  createSmsSenderId: staffOnly('admin'),
  updateSmsSenderId: staffOnly('admin'),
  topUpSms: staffOnly('admin'),
  saveSmsTemplate: staffOnly('admin'),
  rotateMpesaCallbackToken: staffOnly('admin'),
  // Ability sandbox.clock (admin).
  advanceSandboxClock: staffOnly('admin'),
  createApiClient: staffOnly('admin'),
  updateApiClient: staffOnly('admin'),
  rotateApiClientSecret: staffOnly('admin'),
  revokeApiClient: staffOnly('admin'),
  issueAgentKey: staffOnly('admin'),
  createWebhookEndpoint: staffOnly('webhooks'),
  updateWebhookEndpoint: staffOnly('webhooks'),
  deleteWebhookEndpoint: staffOnly('webhooks'),
  rotateWebhookSecret: staffOnly('webhooks'),
  sendTestWebhook: staffOnly('webhooks'),
  retryWebhookDelivery: staffOnly('webhooks'),
  // The client area: sign-in writes codes, keys and clients (crm); the viewer's writes take the scope of the same
  // write elsewhere (contact and claims crm, a payment prompt bind). Agents too: the customer check follows.
  requestClientOtp: any('crm'),
  verifyClientOtp: any('crm'),
  registerClientAreaClient: any('crm'),
  updateViewerContact: any('crm'),
  viewerPay: any('bind'),
  viewerRegisterClaim: any('crm'),
};
const SUBSCRIPTION: Record<string, Rule> = {
  events: any('read'),
  paymentReceived: any('read'),
  policyActivated: any('read'),
  auditLogged: staffOnly('admin'),
  claimMoved: any('read'),
};

interface Actor {
  token?: string;
  headers?: Record<string, string>;
  scopes: string[];
  agent: boolean;
  /** A refusal that comes before any operation-level rule. */
  refusedAs?: string;
}

const FAST = { rateLimitPerMinute: 1_000_000 };
const t = useKit();
const api = t.api;
const org = t.useOrg({ clientOverrides: { staff: FAST, agent: FAST, readonly: FAST, admin: FAST } });
const [suspended, other] = t.useOrgs(2, { clientOverrides: { staff: FAST }, tokens: ['staff'] });
const actors: Record<string, Actor> = {};

function expected(rule: Rule, a: Actor): string {
  if (a.refusedAs) return a.refusedAs;
  if (!rule.scopes.some((s) => a.scopes.includes(s))) return 'insufficient_scope';
  if (rule.staff && a.agent) return 'actor_forbidden';
  return 'allowed';
}

/** A harmless value of an input type: every required field filled, ids that match nothing. */
function sample(type: GraphQLInputType): unknown {
  const inner = getNullableType(type);
  if (inner instanceof GraphQLList) return [];
  if (inner instanceof GraphQLEnumType) return inner.getValues()[0].value;
  if (inner instanceof GraphQLInputObjectType) {
    return Object.fromEntries(
      Object.values(inner.getFields())
        .filter((f) => f.type instanceof GraphQLNonNull)
        .map((f) => [f.name, sample(f.type)]),
    );
  }
  const name = inner.name;
  const values: Record<string, unknown> = {
    Int: 987654321,
    Float: 1.5,
    Boolean: false,
    Date: '2026-01-01',
    DateTime: '2026-01-01T00:00:00Z',
    Cents: 100,
    Shillings: 100,
    JSON: {},
  };
  // A well-formed global id of a record that does not exist, so node(id:) reaches its authorization.
  values.ID = Buffer.from('Policy:987654321').toString('base64');
  return values[name] ?? 'zz-no-such-thing';
}

function operationFor(
  kind: 'query' | 'mutation' | 'subscription',
  field: GraphQLField<unknown, unknown>,
): { text: string; variables: Record<string, unknown> } {
  const required = field.args.filter((a: GraphQLArgument) => a.type instanceof GraphQLNonNull);
  const decl = required.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const call = required.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
  return {
    text: `${kind}${decl ? `(${decl})` : ''} { ${field.name}${call ? `(${call})` : ''}${selection} }`,
    variables: Object.fromEntries(required.map((a) => [a.name, sample(a.type)])),
  };
}

const AUTH_CODES = new Set([
  'unauthenticated',
  'invalid_token',
  'tenant_inactive',
  'insufficient_scope',
  'actor_forbidden',
]);
const outcome = (errors: { extensions?: { code?: string } }[] | undefined): string => {
  const code = errors?.map((e) => e.extensions?.code).find((c) => c && AUTH_CODES.has(c));
  return code ?? 'allowed';
};

beforeAll(async () => {
  const agent2 = org.agents.find((a) => a.userId === org.users.agent2.id)!;
  const staffScopes = ['read', 'quote', 'bind', 'crm', 'webhooks'];
  Object.assign(actors, {
    anonymous: { scopes: [], agent: false, refusedAs: 'unauthenticated' },
    staff: {
      token: org.tokens.staff,
      scopes: staffScopes,
      agent: false,
    },
    agentKey: {
      token: org.tokens.agent,
      scopes: ['read', 'quote', 'bind', 'crm'],
      agent: true,
    },
    readonly: {
      token: org.tokens.readonly,
      scopes: ['read'],
      agent: false,
    },
    quoteOnly: {
      token: await api.token(org.clients.staff.clientId, org.clients.staff.secret, 'quote'),
      scopes: ['quote'],
      agent: false,
    },
    // A CRM integration without `read`: what `crm` alone opens (claims' and prospects' reads among them).
    crmOnly: {
      token: await api.token(org.clients.staff.clientId, org.clients.staff.secret, 'crm'),
      scopes: ['crm'],
      agent: false,
    },
    admin: {
      token: org.tokens.admin,
      scopes: ['read', 'admin'],
      agent: false,
    },
    // Another organisation's staff key: the same functions as ours (what it may reach of our records is API1's matrix).
    otherTenant: {
      token: other.tokens.staff,
      scopes: staffScopes,
      agent: false,
    },
    suspendedTenant: {
      token: suspended.tokens.staff,
      scopes: staffScopes,
      agent: false,
      refusedAs: 'tenant_inactive',
    },
  });
  actors.agentHeaders = {
    token: actors.staff.token,
    headers: { 'x-agent-code': agent2.code, 'x-agent-key': agent2.key },
    scopes: staffScopes,
    agent: true,
  };
  await t.db.system((tx) => tx.tenant.update({ where: { id: suspended.id }, data: { status: 'suspended' } }));
}, 60_000);

describe('OWASP API5:2023 Broken Function Level Authorization', () => {
  it('every root field of the schema has a declared rule here, and a scope rule in the schema', () => {
    for (const [type, table] of [
      [schema.getQueryType()!, QUERY],
      [schema.getMutationType()!, MUTATION],
      [schema.getSubscriptionType()!, SUBSCRIPTION],
    ] as const) {
      const fields = Object.values(type.getFields());
      expect(
        fields.map((f) => f.name).sort(),
        `${type.name} fields without a row in this matrix (or rows for removed fields)`,
      ).toEqual(Object.keys(table).sort());
      for (const f of fields)
        expect(f.extensions?.pothosOptions, `${type.name}.${f.name}`).toHaveProperty('authScopes');
    }
  });

  it('every database-backed type declares its one access rule, run on every path that reaches it', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!(type instanceof GraphQLObjectType) || !type.extensions?.pothosPrismaModel) continue;
      const o = type.extensions.pothosOptions as { authScopes?: unknown; runScopesOnType?: boolean };
      if (typeof o.authScopes !== 'function' || o.runScopesOnType !== true) missing.push(type.name);
    }
    expect(missing).toEqual([]);
  });

  for (const [kind, table] of [
    ['query', QUERY],
    ['mutation', MUTATION],
  ] as const) {
    for (const [name, rule] of Object.entries(table)) {
      it(`attack: every actor calls ${kind} ${name} → the declared answer`, async () => {
        const root = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
        const { text, variables } = operationFor(kind, root.getFields()[name]);
        const got: string[] = [];
        const want: string[] = [];
        for (const [actorName, a] of Object.entries(actors)) {
          const r = await api.gql(text, variables, { token: a.token, headers: a.headers });
          got.push(`${actorName}: ${outcome(r.body.errors)}`);
          want.push(`${actorName}: ${expected(rule, a)}`);
        }
        expect(got).toEqual(want);
      });
    }
  }

  for (const [name, rule] of Object.entries(SUBSCRIPTION)) {
    it(`attack: every actor subscribes to ${name} → the declared answer`, async () => {
      const { text, variables } = operationFor('subscription', schema.getSubscriptionType()!.getFields()[name]);
      const document: DocumentNode = parse(text);
      const got: string[] = [];
      const want: string[] = [];
      for (const [actorName, a] of Object.entries(actors)) {
        let result: string;
        try {
          const ctx = await createContext({
            app: t.app.services,
            transport: 'test',
            credentials: a.token
              ? {
                  authorization: `Bearer ${a.token}`,
                  agentCode: a.headers?.['x-agent-code'],
                  agentKey: a.headers?.['x-agent-key'],
                }
              : {},
          });
          const r = await subscribe({ schema, document, variableValues: variables, contextValue: ctx });
          if (Symbol.asyncIterator in r) {
            await r.return?.();
            result = 'allowed';
          } else {
            result = outcome(
              r.errors?.map((e) => ({
                extensions: {
                  code: (e.originalError as { code?: string } | undefined)?.code ?? (e.extensions?.code as string),
                },
              })),
            );
          }
        } catch (e) {
          result = (e as { code?: string }).code ?? 'error';
        }
        got.push(`${actorName}: ${result}`);
        want.push(`${actorName}: ${expected(rule, a)}`);
      }
      expect(got).toEqual(want);
    });
  }
});
