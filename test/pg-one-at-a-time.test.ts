import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * A connection is asked one statement at a time (src/db/client.ts foldIntoBegin): pg 8 queues a statement handed to
 * a busy connection and warns that pg 9 will not. Watched here on pg's own Client, for every connection the app
 * opens (patched before the app starts): a statement handed to a connection while an earlier one is unanswered is
 * recorded. Paths that used to do it: a read's owed COMMIT followed at once by a statement that is not a BEGIN (the
 * token lookup, straight on the pool), and Prisma loading a page's relations with several statements at once inside
 * one transaction (seen up to 15 deep on a page of policies walked by cursor), and the LISTEN connection answering
 * cache-sync markers as fast as they came (src/db/event-bus.ts acknowledge).
 *
 * One overlap is by design and allowed: on a connection in pg's pipeline mode (where pg documents statements in
 * flight together, without the warning), a read-only transaction's first statement goes with its BEGIN
 * (pipelinedWithBegin), so it may be handed over while that BEGIN, and only that BEGIN, is unanswered.
 */
const overlaps: string[] = [];
/** Per connection: the statements handed over and not yet answered, in order. */
const inFlight = new WeakMap<object, string[]>();
/** Pipelined with its first statement: a read-only BEGIN, with the tenant and perhaps the last read's COMMIT. */
const READ_BEGIN = /^(COMMIT; )?BEGIN READ ONLY; SELECT set_config\('app\.tenant_id'/;
let pipelinedFirsts = 0;
const original = (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query;
function watched(this: object, ...args: unknown[]) {
  const q = args[0] as { text?: string; submit?: unknown } | string | undefined;
  if (typeof q === 'object' && typeof q?.submit === 'function') return original.apply(this, args); // a submittable
  const text = String(typeof q === 'string' ? q : q?.text);
  const pending = inFlight.get(this) ?? [];
  inFlight.set(this, pending);
  if (pending.length > 0) {
    const withItsBegin =
      (this as { pipeline?: boolean }).pipeline === true && pending.length === 1 && READ_BEGIN.test(pending[0]);
    if (withItsBegin) pipelinedFirsts += 1;
    else overlaps.push(text.slice(0, 80));
  }
  pending.push(text);
  const done = () => pending.splice(pending.indexOf(text), 1);
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    // pg-pool's own pool.query hands its statement over with a callback
    args[args.length - 1] = (...answer: unknown[]) => {
      done();
      return (last as (...a: unknown[]) => unknown)(...answer);
    };
    return original.apply(this, args);
  }
  const result = original.apply(this, args) as Promise<unknown>;
  result.then(done, done);
  return result;
}
(pg.Client.prototype as unknown as { query: typeof watched }).query = watched;
// Test files share a worker's modules (vitest.config.ts isolate: false): pg is itself again for the next file.
afterAll(() => {
  (pg.Client.prototype as unknown as { query: unknown }).query = original;
});

const t = useKit(INSTANT_RAIL);
const [o, other] = t.useOrgs(2, { fast: true });
let mine: { uuid: string };

beforeAll(async () => {
  mine = await o.bind(1);
  await other.bind(1);
}, 60_000);

describe('one statement at a time on a connection', () => {
  it("a read's owed COMMIT and the token lookup after it go one after the other", async () => {
    const db = t.app.services.db;
    overlaps.length = 0;
    pipelinedFirsts = 0;
    for (let i = 0; i < 20; i++) {
      await db.tenant(o.id, (tx) => tx.client.count(), { readOnly: true }); // its COMMIT is owed by the connection
      expect(await db.authLookup('0'.repeat(64), null)).toBeNull(); // straight on the pool: the COMMIT goes first
    }
    expect(overlaps).toEqual([]);
    expect(pipelinedFirsts).toBe(20); // each read's count went with its BEGIN
  });

  it('a transaction asked for several things at once, two organisations side by side', async () => {
    const db = t.app.services.db;
    overlaps.length = 0;
    const counts = (id: number, readOnly: boolean) =>
      db.tenant(
        id,
        (tx) => Promise.all([tx.policy.findMany({ select: { tenantId: true } }), tx.client.count(), tx.policy.count()]),
        { readOnly },
      );
    for (const readOnly of [true, false]) {
      const [a, b] = await Promise.all([counts(o.id, readOnly), counts(other.id, readOnly)]);
      expect(new Set(a[0].map((p) => p.tenantId))).toEqual(new Set([o.id]));
      expect(new Set(b[0].map((p) => p.tenantId))).toEqual(new Set([other.id]));
      expect([a[2], b[2]]).toEqual([a[0].length, b[0].length]);
    }
    expect(overlaps).toEqual([]);
  });

  it('requests under load: reads with sibling fields, an idempotent write, a token each time', async () => {
    overlaps.length = 0;
    const query = `query P($uuid: String!) { policy(uuid: $uuid) { id client { id } receipts { id } debitNotes { id } claims { id } } policies(first: 5) { edges { node { id insurer { id } } } } }`;
    await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const org = i % 2 ? other : o;
        if (i % 3 === 0) {
          const r = await org.api.get('/policies?limit=5', { token: org.tokens.staff });
          expect(r.status).toBe(200);
        } else if (i % 3 === 1 && org === o) {
          const r = await o.api.gql(query, { uuid: mine.uuid }, { token: o.tokens.staff });
          expect(r.status).toBe(200);
        } else {
          const { body } = await org.bindBody();
          const r = await org.api.post('/motor/save', { token: org.tokens.staff, idempotencyKey: randomUUID(), body });
          expect(r.status, r.text).toBe(201);
        }
      }),
    );
    expect(overlaps).toEqual([]);
  });

  it('pages walked by links.next, whose relations load side by side in one transaction', async () => {
    overlaps.length = 0;
    for (const org of [o, other]) {
      const seen: string[] = [];
      let path: string | null = '/policies?limit=2';
      while (path) {
        const r: { status: number; text: string; body: any } = await org.api.get(path.replace(/^\/api\/v1/, ''), {
          token: org.tokens.staff,
        });
        expect(r.status, r.text).toBe(200);
        seen.push(...r.body.data.map((p: { uuid: string }) => p.uuid));
        path = r.body.links.next;
      }
      expect(seen.length).toBeGreaterThan(2);
      expect(new Set(seen).size).toBe(seen.length);
    }
    expect(overlaps).toEqual([]);
  });

  it('cache syncs many at once: the LISTEN connection answers their markers one after another', async () => {
    overlaps.length = 0;
    await Promise.all(Array.from({ length: 20 }, () => t.app.services.caches.sync()));
    expect(overlaps).toEqual([]);
  });
});
