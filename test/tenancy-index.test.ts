import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROLE, ensureTenantIsolation } from '../src/db/tenancy.ts';
import { createTestDatabase } from './helpers/db.ts';

/**
 * Issue 28: the row-level security policy is one PostgreSQL can read through an index. A table of 50 organisations'
 * rows gets the policy every tenant table gets (ensureTenantIsolation), and a statement that does not name the
 * organisation is planned, as the service's role, on the table's tenant index rather than a scan of every row.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let owner: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase('rls');
  owner = new pg.Client({ connectionString: db.url });
  await owner.connect();
  await owner.query(`CREATE TABLE rls_probe (
      id serial PRIMARY KEY, tenant_id int NOT NULL, created_at timestamptz NOT NULL, note text NOT NULL)`);
  await owner.query(`INSERT INTO rls_probe (tenant_id, created_at, note)
      SELECT g % 50 + 1, now() - g * interval '1 second', repeat('x', 80) FROM generate_series(1, 50000) g`);
  await owner.query('CREATE INDEX ON rls_probe (tenant_id, created_at)');
  await owner.query(`GRANT SELECT, INSERT, UPDATE ON rls_probe TO ${APP_ROLE}`);
  await owner.query(`GRANT USAGE ON SEQUENCE rls_probe_id_seq TO ${APP_ROLE}`);
  expect(await ensureTenantIsolation(owner)).toContain('rls_probe');
  await owner.query('ANALYZE rls_probe');
});

afterAll(async () => {
  await owner?.end();
  await db?.drop();
});

/** Runs `sql` as the service's role inside a transaction carrying the given settings; rolled back. */
async function as(settings: { tenant?: number; system?: boolean }, sql: string): Promise<pg.QueryResult> {
  await owner.query('BEGIN');
  try {
    await owner.query(`SET LOCAL ROLE ${APP_ROLE}`);
    if (settings.tenant !== undefined)
      await owner.query(`SELECT set_config('app.tenant_id', $1, true)`, [String(settings.tenant)]);
    if (settings.system) await owner.query(`SELECT set_config('app.system', 'on', true)`);
    return await owner.query(sql);
  } finally {
    await owner.query('ROLLBACK');
  }
}

const count = async (settings: { tenant?: number; system?: boolean }) =>
  Number((await as(settings, 'SELECT count(*) AS n FROM rls_probe')).rows[0].n);

function nodeTypes(plan: any): string[] {
  return [plan['Node Type'] as string, ...((plan.Plans as any[]) ?? []).flatMap(nodeTypes)];
}

describe('the tenant policy', () => {
  it('admits one organisation in db.tenant, every one in system work, none without either', async () => {
    expect(await count({ tenant: 7 })).toBe(1000);
    expect(await count({ system: true })).toBe(50000);
    expect(await count({ tenant: 7, system: true })).toBe(50000);
    expect(await count({})).toBe(0);
    expect(await count({ tenant: 0 })).toBe(0);
    const rows = (await as({ tenant: 7 }, 'SELECT DISTINCT tenant_id FROM rls_probe')).rows;
    expect(rows).toEqual([{ tenant_id: 7 }]);
  });

  it("refuses writing another organisation's row from db.tenant", async () => {
    await expect(
      as({ tenant: 7 }, `INSERT INTO rls_probe (tenant_id, created_at, note) VALUES (8, now(), 'n')`),
    ).rejects.toThrow(/row-level security/);
    await expect(as({ tenant: 7 }, 'UPDATE rls_probe SET tenant_id = 8 WHERE tenant_id = 7')).rejects.toThrow(
      /row-level security/,
    );
    const inserted = await as(
      { tenant: 7 },
      `INSERT INTO rls_probe (tenant_id, created_at, note) VALUES (7, now(), 'n')`,
    );
    expect(inserted.rowCount).toBe(1);
  });

  it('is read through the tenant index when a statement does not name the organisation', async () => {
    const explain = (sql: string) =>
      as({ tenant: 7 }, `EXPLAIN (FORMAT JSON) ${sql}`).then((r) => nodeTypes(r.rows[0]['QUERY PLAN'][0].Plan));
    const page = await explain('SELECT id FROM rls_probe ORDER BY created_at DESC LIMIT 25');
    expect(page).not.toContain('Seq Scan');
    expect(page.some((n) => n.includes('Index'))).toBe(true);
    expect(await explain('SELECT count(*) FROM rls_probe')).not.toContain('Seq Scan');
  });

  it('is refused on a table whose tenant_id may be null (a null would be outside every organisation)', async () => {
    await owner.query('CREATE TABLE rls_loose (id serial PRIMARY KEY, tenant_id int)');
    try {
      await expect(ensureTenantIsolation(owner)).rejects.toThrow(/tenant_id must be NOT NULL.*rls_loose/);
    } finally {
      await owner.query('DROP TABLE rls_loose');
    }
  });
});
