import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { Database } from '../src/db/client.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * What a read costs in round trips to PostgreSQL (issue 28: at most two with a cached principal, the tenant setting
 * included): one, the BEGIN carrying the tenant (and the previous read's COMMIT) written with the statement and sent
 * without waiting for its answer (db/client.ts foldIntoBegin, pipelinedWithBegin). Counted as the messages the pool's
 * connections send (Database.sent), one request at a time, once the principal is cached and the connection's owed
 * COMMIT has gone.
 */
const t = useKit(INSTANT_RAIL);
const [o, other] = t.useOrgs(2, { fast: true });
let mine: { uuid: string; client_no: string };
let theirs: { uuid: string; client_no: string };

beforeAll(async () => {
  mine = await o.bind(1);
  theirs = await other.bind(1);
}, 60_000);

/**
 * Round trips of one request, after a first one (principal cached, operation compiled) and a quiet moment: the
 * statements sent on its path, and apart from them a COMMIT an idle connection sends alone after the answer (under
 * load the next BEGIN on the connection carries it instead).
 */
async function roundTrips(path: string, token: string) {
  const db = t.app.services.db;
  expect((await o.api.get(path, { token })).status).toBeLessThan(500);
  await sleep(30); // the first request's COMMIT, owed by the idle connection, has gone alone by now
  const [statements, owed] = [db.sent.statements, db.sent.owedCommits];
  const r = await o.api.get(path, { token });
  await sleep(30);
  const afterAnswer = db.sent.owedCommits - owed;
  return { onPath: db.sent.statements - statements - afterAnswer, afterAnswer, status: r.status };
}

describe('round trips of a read', () => {
  it('a record, a page and a client cost one round trip each: the BEGIN with the tenant written with the statement', async () => {
    for (const path of [
      `/policies/${mine.uuid}`,
      '/policies?limit=5',
      '/clients?limit=5',
      `/clients/${mine.client_no}`,
      '/claims?limit=5',
    ]) {
      const r = await roundTrips(path, o.tokens.staff);
      expect(r.status, path).toBe(200);
      expect(r.onPath, path).toBeLessThanOrEqual(1);
      expect(r.afterAnswer, path).toBeLessThanOrEqual(1);
    }
  });

  it('reads of two organisations through the same connections each see their own, and another’s record is 404', async () => {
    for (let i = 0; i < 10; i++) {
      const a = await o.api.get(`/policies/${mine.uuid}`, { token: o.tokens.staff });
      const b = await other.api.get(`/policies/${theirs.uuid}`, { token: other.tokens.staff });
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.body.data.uuid).toBe(mine.uuid);
      expect(b.body.data.uuid).toBe(theirs.uuid);
      expect((await o.api.get(`/policies/${theirs.uuid}`, { token: o.tokens.staff })).status).toBe(404);
      const page = await other.api.get('/policies?limit=100', { token: other.tokens.staff });
      expect(page.body.data.map((p: { uuid: string }) => p.uuid)).not.toContain(mine.uuid);
    }
  });

  it('a read-only unit of work refuses a write, and leaves no transaction open once idle', async () => {
    const db = t.app.services.db;
    await expect(
      db.tenant(o.org.id, (tx) => tx.client.updateMany({ data: { email: 'x@example.com' } }), { readOnly: true }),
    ).rejects.toThrow(/read-only transaction/);
    await db.tenant(o.org.id, (tx) => tx.client.count(), { readOnly: true });
    // The next write on the pool commits for real (the owed COMMIT went first), and nothing stays idle in transaction.
    await db.tenant(o.org.id, (tx) => tx.client.updateMany({ where: { id: -1 }, data: { email: null } }));
    await sleep(50);
    const open = await db.system(
      (tx) =>
        tx.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`,
    );
    expect(Number(open[0].n)).toBe(0);
  });

  it('a read whose BEGIN fails answers its error, never rows its statement read outside the transaction', async () => {
    // A pool of one connection whose BEGIN READ ONLY is made to fail (a fault below foldIntoBegin, on the real
    // connection); the statement written with it still runs, outside any transaction and without the tenant.
    const db = await Database.connect(t.databaseUrl, { poolSize: 1 });
    let fail = false;
    db.pool.prependListener('connect', (client: pg.PoolClient) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (fail && typeof args[0] === 'string' && args[0].includes('BEGIN READ ONLY;'))
          args[0] = args[0].replace('BEGIN READ ONLY;', 'BEGIN READ ONLY; SELECT 1/0;');
        return query(...args);
      };
    });
    const tenantSeen = () =>
      db.tenant(
        o.org.id,
        async (tx) => (await tx.$queryRaw<{ t: string }[]>`SELECT current_setting('app.tenant_id', true) AS t`)[0].t,
        { readOnly: true },
      );
    try {
      expect(await tenantSeen()).toBe(String(o.org.id));
      fail = true;
      await expect(tenantSeen()).rejects.toThrow(/division by zero/);
      fail = false;
      // The connection is whole, and the next read has its tenant.
      expect(await tenantSeen()).toBe(String(o.org.id));
    } finally {
      await db.close();
    }
  });
});

/**
 * What a bind costs (issue 28: batch what can be batched). Counted as the statements the pool's connections send
 * while one bind of a new client runs: the identity locks in one statement, the new client's row not read back, no
 * client-area key or linked prospect looked for on a client this transaction created, the policy with every row it
 * starts with (taxes, vehicle, premium item, first status, debit notes) in one statement, each number drawn, written over its stand-in and named by its audit entry in one statement (counters.ts pendingNumber,
 * recordAuditWith), each audit row written and announced in one (EventBus.publishInserted). Other work on the pool (the outbox's dispatch of the bind's events) runs after the answer, once it is
 * counted.
 */
describe('round trips of a write', () => {
  it('a bind of a new client sends at most 16 statements, BEGIN and COMMIT included', async () => {
    const db = t.app.services.db;
    await o.bind(1); // the principal, rates and operation warm
    const { body } = await o.bindBody();
    await sleep(30);
    const before = db.sent.statements;
    const r = await o.api.post('/motor/save', { token: o.tokens.staff, idempotencyKey: randomUUID(), body });
    const sent = db.sent.statements - before;
    expect(r.status, r.text).toBe(201);
    expect(sent).toBeLessThanOrEqual(16);
  });
});

describe('generic plans for reads (GENERIC_READ_PLANS, on by default)', () => {
  const mode = (readOnly: boolean) =>
    t.app.services.db.tenant(
      o.id,
      async (tx) => (await tx.$queryRaw<{ m: string }[]>`SELECT current_setting('plan_cache_mode') AS m`)[0].m,
      { readOnly },
    );

  it("a read-only transaction plans generically, set on its BEGIN; a write keeps PostgreSQL's own choice", async () => {
    expect(await mode(true)).toBe('force_generic_plan');
    expect(await mode(false)).toBe('auto');
    // Transaction-scoped: the connection's next transaction, on the same pool, is back to PostgreSQL's default.
    for (let i = 0; i < 5; i++) expect(await mode(i % 2 === 0)).toBe(i % 2 === 0 ? 'force_generic_plan' : 'auto');
  });
});
