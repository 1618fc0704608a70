import { createHash } from 'node:crypto';
import type pg from 'pg';

/** The role the service runs as when it connects as a superuser (superusers and BYPASSRLS roles skip every policy). */
export const APP_ROLE = 'bima_app';

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Tenant isolation, enforced by PostgreSQL itself: every table with a tenant_id column (and the tenants table) gets
 * row-level security, FORCEd so the table owner is bound too, with one policy. A row is visible, and writable, only
 * inside a transaction that set app.tenant_id to its tenant, or that explicitly declared itself a system operation
 * (token lookup, migrations, scheduled sweeps). Applied after every migration to every matching table, so a new
 * table cannot be forgotten. A session with neither setting sees nothing.
 *
 * A table whose policy is already the current one (its comment names the policy's hash) is left alone: a start over a
 * database another process is already serving takes no ACCESS EXCLUSIVE lock, which would deadlock with a running
 * process's transaction that reads two of the tables in the other order.
 */
export async function ensureTenantIsolation(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND c.column_name = 'tenant_id' AND t.table_type = 'BASE TABLE'
      ORDER BY 1`,
  );
  const tables = rows.map((r) => r.table_name);
  const visible = (col: string) =>
    `(${col} = nullif(current_setting('app.tenant_id', true), '')::int OR current_setting('app.system', true) = 'on')`;
  const version = (col: string) => `tenant_isolation ${createHash('sha256').update(visible(col)).digest('hex')}`;
  const { rows: current } = await client.query<{ relname: string; description: string }>(
    `SELECT c.relname, d.description
       FROM pg_class c
       JOIN pg_policy p ON p.polrelid = c.oid AND p.polname = 'tenant_isolation'
       JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_policy'::regclass
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relrowsecurity AND c.relforcerowsecurity`,
  );
  const upToDate = new Map(current.map((r) => [r.relname, r.description]));
  const apply = async (table: string, col: string) => {
    if (upToDate.get(table) === version(col)) return;
    const t = quoteIdent(table);
    await client.query(`ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY`);
    await client.query(`ALTER TABLE ${t} FORCE ROW LEVEL SECURITY`);
    await client.query(`DROP POLICY IF EXISTS tenant_isolation ON ${t}`);
    await client.query(`CREATE POLICY tenant_isolation ON ${t} USING ${visible(col)} WITH CHECK ${visible(col)}`);
    await client.query(`COMMENT ON POLICY tenant_isolation ON ${t} IS '${version(col)}'`);
  };
  for (const table of tables) await apply(table, 'tenant_id');
  await apply('tenants', 'id');
  return [...tables, 'tenants'];
}

/** Creates the non-bypassing application role (when we may) and grants it what the service needs. */
export async function ensureAppRole(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ can: boolean }>(
    `SELECT rolsuper OR rolcreaterole AS can FROM pg_roles WHERE rolname = current_user`,
  );
  if (!rows[0]?.can) return false;
  await client.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN
        CREATE ROLE ${APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
      END IF;
    END $$`);
  await client.query(`GRANT ${APP_ROLE} TO current_user`).catch(() => undefined);
  await client.query(
    `GRANT USAGE, CREATE ON SCHEMA ${quoteIdent((await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s)} TO ${APP_ROLE}`,
  );
  await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${APP_ROLE}`);
  await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${APP_ROLE}`);
  return true;
}

/**
 * Whether connections must switch to the application role: true for superusers and BYPASSRLS users, for whom
 * row-level security would otherwise not apply at all.
 */
export async function needsAppRole(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ bypass: boolean }>(
    `SELECT rolsuper OR rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user`,
  );
  return Boolean(rows[0]?.bypass);
}
