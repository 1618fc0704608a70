/**
 * OWASP API1:2023 Broken Object Level Authorization.
 *
 * The attack: take the id of a record you may not see (another organisation's, another agent's, or an organisation
 * setting) and ask for it by every door the API has: REST, a GraphQL root field, `node(id:)`, `nodes(ids:)`, and a
 * nested relation. The defence: one access rule per GraphQL type (src/graphql/access.ts), run as the type's
 * isTypeOf, so every door asks the same question; REST runs the same GraphQL operations, so REST and GraphQL agree.
 * Claims and what hangs off them (documents, files, payments) follow src/modules/access/claim.visibility.ts, prospects
 * src/modules/access/prospect.visibility.ts.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Active, INSTANT_RAIL, useKit } from '../kit.ts';
import { approvedClaim, motorNotice, payClaim } from '../kit/approved-claim.ts';
import { createProspect, newPerson } from '../kit/prospects.ts';
import { signedLoan } from '../kit/ipf.ts';

/** 'ok', 'null', or the problem code seen. */
type Outcome = string;
interface Actor {
  token: string;
  headers?: Record<string, string>;
}

const FAST = { rateLimitPerMinute: 1_000_000 };
// Claims are registered on policies in force: the kit's activePolicy pays through the simulated rail (jobs on).
const t = useKit(INSTANT_RAIL, { jobs: true });
const api = t.api;
const o = t.useOrg({ clientOverrides: { staff: FAST, agent: FAST, readonly: FAST, admin: FAST } });
const org = o;
const [other, suspended] = t.useOrgs(2, { clientOverrides: { staff: FAST }, tokens: ['staff'] });
const actors: Record<string, Actor> = {};
/** Records of the organisation: A is the agent key's (agent1), B is staff's (out of every agent's reach). */
const ids: Record<string, string> = {};
let policyA: Active;
let policyB: Active;
/** A claim's uuid, a file uploaded to it, and a payment of another claim on the same policy by the same hand. */
interface ClaimFixture {
  uuid: string;
  file: string;
  paidClaim: string;
  payment: string;
}
const claims: Record<'A' | 'B', ClaimFixture> = {} as never;
const prospects: Record<'A' | 'B', string> = {} as never;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A first notice of loss on `pol` by `token`, a claim form uploaded by the same key, and a paid approved claim. */
async function claimOf(pol: Active, token: string, createdByUserId: number): Promise<ClaimFixture> {
  const r = await api.post('/claims', { token, body: motorNotice(pol), idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(201);
  const uuid: string = r.body.data.uuid;
  const up = await api.gql(
    `mutation($i: UploadClaimDocumentInput!) { uploadClaimDocument(input: $i) {
      __typename ... on UploadClaimDocumentPayload { file { id } } } }`,
    {
      i: {
        claimId: uuid,
        kind: 'claim_form',
        fileName: 'claim-form.pdf',
        contentType: 'application/pdf',
        contentBase64: Buffer.concat([PDF, Buffer.from(`% ${randomUUID()}\n`)]).toString('base64'),
      },
    },
    { token },
  );
  expect(up.body.errors, JSON.stringify(up.body)).toBeUndefined();
  expect(up.body.data.uploadClaimDocument.__typename).toBe('UploadClaimDocumentPayload');
  // Approval's own path is claims.test.ts's: the paid claim is written approved (kit/approved-claim.ts).
  const paid = await approvedClaim(o, pol.uuid, { net: 5_000_000n, createdByUserId });
  const pay = await payClaim(o, paid.uuid, {
    method: 'bank_transfer',
    amount: 1_000,
    payee_type: 'garage',
    payee_name: 'Kilimani Auto Repairs',
    bank_name: 'KCB',
    bank_account: '1100223344',
    bank_reference: `FT${randomUUID().slice(0, 8).toUpperCase()}`,
  });
  expect(pay.status, pay.text).toBe(201);
  return { uuid, file: up.body.data.uploadClaimDocument.file.id, paidClaim: paid.uuid, payment: pay.body.data.uuid };
}

async function nodeOutcome(actor: Actor, id: string): Promise<Outcome> {
  const r = await api.gql(
    'query($id: ID!) { node(id: $id) { id } }',
    { id },
    { token: actor.token, headers: actor.headers },
  );
  const err = r.body.errors?.[0];
  if (err) return err.extensions?.code ?? 'error';
  if (r.body.data?.node === null) return 'null';
  expect(r.body.data.node.id).toBe(id);
  return 'ok';
}

beforeAll(async () => {
  const agent2 = org.agents.find((a) => a.userId === org.users.agent2.id)!;
  Object.assign(actors, {
    staff: { token: o.tokens.staff },
    agentKey: { token: o.tokens.agent },
    agentHeaders: { token: o.tokens.staff, headers: { 'x-agent-code': agent2.code, 'x-agent-key': agent2.key } },
    readonly: { token: o.tokens.readonly },
    quoteOnly: { token: await api.token(org.clients.staff.clientId, org.clients.staff.secret, 'quote') },
    admin: { token: o.tokens.admin },
    otherTenant: { token: other.tokens.staff },
    suspendedTenant: { token: suspended.tokens.staff },
  });
  await t.db.system((tx) => tx.tenant.update({ where: { id: suspended.id }, data: { status: 'suspended' } }));

  policyA = await o.activePolicy({ token: o.tokens.agent });
  policyB = await o.activePolicy({ token: o.tokens.staff });
  claims.A = await claimOf(policyA, o.tokens.agent, org.users.agent1.id);
  claims.B = await claimOf(policyB, o.tokens.staff, org.users.exec.id);
  prospects.A = (await createProspect(o.as('agent'), { name: newPerson('Agent One Lead').name })).uuid;
  prospects.B = (await createProspect(o.as('staff'), { name: newPerson('Staff Lead').name })).uuid;
  const q = await api.gql(
    `query($a: String!, $b: String!, $ca: String!, $cb: String!, $pa: String!, $pb: String!) {
      a: policy(uuid: $a) { id client { id } } b: policy(uuid: $b) { id client { id } }
      ca: claim(uuid: $ca) { id } cb: claim(uuid: $cb) { id } pa: prospect(uuid: $pa) { id } pb: prospect(uuid: $pb) { id }
      insurers { id } branches { id } salesPeople { id } levies { id } products { standardProducts { id } }
    }`,
    {
      a: policyA.uuid,
      b: policyB.uuid,
      ca: claims.A.uuid,
      cb: claims.B.uuid,
      pa: prospects.A,
      pb: prospects.B,
    },
    { token: o.tokens.staff },
  );
  expect(q.body.errors).toBeUndefined();
  const d = q.body.data;
  Object.assign(ids, {
    policyA: d.a.id,
    clientA: d.a.client.id,
    policyB: d.b.id,
    clientB: d.b.client.id,
    claimA: d.ca.id,
    claimB: d.cb.id,
    prospectA: d.pa.id,
    prospectB: d.pb.id,
    insurer: d.insurers[0].id,
    branch: d.branches[0].id,
    staffMember: d.salesPeople[0].id,
    levy: d.levies[0].id,
    standardProduct: d.products.standardProducts[0].id,
  });
  const adm = await api.gql(
    '{ apiClients { id clientId } auditLog(first: 1) { edges { node { id } } } }',
    {},
    { token: actors.admin.token },
  );
  expect(adm.body.errors).toBeUndefined();
  ids.apiClient = adm.body.data.apiClients.find(
    (c: { clientId: string }) => c.clientId === org.clients.staff.clientId,
  ).id;
  ids.auditEntry = adm.body.data.auditLog.edges[0].node.id;
  const sms = await api.gql(
    'mutation { sendSms(input: { to: ["254712000001"], message: "api1" }) { ... on SmsMessage { id } } }',
    {},
    { token: o.tokens.staff },
  );
  expect(sms.body.errors).toBeUndefined();
  ids.smsMessage = sms.body.data.sendSms.id;
  // Premium-finance loans (src/modules/access/ipf.visibility.ts): A on a policy the agent key bound, B on staff's.
  const loans = [await signedLoan(o, { token: o.tokens.agent }), await signedLoan(o, { token: o.tokens.staff })];
  const l = await api.gql(
    'query($a: String!, $b: String!) { a: ipfLoan(uuid: $a) { id } b: ipfLoan(uuid: $b) { id } }',
    { a: loans[0].loan.uuid, b: loans[1].loan.uuid },
    { token: o.tokens.staff },
  );
  expect(l.body.errors).toBeUndefined();
  Object.assign(ids, { loanA: l.body.data.a.id, loanB: l.body.data.b.id });
  // Premium-finance applications (the same visibility): those loans' applications.
  const apps = await api.gql(
    'query($a: String!, $b: String!) { a: ipfApplication(uuid: $a) { id } b: ipfApplication(uuid: $b) { id } }',
    { a: loans[0].application.uuid, b: loans[1].application.uuid },
    { token: o.tokens.staff },
  );
  expect(apps.body.errors).toBeUndefined();
  Object.assign(ids, { applicationA: apps.body.data.a.id, applicationB: apps.body.data.b.id });
}, 120_000);

/**
 * The declared matrix: what each actor gets from `node(id:)` for each record. 'null' is "no such record" (a record
 * out of reach reads exactly like a missing id); a code is the refusal's extensions.code.
 */
const MATRIX: Record<string, Record<string, Outcome>> = {
  //               staff   agentKey agentHeaders readonly quoteOnly             admin  otherTenant suspendedTenant
  policyA: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  clientA: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  policyB: {
    staff: 'ok',
    agentKey: 'null',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  clientB: {
    staff: 'ok',
    agentKey: 'null',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  claimA: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  claimB: {
    staff: 'ok',
    agentKey: 'null',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  prospectA: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  prospectB: {
    staff: 'ok',
    agentKey: 'null',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  apiClient: {
    staff: 'insufficient_scope',
    agentKey: 'insufficient_scope',
    agentHeaders: 'insufficient_scope',
    readonly: 'insufficient_scope',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  // The outbox is staff only: an agent is refused the type whatever the record (as with the audit trail).
  smsMessage: {
    staff: 'ok',
    agentKey: 'actor_forbidden',
    agentHeaders: 'actor_forbidden',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  auditEntry: {
    staff: 'insufficient_scope',
    agentKey: 'insufficient_scope',
    agentHeaders: 'insufficient_scope',
    readonly: 'insufficient_scope',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  insurer: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'ok',
    readonly: 'ok',
    quoteOnly: 'ok',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  branch: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'ok',
    readonly: 'ok',
    quoteOnly: 'ok',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  staffMember: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'ok',
    readonly: 'ok',
    quoteOnly: 'ok',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  levy: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'ok',
    readonly: 'ok',
    quoteOnly: 'ok',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  standardProduct: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'ok',
    readonly: 'ok',
    quoteOnly: 'ok',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  // A loan is seen exactly as its policy (scopes read or bind).
  loanA: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  loanB: {
    staff: 'ok',
    agentKey: 'null',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  // An application is seen exactly as its policy (scopes read or bind).
  applicationA: {
    staff: 'ok',
    agentKey: 'ok',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
  applicationB: {
    staff: 'ok',
    agentKey: 'null',
    agentHeaders: 'null',
    readonly: 'ok',
    quoteOnly: 'insufficient_scope',
    admin: 'ok',
    otherTenant: 'null',
    suspendedTenant: 'tenant_inactive',
  },
};

describe('OWASP API1:2023 Broken Object Level Authorization', () => {
  it('the matrix covers every Node type of the schema', async () => {
    const r = await api.gql('{ __type(name: "Node") { possibleTypes { name } } }', {}, { token: o.tokens.staff });
    const nodeTypes = r.body.data.__type.possibleTypes.map((x: { name: string }) => x.name).sort();
    const covered = await Promise.all(
      Object.keys(MATRIX).map(
        async (k) =>
          (
            await api.gql(
              'query($id: ID!) { node(id: $id) { __typename } }',
              { id: ids[k] },
              { token: actors.admin.token },
            )
          ).body.data.node.__typename,
      ),
    );
    expect([...new Set(covered)].sort()).toEqual(nodeTypes);
  });

  for (const [record, row] of Object.entries(MATRIX)) {
    for (const [actor, expected] of Object.entries(row)) {
      it(`attack: ${actor} asks node(id:) for ${record} → ${expected}`, async () => {
        expect(await nodeOutcome(actors[actor], ids[record])).toBe(expected);
      });
    }
  }

  it('attack: nodes(ids:) batches every id — each entry gets the same answer as node(id:)', async () => {
    const keys = Object.keys(MATRIX);
    const r = await api.gql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: keys.map((k) => ids[k]) },
      { token: actors.agentKey.token },
    );
    const refusedPaths = new Map(
      (r.body.errors ?? []).map((e: { path: (string | number)[]; extensions: { code: string } }) => [
        e.path[1],
        e.extensions.code,
      ]),
    );
    keys.forEach((k, i) => {
      const expected = MATRIX[k].agentKey;
      const got = refusedPaths.get(i) ?? (r.body.data.nodes[i] === null ? 'null' : 'ok');
      expect(`${k}: ${got}`).toBe(`${k}: ${expected}`);
    });
  });

  it('attack: the agent key reads an audit entry by a guessed global id (the finding) — no data leaves', async () => {
    const guessed = Buffer.from('AuditEntry:1').toString('base64');
    const r = await api.gql(
      `{ node(id: "${guessed}") { ... on AuditEntry { changes } } }`,
      {},
      { token: actors.agentKey.token },
    );
    expect(r.body.data?.node ?? null).toBeNull();
    expect(JSON.stringify(r.body)).not.toMatch(/id_no|kra_pin|phone/);
  });

  it('attack: another agent follows nested relations and lists — the record is not there either', async () => {
    const h = actors.agentHeaders;
    const root = await api.gql(
      'query($u: String!) { policy(uuid: $u) { uuid } }',
      { u: policyA.uuid },
      { token: h.token, headers: h.headers },
    );
    expect(root.body.errors?.[0]?.extensions.code).toBe('not_found');
    const list = await api.gql(
      '{ policies(first: 100) { edges { node { uuid client { clientNo } } } } clients(first: 100) { edges { node { clientNo } } } }',
      {},
      { token: h.token, headers: h.headers },
    );
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.policies.edges.map((e: { node: { uuid: string } }) => e.node.uuid)).not.toContain(
      policyA.uuid,
    );
    expect(list.body.data.clients.edges.map((e: { node: { clientNo: string } }) => e.node.clientNo)).not.toContain(
      policyA.client_no,
    );
  });

  it('REST and GraphQL agree, record by record and actor by actor', async () => {
    for (const [actor, a] of Object.entries(actors)) {
      if (actor === 'suspendedTenant') continue;
      for (const [uuid, clientNo] of [
        [policyA.uuid, policyA.client_no],
        [policyB.uuid, policyB.client_no],
      ] as const) {
        const rest = [
          (await api.get(`/policies/${uuid}`, { token: a.token, headers: a.headers })).status,
          (await api.get(`/clients/${clientNo}`, { token: a.token, headers: a.headers })).status,
        ];
        const one = async (q: string, v: Record<string, string>) => {
          const c: string | undefined = (await api.gql(q, v, { token: a.token, headers: a.headers })).body.errors?.[0]
            ?.extensions.code;
          return c === undefined ? 200 : c === 'not_found' ? 404 : c === 'insufficient_scope' ? 403 : -1;
        };
        const graph = [
          await one('query($u: String!) { policy(uuid: $u) { uuid } }', { u: uuid }),
          await one('query($c: String!) { client(clientNo: $c) { clientNo } }', { c: clientNo }),
        ];
        expect(`${actor} ${uuid}: ${graph.join(',')}`).toBe(`${actor} ${uuid}: ${rest.join(',')}`);
      }
    }
  });

  it('attack: another agent and another organisation list claims and prospects — the records are not there', async () => {
    const hidden = {
      agentKey: [claims.B.uuid, claims.B.paidClaim, prospects.B],
      agentHeaders: [claims.A.uuid, claims.A.paidClaim, claims.B.uuid, claims.B.paidClaim, prospects.A, prospects.B],
      otherTenant: [claims.A.uuid, claims.A.paidClaim, claims.B.uuid, claims.B.paidClaim, prospects.A, prospects.B],
    };
    const own = { agentKey: [claims.A.uuid, claims.A.paidClaim, prospects.A], agentHeaders: [], otherTenant: [] };
    for (const [actor, gone] of Object.entries(hidden)) {
      const a = actors[actor];
      const g = await api.gql(
        `{ claims(first: 100) { edges { node { uuid } } } prospects(first: 100) { edges { node { uuid } } }
          prospectFollowUps(first: 100) { edges { node { uuid } } } }`,
        {},
        { token: a.token, headers: a.headers },
      );
      expect(g.body.errors, `${actor}: ${JSON.stringify(g.body.errors)}`).toBeUndefined();
      const rest = await Promise.all(
        ['/claims?limit=100', '/prospects?limit=100', '/prospects/follow-ups?limit=100'].map((path) =>
          api.get(path, { token: a.token, headers: a.headers }),
        ),
      );
      for (const r of rest) expect(r.status, `${actor}: ${r.text}`).toBe(200);
      const seen = [
        ...Object.values<{ edges: { node: { uuid: string } }[] }>(g.body.data).flatMap((c) =>
          c.edges.map((e) => e.node.uuid),
        ),
        ...rest.flatMap((r) => r.body.data.map((x: { uuid: string }) => x.uuid)),
      ];
      expect(
        seen.filter((u) => gone.includes(u)),
        actor,
      ).toEqual([]);
      // Not an empty answer by accident: the agent's own records are listed.
      for (const u of own[actor as keyof typeof own]) expect(seen, `${actor} sees its own ${u}`).toContain(u);
    }
    // The policy the agent reaches lists its claims; the claims of a policy out of reach are not reached through it.
    const viaPolicy = (u: string) =>
      api.gql('query($u: String!) { policy(uuid: $u) { claims { uuid } } }', { u }, { token: actors.agentKey.token });
    const a = await viaPolicy(policyA.uuid);
    expect(a.body.errors).toBeUndefined();
    expect(a.body.data.policy.claims.map((c: { uuid: string }) => c.uuid).sort()).toEqual(
      [claims.A.uuid, claims.A.paidClaim].sort(),
    );
    const b = await viaPolicy(policyB.uuid);
    expect(b.body.errors?.[0]?.extensions.code).toBe('not_found');
    expect(b.body.data?.policy ?? null).toBeNull();
  });

  it('attack: another organisation and the agents pull the ERP exports — none of these records; agents refused', async () => {
    const ours = [policyA.uuid, policyB.uuid, claims.A.uuid, claims.B.uuid, claims.A.paidClaim, claims.B.paidClaim];
    const a = actors.otherTenant;
    for (const [path, key] of [
      ['/erp/policies', 'policies'],
      ['/erp/claims', 'claims'],
    ]) {
      const r = await api.get(`${path}?per_page=1000`, { token: a.token });
      expect(r.status, r.text).toBe(200);
      expect(r.body[key].filter((x: { uuid: string }) => ours.includes(x.uuid))).toEqual([]);
    }
    const g = await api.gql(
      '{ erpPolicies(perPage: 1000) { records { uuid } } erpClaims(perPage: 1000) { records { uuid } } }',
      {},
      { token: a.token },
    );
    expect(g.body.errors).toBeUndefined();
    const seen = [...g.body.data.erpPolicies.records, ...g.body.data.erpClaims.records].map(
      (x: { uuid: string }) => x.uuid,
    );
    expect(seen.filter((u) => ours.includes(u))).toEqual([]);
    for (const actor of ['agentKey', 'agentHeaders']) {
      const r = await api.get('/erp/claims', { token: actors[actor].token, headers: actors[actor].headers });
      expect(r.status, `${actor}: ${r.text}`).toBe(403);
      expect(r.body.code).toBe('actor_forbidden');
    }
  });

  it('claims and prospects: every door answers as declared, REST and GraphQL alike', async () => {
    const STATUS: Record<string, number> = { ok: 200, null: 404, insufficient_scope: 403 };
    const doors = (c: ClaimFixture, prospect: string): [string, string, Record<string, string>][] => [
      [`/claims/${c.uuid}`, 'query($u: String!) { claim(uuid: $u) { uuid } }', { u: c.uuid }],
      [
        `/claims/${c.uuid}/documents`,
        'query($c: String!) { claimChecklist(claimId: $c) { complete documents { kind } } }',
        { c: c.uuid },
      ],
      [
        `/claims/${c.uuid}/documents/${c.file}`,
        'query($c: String!, $f: String!) { claimDocumentFile(claimId: $c, id: $f) { id } }',
        { c: c.uuid, f: c.file },
      ],
      [
        `/claims/${c.paidClaim}/payments`,
        'query($c: String!) { claimPayments(claimId: $c) { uuid } }',
        { c: c.paidClaim },
      ],
      [
        `/claims/${c.paidClaim}/payments/${c.payment}`,
        'query($c: String!, $u: String!) { claimPayment(claimId: $c, uuid: $u) { uuid } }',
        { c: c.paidClaim, u: c.payment },
      ],
      [`/prospects/${prospect}`, 'query($u: String!) { prospect(uuid: $u) { uuid } }', { u: prospect }],
    ];
    for (const side of ['A', 'B'] as const) {
      for (const [actor, a] of Object.entries(actors)) {
        if (actor === 'suspendedTenant') continue;
        for (const [path, query, variables] of doors(claims[side], prospects[side])) {
          const row = path.startsWith('/prospects') ? `prospect${side}` : `claim${side}`;
          const want = STATUS[MATRIX[row][actor]];
          const rest = (await api.get(path, { token: a.token, headers: a.headers })).status;
          const g = await api.gql(query, variables, { token: a.token, headers: a.headers });
          const code: string | undefined = g.body.errors?.[0]?.extensions.code;
          const graph =
            code === undefined ? 200 : code === 'not_found' ? 404 : code === 'insufficient_scope' ? 403 : -1;
          expect(`${actor} ${path}: REST ${rest}, GraphQL ${graph}`).toBe(
            `${actor} ${path}: REST ${want}, GraphQL ${want}`,
          );
        }
      }
    }
  });

  it("a claim on a policy within an agent's reach is within reach too, whoever registered it", async () => {
    const sold = await o.activePolicy();
    await t.db.tenant(org.id, (tx) =>
      tx.policy.update({ where: { uuid: sold.uuid }, data: { salesPersonId: org.users.agent2.id } }),
    );
    const r = await api.post('/claims', {
      token: o.tokens.staff,
      body: motorNotice(sold),
      idempotencyKey: randomUUID(),
    });
    expect(r.status, r.text).toBe(201);
    const c = r.body.data;
    const gid = (
      await api.gql('query($u: String!) { claim(uuid: $u) { id } }', { u: c.uuid }, { token: o.tokens.staff })
    ).body.data.claim.id;
    expect(await nodeOutcome(actors.agentHeaders, gid)).toBe('ok');
    expect(await nodeOutcome(actors.agentKey, gid)).toBe('null');
    const h = actors.agentHeaders;
    const g = await api.gql(
      'query($u: String!) { claim(uuid: $u) { claimNo policy { uuid } client { clientNo } } }',
      { u: c.uuid },
      { token: h.token, headers: h.headers },
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.claim).toEqual({
      claimNo: c.claim_no,
      policy: { uuid: sold.uuid },
      client: { clientNo: sold.client_no },
    });
    expect((await api.get(`/claims/${c.uuid}`, { token: h.token, headers: h.headers })).status).toBe(200);
    expect((await api.get(`/claims/${c.uuid}`, { token: o.tokens.agent })).status).toBe(404);
  });

  it("a policy within an agent's reach never shows a client out of reach: the policyholder is within reach too", async () => {
    // Staff binds a policy sold by agent2 for a client agent2 does not own: agent2 sees the policy and its client.
    const sold = await o.bind(1, o.tokens.staff);
    await t.db.tenant(org.id, (tx) =>
      tx.policy.update({ where: { uuid: sold.uuid }, data: { salesPersonId: org.users.agent2.id } }),
    );
    const h = actors.agentHeaders;
    const r = await api.gql(
      'query($u: String!) { policy(uuid: $u) { client { clientNo } } }',
      { u: sold.uuid },
      { token: h.token, headers: h.headers },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.policy.client.clientNo).toBe(sold.client_no);
    expect((await api.get(`/clients/${sold.client_no}`, { token: h.token, headers: h.headers })).status).toBe(200);
  });
});
