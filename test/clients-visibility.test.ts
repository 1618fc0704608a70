import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, useKit } from './kit.ts';

const t = useKit();
const api = t.api;
const [org, other] = t.useOrgs([{ fast: true, tokens: ['staff', 'agent'] }, { tokens: ['staff'] }]);
let otherStaff: string;

/**
 * The three ways of calling: staff (actor exec), the agent key (actor agent1), and the staff key with agent2's
 * X-Agent-Code/X-Agent-Key headers (acts as agent2).
 */
type Caller = { token: string; headers?: Record<string, string> };
const asStaff: Caller = org.as('staff');
const asAgent1: Caller = org.as('agent');
const asAgent2: Caller = org.as('staff', { agent: 2 });

/** Client numbers by who created or sells them, set up in beforeAll. */
const no = { byAgent1: '', byAgent2: '', byStaff: '', soldByAgent2: '', otherTenant: '' };
const SEEDS = { agent1: 'C-000001', agent2: 'C-000002', nobody: 'C-000003' };

let seq = 0;
const newClient = (name: string, extra: Record<string, unknown> = {}) => {
  seq += 1;
  const n = String(seq).padStart(3, '0');
  return {
    name,
    phone: `0791${n}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`,
    id_no: `55${n}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`,
    ...extra,
  };
};
async function create(c: Caller, body: Record<string, unknown>): Promise<string> {
  const r = await api.post('/clients', { token: c.token, headers: c.headers, body, idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(201);
  return r.body.data.client_no;
}

beforeAll(async () => {
  otherStaff = other.tokens.staff;
  no.byAgent1 = await create(asAgent1, newClient('Created By Agent One'));
  no.byAgent2 = await create(asAgent2, newClient('Created By Agent Two'));
  no.byStaff = await create(asStaff, newClient('Created By Staff'));
  no.soldByAgent2 = await create(
    asStaff,
    newClient('Staff Client Sold By Agent Two', { sales_person_id: org.users.agent2.id }),
  );
  // The other organisation's numbering is moved far ahead so its client number does not also exist in `org`.
  await t.db.system((tx) =>
    tx.tenantCounter.update({
      where: { tenantId_name: { tenantId: other.id, name: 'client_no' } },
      data: { value: 500_000n },
    }),
  );
  no.otherTenant = await create({ token: otherStaff }, newClient('Other Tenant Client'));
  expect(no.otherTenant).toBe('C-500001');
});

const getList = async (c: Caller, query = '?limit=100') => {
  const r = await api.get(`/clients${query}`, { token: c.token, headers: c.headers });
  expect(r.status, r.text).toBe(200);
  return (r.body.data as { client_no: string }[]).map((x) => x.client_no).sort();
};
const getOne = (c: Caller, clientNo: string) => api.get(`/clients/${clientNo}`, { token: c.token, headers: c.headers });
const patchOne = (c: Caller, clientNo: string, body: unknown) =>
  api.patch(`/clients/${clientNo}`, { token: c.token, headers: c.headers, body, idempotencyKey: randomUUID() });
const gql = (c: Caller, query: string, variables: Record<string, unknown> = {}) =>
  api.gql(query, variables, { token: c.token, headers: c.headers });
const allOfOrg = () =>
  t.db.tenant(org.id, async (tx) =>
    (await tx.client.findMany({ select: { clientNo: true } })).map((c) => c.clientNo).sort(),
  );

const CALLERS = ['agent1 (the agent key)', 'agent2 (agent headers on the staff key)'] as const;
/** Who calls, and the clients that caller may see (seeded ones they sell, ones they created, one staff assigned). */
const caller = (name: (typeof CALLERS)[number]): [Caller, string[]] =>
  name === CALLERS[0]
    ? [asAgent1, [SEEDS.agent1, no.byAgent1]]
    : [asAgent2, [SEEDS.agent2, no.byAgent2, no.soldByAgent2]];

describe('an agent sees only clients they created or sell', () => {
  it.each(CALLERS)('%s: GET /clients lists exactly those', async (name) => {
    const [who, own] = caller(name);
    expect(await getList(who)).toEqual([...own].sort());
    // Filters and search cannot widen the view.
    expect(await getList(who, `?search=${encodeURIComponent('Created By Staff')}`)).toEqual([]);
    const managedByExec = await t.db.tenant(org.id, (tx) =>
      tx.client.findMany({ where: { riskManagerId: org.users.exec.id }, select: { clientNo: true } }),
    );
    const expected = managedByExec
      .map((c) => c.clientNo)
      .filter((n) => own.includes(n))
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(await getList(who, `?risk_manager_id=${org.users.exec.id}&limit=100`)).toEqual(expected);
  });

  it.each(CALLERS)("%s: GET /clients/{client_no}: 200 for their own, 404 not_found for anyone else's", async (name) => {
    const [who, own] = caller(name);
    for (const n of own) expect((await getOne(who, n)).status).toBe(200);
    const others = (await allOfOrg()).filter((n) => !own.includes(n));
    expect(others.length).toBeGreaterThan(3);
    for (const n of others) expectProblem(await getOne(who, n), 404, 'not_found');
  });

  it.each(CALLERS)("%s: PATCH /clients/{client_no}: 404 for anyone else's, nothing changed", async (name) => {
    const [who, own] = caller(name);
    const target = own.includes(no.byStaff) ? no.byAgent1 : no.byStaff;
    expectProblem(await patchOne(who, target, { sector: 'Hijacked' }), 404, 'not_found');
    const row = await t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo: target } }));
    expect(row.sector).toBeNull();
    const mine = await patchOne(who, own[own.length - 1], { sector: 'Own Update' });
    expect(mine.status, mine.text).toBe(200);
  });

  it.each(CALLERS)('%s: GraphQL client(clientNo:) is not_found and clients lists only their own', async (name) => {
    const [who, own] = caller(name);
    const hidden = own.includes(no.byStaff) ? no.byAgent1 : no.byStaff;
    const r = await gql(who, 'query($no: String!) { client(clientNo: $no) { clientNo name } }', { no: hidden });
    expect(r.body.data).toBeNull();
    expect(r.body.errors?.[0]?.extensions?.code).toBe('not_found');
    const mine = await gql(who, 'query($no: String!) { client(clientNo: $no) { clientNo } }', { no: own[0] });
    expect(mine.body.data.client.clientNo).toBe(own[0]);

    const list = await gql(who, 'query { clients(first: 100) { edges { node { clientNo } } } }');
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.clients.edges.map((e: any) => e.node.clientNo).sort()).toEqual([...own].sort());
  });

  it.each(CALLERS)("%s: relay node(id:) of another's client is null", async (name) => {
    const [who, own] = caller(name);
    const hidden = no.byStaff;
    const ids = await gql(
      asStaff,
      'query($a: String!, $b: String!) { a: client(clientNo: $a) { id } b: client(clientNo: $b) { id } }',
      { a: hidden, b: own[0] },
    );
    const r = await gql(who, 'query($id: ID!) { node(id: $id) { id ... on Client { clientNo name phone } } }', {
      id: ids.body.data.a.id,
    });
    // Exactly like an id that does not exist (Relay): null, and nothing said about the record.
    expect(r.body.data.node).toBeNull();
    expect(r.body.errors).toBeUndefined();
    const ownNode = await gql(who, 'query($id: ID!) { node(id: $id) { ... on Client { clientNo } } }', {
      id: ids.body.data.b.id,
    });
    expect(ownNode.body.data.node).toEqual({ clientNo: own[0] });
  });

  it('a client created by staff with sales_person_id = agent2 is visible to agent2 only among agents', async () => {
    expect((await getOne(asAgent2, no.soldByAgent2)).body.data).toMatchObject({
      client_no: no.soldByAgent2,
      sales_person: { id: org.users.agent2.id },
    });
    expectProblem(await getOne(asAgent1, no.soldByAgent2), 404, 'not_found');
  });
});

