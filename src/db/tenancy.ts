import { createHash } from 'node:crypto';
import type pg from 'pg';

/** The role the service runs as when it connects as a superuser (superusers and BYPASSRLS roles skip every policy). */
export const APP_ROLE = 'bima_app';

/**
 * The role platform work crosses organisations as: a transaction of Database.system() takes it with `SET LOCAL ROLE`,
 * and a second policy on every table admits it. `bima_app` is a member (so a login bound by row-level security, as
 * behind a pooler, may take it) without inheriting it: the policies of a role apply to the roles that inherit its
 * privileges, and `bima_app` itself must see nothing but the organisation its transaction names.
 */
export const SYSTEM_ROLE = 'bima_system';

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Tenant isolation, enforced by PostgreSQL itself: every table with a tenant_id column (and the tenants table) gets
 * row-level security, FORCEd so the table owner is bound too, with two policies. `tenant_isolation`, for every role:
 * a row is visible, and writable, only inside a transaction that set app.tenant_id to its tenant. `system_access`, for
 * `bima_system` only: every row, for the platform work that must cross organisations (token lookup, sweeps, seeding),
 * which takes that role for its transaction. PostgreSQL applies only the policies of the current role, so a tenant's
 * statement carries the plain equality `tenant_id = <setting>`: an index condition, estimated from the value (it was
 * `… OR app.system = 'on'`, an OR no index serves, so a statement that did not name the organisation itself read every
 * organisation's rows). Applied after every migration to every matching table, so a new table cannot be forgotten.
 * A session that set nothing sees nothing.
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
  const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [SYSTEM_ROLE]);
  if (!rowCount)
    throw new Error(`role ${SYSTEM_ROLE} is missing: the first start must run as a superuser (it creates the roles)`);
  const visible = (col: string) => `(${col} = nullif(current_setting('app.tenant_id', true), '')::int)`;
  const system = `TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`;
  const version = (col: string) =>
    `tenant_isolation ${createHash('sha256')
      .update(`${visible(col)}\n${system}`)
      .digest('hex')}`;
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
    await client.query(`DROP POLICY IF EXISTS system_access ON ${t}`);
    await client.query(`CREATE POLICY tenant_isolation ON ${t} USING ${visible(col)} WITH CHECK ${visible(col)}`);
    await client.query(`CREATE POLICY system_access ON ${t} ${system}`);
    await client.query(`COMMENT ON POLICY tenant_isolation ON ${t} IS '${version(col)}'`);
  };
  for (const table of tables) await apply(table, 'tenant_id');
  await apply('tenants', 'id');
  return [...tables, 'tenants'];
}

/**
 * Creates the non-bypassing roles (when we may): the application's and the system work's. Run before the policies
 * (which name `bima_system`); `ensureAppRole` grants them the tables afterwards.
 */
export async function ensureRoles(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ can: boolean; version: number }>(
    `SELECT rolsuper OR rolcreaterole AS can, current_setting('server_version_num')::int AS version
       FROM pg_roles WHERE rolname = current_user`,
  );
  if (!rows[0]?.can) return false;
  for (const role of [APP_ROLE, SYSTEM_ROLE])
    await client.query(`DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
          CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOBYPASSRLS;
        END IF;
      END $$`);
  await client.query(`GRANT ${APP_ROLE} TO current_user`).catch(() => undefined);
  await client.query(`GRANT ${SYSTEM_ROLE} TO current_user`).catch(() => undefined);
  // A member that does not inherit: bima_app (and a login granted it) may SET ROLE bima_system, but is not admitted
  // by its policy otherwise. PostgreSQL 16 sets that per grant; 15 by the member's INHERIT attribute.
  if (rows[0].version >= 160000) await client.query(`GRANT ${SYSTEM_ROLE} TO ${APP_ROLE} WITH INHERIT FALSE, SET TRUE`);
  else {
    await client.query(`ALTER ROLE ${APP_ROLE} NOINHERIT`);
    await client.query(`GRANT ${SYSTEM_ROLE} TO ${APP_ROLE}`);
  }
  return true;
}

/**
 * Grants the application's and the system work's roles what the service needs (after every migration), when
 * ensureRoles could create them.
 */
export async function ensureAppRole(client: pg.ClientBase): Promise<void> {
  const schema = quoteIdent((await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s);
  for (const role of [APP_ROLE, SYSTEM_ROLE]) {
    await client.query(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role}`);
    await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
  }
  // The token lookup (migration auth_lookup) reads across organisations: it runs as bima_system (SECURITY DEFINER, its
  // owner), with the search path fixed so a caller's objects cannot stand in for the tables. It was declared with
  // `SET app.system = 'on'`, which no policy reads any more.
  await client.query(`ALTER FUNCTION app_authenticate(text, text) OWNER TO ${SYSTEM_ROLE}`);
  await client.query(
    `ALTER FUNCTION app_authenticate(text, text) SECURITY DEFINER RESET ALL SET search_path = ${schema}, pg_temp`,
  );
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
