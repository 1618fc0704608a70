import { beforeAll, describe, expect, it } from 'vitest';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * A page after a cursor holds the records after the cursor's id, whether or not the cursor's record is in the list
 * (src/db/read-model.ts keyset: every newest-first list). Prisma's own cursor started at the cursor's row and skipped
 * it, so a cursor on a record the caller's reach left out skipped the next record instead, and one on a record that
 * is not there answered nothing. Shown here on policies, whose list has no read model: the Prisma path pages so too
 * (clients and claims: test/client-read-model.test.ts, test/claim-read-model.test.ts).
 */
const t = useKit(INSTANT_RAIL);
const org = t.useOrg({ fast: true, tokens: ['staff', 'agent'] });
const cursor = (id: number) => encodeURIComponent(Buffer.from(`GPC:N:${id}`).toString('base64'));
let ids: { staffBelow: number; agents: number; staffAbove: number };

beforeAll(async () => {
  const below = await org.bind(1);
  const mine = await org.bind(1, org.tokens.agent);
  const above = await org.bind(1);
  const id = (uuid: string) =>
    t.db.tenant(org.id, async (tx) => (await tx.policy.findFirstOrThrow({ where: { uuid } })).id);
  ids = { staffBelow: await id(below.uuid), agents: await id(mine.uuid), staffAbove: await id(above.uuid) };
}, 60_000);

describe('a newest-first list after a cursor', () => {
  it("a policy out of an agent's reach as the cursor: the agent's next policy is not skipped", async () => {
    const r = await org.as('agent').get(`/policies?limit=100&cursor=${cursor(ids.staffAbove)}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((p: { id: number }) => p.id)).toContain(ids.agents);
    // The same answer as a cursor on an id no policy has, just above it: nothing told about the hidden one.
    const none = await org.as('agent').get(`/policies?limit=100&cursor=${cursor(2 ** 31 - 1)}`);
    expect(none.body.data.map((p: { id: number }) => p.id)).toEqual(r.body.data.map((p: { id: number }) => p.id));
  });

  it('a backward page (GraphQL last/before) holds the rows just above the cursor, out-of-reach cursor or not', async () => {
    const before = (id: number) => Buffer.from(`GPC:N:${id}`).toString('base64');
    const q = 'query($b: String!) { policies(last: 5, before: $b) { edges { node { databaseId } } } }';
    const ids_ = (r: any) => r.body.data.policies.edges.map((e: any) => e.node.databaseId);
    const agent = await org.as('agent').gql(q, { b: before(ids.staffBelow) });
    expect(agent.body.errors).toBeUndefined();
    expect(ids_(agent)).toEqual([ids.agents]);
    const staff = await org.as('staff').gql(q, { b: before(ids.agents) });
    expect(ids_(staff)).toEqual([ids.staffAbove]);
  });

  it('only the spelling this API writes is a cursor: 0x10, 007, 1e3, a blank are 422 on cursor', async () => {
    for (const payload of ['0x10', '007', '1e3', '', ' 5', '-0']) {
      const c = encodeURIComponent(Buffer.from(`GPC:N:${payload}`).toString('base64'));
      const r = await org.as('staff').get(`/policies?cursor=${c}`);
      expect(r.status, payload).toBe(422);
      expect(r.body.errors).toEqual([expect.objectContaining({ field: 'cursor', code: 'invalid_value' })]);
    }
  });

  it('an id no row has: the rows below it', async () => {
    const r = await org.as('staff').get(`/policies?limit=2&cursor=${cursor(ids.staffAbove + 1000)}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((p: { id: number }) => p.id)).toEqual([ids.staffAbove, ids.agents]);
  });
});