describe('staff see every client of their organisation', () => {
  it('lists and reads all of them, in REST and GraphQL', async () => {
    const all = await allOfOrg();
    expect(await getList(asStaff)).toEqual(all);
    for (const n of all) expect((await getOne(asStaff, n)).status).toBe(200);
    const list = await gql(asStaff, 'query { clients(first: 100) { edges { node { clientNo } } } }');
    expect(list.body.data.clients.edges.map((e: any) => e.node.clientNo).sort()).toEqual(all);
  });
});

describe("another organisation's client", () => {
  const everyone = () => [asStaff, asAgent1, asAgent2];

  it('is 404 for everyone in REST (read and change) and absent from lists and searches', async () => {
    for (const c of everyone()) {
      expectProblem(await getOne(c, no.otherTenant), 404, 'not_found');
      expectProblem(await patchOne(c, no.otherTenant, { sector: 'Cross-tenant' }), 404, 'not_found');
      expect(await getList(c, `?search=${no.otherTenant}`)).toEqual([]);
      expect(await getList(c, '?search=Other%20Tenant')).toEqual([]);
    }
    const row = await t.db.tenant(other.id, (tx) =>
      tx.client.findFirstOrThrow({ where: { clientNo: no.otherTenant } }),
    );
    expect(row.sector).toBeNull();
    // Its own organisation does see it.
    expect((await getOne({ token: otherStaff }, no.otherTenant)).status).toBe(200);
  });

  it('is not_found in GraphQL by number and null by relay id', async () => {
    const id = (
      await gql({ token: otherStaff }, 'query($no: String!) { client(clientNo: $no) { id } }', { no: no.otherTenant })
    ).body.data.client.id;
    for (const c of everyone()) {
      const r = await gql(c, 'query($no: String!) { client(clientNo: $no) { clientNo } }', { no: no.otherTenant });
      expect(r.body.errors?.[0]?.extensions?.code).toBe('not_found');
      const node = await gql(c, 'query($id: ID!) { node(id: $id) { ... on Client { clientNo name } } }', { id });
      expect(node.body.data.node).toBeNull();
      expect(node.body.errors).toBeUndefined();
    }
  });
});
