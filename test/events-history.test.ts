import { randomUUID } from 'node:crypto';
/**
 * The event history (GraphQL `events`/`event`, REST GET /events and /events/{id}): newest first, cursor paging that
 * stays whole when an agent's reach filters rows one by one, two organisations side by side, and hostile values
 * refused as problem documents with a code.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../src/modules/events/event.service.ts';
import { paymentReceivedData } from './helpers/events.ts';
import { expectProblem, useKit } from './kit.ts';

const t = useKit();
const [a, b] = t.useOrgs(2, { tokens: ['staff', 'agent', 'readonly'] });

const emitIn = async (tenantId: number, name: string, data: Record<string, unknown>) =>
  (await t.db.tenant(tenantId, (tx) => emitEvent(t.app.services, tx, tenantId, name, data))).id;

// In the factory's organisation C-000001 is sold by agent1 (the agent client's actor) and C-000002 by agent2.
const ownClient = 'C-000001';
const otherClient = 'C-000002';

let since: string;
const mine: string[] = []; // A's events about the agent's client
const hidden: string[] = []; // A's events the agent may not see
const theirs: string[] = []; // B's events

beforeAll(async () => {
  since = new Date(Date.now() - 1_000).toISOString();
  // Runs of hidden events between the agent's own: a page of 3 for the agent must read past several of them.
  for (let i = 0; i < 8; i++) {
    mine.push(await emitIn(a.id, 'payment.received', paymentReceivedData(ownClient)));
    for (let j = 0; j < 4; j++) hidden.push(await emitIn(a.id, 'payment.received', paymentReceivedData(otherClient)));
  }
  hidden.push(await emitIn(a.id, 'ping', { message: 'hello', sent_by: 'Test' }));
  for (let i = 0; i < 3; i++) theirs.push(await emitIn(b.id, 'payment.received', paymentReceivedData(ownClient)));
}, 60_000);

type Page = { data: { id: string; event: string; created_at: string; data: any }[]; meta: any; links: any };

/** Every page of GET /events from `first`, following links.next; the pages' sizes too. */
async function walk(org: typeof a, role: 'staff' | 'agent' | 'readonly', first: string) {
  const ids: string[] = [];
  const sizes: number[] = [];
  const times: string[] = [];
  let path: string | null = first;
  for (let n = 0; path && n < 50; n++) {
    const r: { status: number; text: string; body: Page } = await org.as(role).get<Page>(path);
    expect(r.status, r.text).toBe(200);
    ids.push(...r.body.data.map((e) => e.id));
    times.push(...r.body.data.map((e) => e.created_at));
    sizes.push(r.body.meta.count);
    expect(r.body.meta.has_more).toBe(r.body.links.next !== null);
    path = r.body.links.next?.replace(/^\/api\/v1/, '') ?? null;
  }
  return { ids, sizes, times };
}

const q = (p: Record<string, string>) => new URLSearchParams({ since: '', ...p }).toString();

