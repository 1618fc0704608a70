import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { spreadCompoundKeys } from '../src/db/read-unit.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * Read-only units of work run in a read unit (src/db/read-unit.ts), not in Prisma's interactive transactions: one
 * connection and one BEGIN READ ONLY carrying the tenant per unit, statements sent as Prisma's plain ones. What must
 * hold: each unit sees its own organisation only, even when two organisations' lookups by a unique key are made in
 * the same tick (which Prisma batches into one statement outside a transaction); a unit's statements share one
 * transaction; a failed statement leaves the connection clean for the next unit; a connection killed under a unit
 * fails that unit only; a unit that hands back Prisma's (lazy) query unawaited still runs it within its tenant.
 */
const t = useKit(INSTANT_RAIL);
const [o, other] = t.useOrgs(2, { fast: true });
let mine: { client_no: string };
let theirs: { client_no: string };

beforeAll(async () => {
  mine = await o.bind(1);
  theirs = await other.bind(1);
}, 60_000);

const byKey = (tenantId: number, clientNo: string) => ({
  where: { tenantId_clientNo: { tenantId, clientNo } },
  select: { clientNo: true, tenantId: true },
});

describe('read units', () => {
  it('two organisations looking up by a unique key in the same tick each get their own row, and not the other’s', async () => {
    const db = t.app.services.db;
    for (let round = 0; round < 5; round++) {
      const [a, b, aForB, bForA] = await Promise.all([
        db.tenant(o.org.id, (tx) => tx.client.findUnique(byKey(o.org.id, mine.client_no)), { readOnly: true }),
        db.tenant(other.org.id, (tx) => tx.client.findUnique(byKey(other.org.id, theirs.client_no)), {
          readOnly: true,
        }),
        db.tenant(o.org.id, (tx) => tx.client.findUnique(byKey(other.org.id, theirs.client_no)), { readOnly: true }),
        db
          .tenant(other.org.id, (tx) => tx.client.findUniqueOrThrow(byKey(o.org.id, mine.client_no)), {
            readOnly: true,
          })
          .catch((e: { code?: string }) => e.code),
      ]);
      expect(a).toEqual({ clientNo: mine.client_no, tenantId: o.org.id });
      expect(b).toEqual({ clientNo: theirs.client_no, tenantId: other.org.id });
      expect(aForB).toBeNull();
      expect(bForA).toBe('P2025');
    }
  });

  it('a unit’s statements run in one transaction on one connection: one BEGIN READ ONLY with the tenant for all of them', async () => {
    const db = t.app.services.db;
    const [pids, tenants, began] = await db.tenant(
      o.org.id,
      async (tx) => {
        // now() is the transaction's start: the same for every statement of one transaction.
        const a = await tx.$queryRaw<{ pid: number; tenant: string; began: Date }[]>`
          SELECT pg_backend_pid() AS pid, current_setting('app.tenant_id') AS tenant, now() AS began`;
        await new Promise((r) => setTimeout(r, 5));
        const b = await tx.$queryRaw<{ pid: number; tenant: string; ro: string; began: Date }[]>`
          SELECT pg_backend_pid() AS pid, current_setting('app.tenant_id') AS tenant,
                 current_setting('transaction_read_only') AS ro, now() AS began`;
        const c = await tx.client.count();
        expect(c).toBeGreaterThan(0);
        return [
          [a[0].pid, b[0].pid],
          [a[0].tenant, b[0].tenant, b[0].ro],
          [a[0].began, b[0].began],
        ] as const;
      },
      { readOnly: true },
    );
    expect(pids[0]).toBe(pids[1]);
    expect(tenants).toEqual([String(o.org.id), String(o.org.id), 'on']);
    expect(began[0]).toEqual(began[1]);
  });

  it('a failed statement fails its unit only: the connection goes back clean and the next units read as usual', async () => {
    const db = t.app.services.db;
    for (let i = 0; i < 25; i++) {
      await expect(
        db.tenant(o.org.id, (tx) => tx.$queryRaw`SELECT 1 / 0 AS boom`, { readOnly: true }),
      ).rejects.toThrow();
      const n = await db.tenant(o.org.id, (tx) => tx.client.count(), { readOnly: true });
      expect(n).toBeGreaterThan(0);
    }
    const r = await o.api.get(`/clients/${mine.client_no}`, { token: o.tokens.staff });
    expect(r.status).toBe(200);
  });

  it('a unit whose connection dies while it holds it fails alone: the process lives on and the next units read', async () => {
    const db = t.app.services.db;
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    try {
      const failed = db.tenant(
        o.org.id,
        async (tx) => {
          const [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          // Killed between two statements: pg emits 'error' on a connection its pool has lent out, with no listener
          // of the pool's own, which would stop the process as an uncaught exception.
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          await new Promise((r) => setTimeout(r, 200));
          return tx.client.count();
        },
        { readOnly: true },
      );
      await expect(failed).rejects.toThrow();
    } finally {
      await admin.end();
    }
    for (let i = 0; i < 5; i++)
      expect(await db.tenant(o.org.id, (tx) => tx.client.count(), { readOnly: true })).toBeGreaterThan(0);
    expect((await o.api.get(`/clients/${mine.client_no}`, { token: o.tokens.staff })).status).toBe(200);
  });

  it('a unit that returns Prisma’s query unawaited still runs it within its tenant', async () => {
    const db = t.app.services.db;
    const row = await db.tenant(
      other.org.id,
      (tx) => tx.client.findFirst({ where: { clientNo: theirs.client_no }, select: { tenantId: true } }),
      { readOnly: true },
    );
    expect(row).toEqual({ tenantId: other.org.id });
  });
});

describe('spreadCompoundKeys', () => {
  it('spreads a compound unique input into its fields, and leaves any other filter as it is', () => {
    expect(spreadCompoundKeys({ where: { tenantId_code: { tenantId: 1, code: 'A' } }, select: { id: true } })).toEqual({
      where: { tenantId: 1, code: 'A' },
      select: { id: true },
    });
    expect(spreadCompoundKeys({ where: { id: 5 } })).toEqual({ where: { id: 5 } });
    // Not a compound key: a relation filter whose name has an underscore but other fields.
    expect(spreadCompoundKeys({ where: { a_b: { a: 1 } } })).toEqual({ where: { a_b: { a: 1 } } });
    expect(spreadCompoundKeys(undefined)).toBeUndefined();
  });

  it('keeps both conditions when the filter names a field of the key again', () => {
    expect(spreadCompoundKeys({ where: { tenantId_code: { tenantId: 1, code: 'A' }, code: { not: 'B' } } })).toEqual({
      where: { AND: [{ code: { not: 'B' } }, { tenantId: 1, code: 'A' }] },
    });
  });
});
