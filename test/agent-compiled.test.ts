import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, useKit } from './kit.ts';

/**
 * An agent's everyday reads run compiled, without the types' access rules, because every record they reach comes
 * through fields that keep reach (src/graphql/access.ts KEEPS_REACH; rest-compat/executor.ts reachGaps, engineFor).
 * What the rules would have answered is what the agent gets: the same records as GraphQL (which asks each rule of each
 * row) in two organisations, the same bytes as staff for a record both see, 404 for one out of reach, and a renewal
 * out of reach read as null, not as the whole record refused.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
const agent1 = o.as('agent');
const agent2 = o.as('staff', { agent: 2 });

type Pol = { uuid: string; policy_no: string; client_no: string };
let mine: Pol; // bound by agent 1
let staffs: Pol; // bound by staff: out of every agent's reach
let theirs: Pol; // the other organisation's

const uuids = (rows: { uuid: string }[]) => rows.map((r) => r.uuid).sort();
type Who = { token: string; headers?: Record<string, string> };
const as = (c: Who): Who => ({ token: c.token, headers: c.headers });
const restList = async (path: string, c: Who) => {
  const r = await o.api.get(path, as(c));
  expect(r.status, r.text).toBe(200);
  return r.body.data as { uuid: string; client_no?: string }[];
};

beforeAll(async () => {
  const bound = async (org: typeof o, token: string) => {
    const p = await org.pendingPolicy({ token });
    return { uuid: p.uuid, policy_no: p.policy_no, client_no: p.client_no };
  };
  mine = await bound(o, agent1.token);
  await o.pay(mine.policy_no, 100_00); // a receipt and its events, within agent 1's reach
  staffs = await bound(o, o.tokens.staff);
  theirs = await bound(other, other.tokens.staff);
  await o.pay(staffs.policy_no, 100_00); // out of every agent's reach
});

describe("an agent's compiled reads", () => {
  it('list exactly the records the rules admit, as GraphQL does, in each organisation', async () => {
    const gql = `{ policies(first: 100) { edges { node { uuid } } } claims(first: 100) { edges { node { uuid } } }
      clients(first: 100) { edges { node { clientNo } } } receipts(first: 100) { edges { node { receiptNo } } }
      events(first: 100) { edges { node { id } } } }`;
    for (const caller of [agent1, agent2]) {
      const g = await o.api.gql(gql, {}, as(caller));
      expect(g.body.errors, JSON.stringify(g.body)).toBeUndefined();
      const policies = await restList('/policies?limit=100', caller);
      expect(uuids(policies)).toEqual(uuids(g.body.data.policies.edges.map((e: any) => e.node)));
      expect(uuids(await restList('/claims?limit=100', caller))).toEqual(
        uuids(g.body.data.claims.edges.map((e: any) => e.node)),
      );
      const clients = await restList('/clients?limit=100', caller);
      expect(clients.map((c) => c.client_no).sort()).toEqual(
        g.body.data.clients.edges.map((e: any) => e.node.clientNo).sort(),
      );
      const receipts = (await restList('/receipts?limit=100', caller)) as unknown as { receipt_no: string }[];
      expect(receipts.map((r) => r.receipt_no).sort()).toEqual(
        g.body.data.receipts.edges.map((e: any) => e.node.receiptNo).sort(),
      );
      const events = (await restList('/events?limit=100', caller)) as unknown as { id: string }[];
      expect(events.map((e) => e.id).sort()).toEqual(g.body.data.events.edges.map((e: any) => e.node.id).sort());
      expect(policies.map((p) => p.uuid)).not.toContain(staffs.uuid);
      expect(policies.map((p) => p.uuid)).not.toContain(theirs.uuid);
    }
    expect((await restList('/policies?limit=100', agent1)).map((p) => p.uuid)).toContain(mine.uuid);
    // Agent 1 has a receipt and events of its own (so the comparisons above compared something), not staff's.
    const receipts = (await restList('/receipts?limit=100', agent1)) as unknown as { policy_no: string }[];
    expect(receipts.map((r) => r.policy_no)).toEqual([mine.policy_no]);
    expect((await restList('/events?limit=100', agent1)).length).toBeGreaterThan(0);
  });

  it('answer a record within reach byte for byte as staff get it, and 404 for one out of reach', async () => {
    for (const path of [`/policies/${mine.uuid}`, `/clients/${mine.client_no}`]) {
      const asAgent = await o.api.get(path, as(agent1));
      const asStaff = await o.api.get(path, { token: o.tokens.staff });
      expect(asAgent.status, asAgent.text).toBe(200);
      expect(asAgent.body.data).toEqual(asStaff.body.data);
    }
    expect(staffs.client_no).not.toBe(mine.client_no);
    for (const path of [`/policies/${staffs.uuid}`, `/policies/${theirs.uuid}`, `/clients/${staffs.client_no}`])
      expectProblem(await o.api.get(path, as(agent1)), 404, 'not_found');
    expectProblem(await o.api.get(`/policies/${mine.uuid}`, as(agent2)), 404, 'not_found');
  });

  it('read a renewal out of reach as null, and the record stays readable', async () => {
    const p = await o.activePolicy({ token: agent1.token });
    const post = (path: string, body: unknown) =>
      o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
    const q = await post(`/policies/${p.uuid}/renewal-quote`, {});
    expect(q.status, q.text).toBe(201);
    const r = await post(`/policies/${p.uuid}/renew`, {
      renewal_quote_uuid: q.body.data.uuid,
      premium: q.body.data.renewal.total,
    });
    expect(r.status, r.text).toBe(201);
    const renewal: string = r.body.data.uuid;
    // As if agent 2 had taken the renewal over: the policy stays agent 1's (who bound it), the renewal is agent 2's
    // (its sales person), and the client is neither's.
    await t.db.tenant(o.id, async (tx) => {
      await tx.client.update({
        where: { tenantId_clientNo: { tenantId: o.id, clientNo: p.client_no } },
        data: { createdByUserId: o.users.exec.id, salesPersonId: null },
      });
      await tx.policy.update({ where: { uuid: p.uuid }, data: { salesPersonId: o.users.agent1.id } });
      await tx.policy.update({
        where: { uuid: renewal },
        data: { createdByUserId: o.users.exec.id, salesPersonId: o.users.agent2.id },
      });
    });

    const agent1Sees = await o.api.get(`/policies/${p.uuid}`, as(agent1));
    expect(agent1Sees.status, agent1Sees.text).toBe(200);
    expect(agent1Sees.body.data.renewed_by).toBeNull();
    expectProblem(await o.api.get(`/policies/${renewal}`, as(agent1)), 404, 'not_found');
    const agent2Sees = await o.api.get(`/policies/${renewal}`, as(agent2));
    expect(agent2Sees.status, agent2Sees.text).toBe(200);
    expect(agent2Sees.body.data.renewal_of).toBeNull();
    // Staff see both ways.
    const staffSees = await o.api.get(`/policies/${p.uuid}`, { token: o.tokens.staff });
    expect(staffSees.body.data.renewed_by).toMatchObject({ uuid: renewal });
    // GraphQL (each row asked of its rule) answers the same, with no error.
    const g = await o.api.gql(
      'query($u: String!) { policy(uuid: $u) { uuid renewal { uuid } renewalOf { uuid } } }',
      { u: p.uuid },
      as(agent1),
    );
    expect(g.body.errors, JSON.stringify(g.body)).toBeUndefined();
    expect(g.body.data.policy).toEqual({ uuid: p.uuid, renewal: null, renewalOf: null });
    const list = await restList('/policies?limit=100', agent1);
    expect(list.find((x) => x.uuid === p.uuid)).toMatchObject({ renewed_by: null });
  });
});