describe('the event history over REST', () => {
  it("staff page through every event of their organisation, newest first, and none of another's", async () => {
    const w = await walk(a, 'staff', `/events?${q({ since, limit: '7' })}`);
    expect(new Set(w.ids)).toEqual(new Set([...mine, ...hidden]));
    expect(w.ids).toHaveLength(mine.length + hidden.length); // no event twice across pages
    expect(w.sizes.slice(0, -1).every((s) => s === 7)).toBe(true);
    expect([...w.times].sort().reverse()).toEqual(w.times);
    const other = await walk(b, 'staff', `/events?${q({ since, limit: '2' })}`);
    expect(new Set(other.ids)).toEqual(new Set(theirs));
  });

  it('an agent pages through only its own events: full pages while more follow, none skipped', async () => {
    const w = await walk(a, 'agent', `/events?${q({ since, limit: '3' })}`);
    expect(new Set(w.ids)).toEqual(new Set(mine));
    expect(w.ids).toHaveLength(mine.length);
    expect(w.sizes).toEqual([3, 3, 2]);
    for (const e of [...hidden, ...theirs]) expect(w.ids).not.toContain(e);
  });

  it('filters by type and time', async () => {
    const pings = await a.as('staff').get<Page>(`/events?${q({ since, types: 'ping' })}`);
    expect(pings.body.data.map((e) => e.id)).toEqual([hidden.at(-1)]);
    expect(pings.body.data[0]).toMatchObject({ event: 'ping', data: { message: 'hello' } });
    const later = await a.as('staff').get<Page>(`/events?${q({ since: new Date(Date.now() + 60_000).toISOString() })}`);
    expect(later.body.data).toEqual([]);
    const none = await a.as('staff').get<Page>(`/events?${q({ since, until: since.replace(/\.\d+Z$/, '.999Z') })}`);
    expect(none.status, none.text).toBe(200);
  });

  it("reads one event by id: 404 for another organisation, or out of an agent's reach", async () => {
    const own = await a.as('staff').get(`/events/${mine[0]}`);
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).toMatchObject({ id: mine[0], event: 'payment.received', data: { client_no: ownClient } });
    expect((await a.as('readonly').get(`/events/${mine[0]}`)).status).toBe(200);
    expectProblem(await a.as('staff').get(`/events/${theirs[0]}`), 404, 'not_found');
    expectProblem(await a.as('agent').get(`/events/${hidden[0]}`), 404, 'not_found');
    expect((await a.as('agent').get(`/events/${mine[0]}`)).status).toBe(200);
    expectProblem(await a.as('staff').get('/events/not-a-uuid'), 404, 'not_found');
    // The catalogue keeps its own path.
    expect((await a.as('staff').get('/events/catalogue')).status).toBe(200);
  });

  it('refuses hostile values as 422 validation_failed naming the parameter', async () => {
    const get = (p: string) => a.as('staff').get(`/events?${p}`);
    expectProblem(await get('cursor=garbage'), 422, 'validation_failed', 'cursor');
    // A cursor of another list (an Int id) is not one of this list.
    expectProblem(
      await get(`cursor=${Buffer.from('GPC:N:12').toString('base64')}`),
      422,
      'validation_failed',
      'cursor',
    );
    expectProblem(
      await get(`cursor=${Buffer.from('GPC:S:nope').toString('base64')}`),
      422,
      'validation_failed',
      'cursor',
    );
    // A well-formed cursor this list never issued to the caller: an unknown event, another organisation's, or (for an
    // agent) one out of reach. Refused, not answered with the events after it or an empty last page.
    const cursorOf = (id: string) => encodeURIComponent(Buffer.from(`GPC:S:${id}`).toString('base64url'));
    for (const [who, id] of [
      ['staff', randomUUID()],
      ['staff', theirs[0]],
      ['agent', hidden[0]],
    ] as const)
      expectProblem(await a.as(who).get(`/events?cursor=${cursorOf(id)}`), 422, 'validation_failed', 'cursor');
    expect((await a.as('agent').get(`/events?limit=1&cursor=${cursorOf(mine[0])}`)).status).toBe(200);
    expectProblem(await get('since=yesterday'), 422, 'validation_failed', 'since');
    expectProblem(await get('since=2026-02-30T00:00:00Z'), 422, 'validation_failed', 'since');
    expectProblem(await get('until=2026-01-01'), 422, 'validation_failed', 'until');
    const unknown = await get('types=payment.received,policy.exploded');
    expectProblem(unknown, 422, 'validation_failed', 'types');
    expect(unknown.body.errors[0].code).toBe('not_one_of');
    expectProblem(await get('limit=0'), 422, 'validation_failed', 'limit');
    expectProblem(await get('limit=101'), 422, 'validation_failed', 'limit');
    expectProblem(
      await get(`since=2026-06-02T00:00:00Z&until=2026-06-01T00:00:00Z`),
      422,
      'validation_failed',
      'until',
    );
  });
});

const EVENTS = `query($first: Int, $after: String, $since: DateTime, $types: [String!]) {
  events(first: $first, after: $after, since: $since, types: $types) {
    pageInfo { hasNextPage endCursor }
    edges { node { id name createdAt data } }
  }
}`;

describe('the event history over GraphQL', () => {
  it('pages with first/after; an agent sees its own only', async () => {
    for (const [role, expected, size] of [
      ['staff', [...mine, ...hidden], 10],
      ['agent', mine, 3],
    ] as const) {
      const ids: string[] = [];
      let after: string | null = null;
      for (let n = 0; n < 20; n++) {
        const r: any = await a.as(role).gql(EVENTS, { first: size, after, since });
        expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
        const c = r.body.data.events;
        ids.push(...c.edges.map((e: any) => e.node.id));
        if (c.pageInfo.hasNextPage) expect(c.edges).toHaveLength(size);
        if (!c.pageInfo.hasNextPage) break;
        after = c.pageInfo.endCursor;
      }
      expect(new Set(ids), role).toEqual(new Set(expected));
      expect(ids).toHaveLength(expected.length);
    }
  });

  it('event(id): the record, or not_found for another organisation and out of reach', async () => {
    const read = (role: 'staff' | 'agent', id: string) =>
      a.as(role).gql(`query($id: ID!) { event(id: $id) { id name data } }`, { id });
    const own: any = await read('staff', mine[1]);
    expect(own.body.data.event).toMatchObject({ id: mine[1], name: 'payment.received' });
    for (const [role, id] of [
      ['staff', theirs[1]],
      ['agent', hidden[1]],
      ['staff', 'nope'],
    ] as const) {
      const r: any = await read(role, id);
      expect(r.body.data?.event ?? null).toBeNull();
      expect(r.body.errors?.[0]?.extensions?.code).toBe('not_found');
    }
  });

  it('refuses a bad cursor, date or type with validation_failed', async () => {
    const codes = async (v: Record<string, unknown>) => {
      const r: any = await a.as('staff').gql(EVENTS, v);
      return (r.body.errors ?? []).map((e: any) => e.extensions?.code);
    };
    expect(await codes({ after: 'garbage' })).toEqual(['validation_failed']);
    expect(await codes({ after: Buffer.from('GPC:S:nope').toString('base64') })).toEqual(['validation_failed']);
    expect(await codes({ since: 'yesterday' })).toEqual(['validation_failed']);
    expect(await codes({ types: ['policy.exploded'] })).toEqual(['validation_failed']);
  });
});
