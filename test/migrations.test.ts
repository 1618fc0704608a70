import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connToUrl, urlToConn } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { diffDatabaseToSchema, diffMigrationsToSchema } from '../src/db/schema-engine.ts';
import { createTestDatabase, dbServer } from './kit.ts';

const SCHEMA = 'prisma/schema.prisma';
const MIGRATIONS = 'prisma/migrations';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function adminQuery(sql: string): Promise<void> {
  const server = dbServer();
  const c = new pg.Client({ connectionString: connToUrl({ ...server, database: server.database || 'postgres' }) });
  await c.connect();
  await c.query(sql).finally(() => c.end());
}

/** An empty database (not the migrated template), dropped after the file. */
async function emptyDatabase(): Promise<string> {
  const name = `mig_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  cleanups.push(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  return connToUrl({ ...dbServer(), database: name });
}

/** A private copy of prisma/migrations that a test may edit. */
async function migrationsCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bima-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(MIGRATIONS, dir, { recursive: true });
  return dir;
}

async function migrationNames(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

const history = (url: string) =>
  query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
    url,
    'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
  );

const tableExists = async (url: string, table: string) =>
  (await query<{ r: string | null }>(url, 'SELECT to_regclass($1)::text AS r', [`public.${table}`]))[0].r !== null;

describe('schema.prisma and the migrations agree', () => {
  it('a database built by the migrations has no drift from schema.prisma', async () => {
    const db = await createTestDatabase('drift');
    cleanups.push(() => db.drop());
    expect(await diffDatabaseToSchema({ db: urlToConn(db.url), schemaPath: SCHEMA })).toBe('');

    // The check can fail: a column missing from the live database shows up as SQL to add it back.
    await query(db.url, 'ALTER TABLE insurers DROP COLUMN monogram');
    const drift = await diffDatabaseToSchema({ db: urlToConn(db.url), schemaPath: SCHEMA });
    expect(drift).toMatch(/ALTER TABLE "insurers"[\s\S]*"monogram"/);
  }, 120_000);

  it('replaying the migrations in a shadow database yields schema.prisma exactly', async () => {
    expect(await diffMigrationsToSchema({ server: dbServer(), migrationsDir: MIGRATIONS, schemaPath: SCHEMA })).toBe(
      '',
    );

    // The check can fail: a field added to the schema without a migration is reported.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bima-schema-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const schema = (await readFile(SCHEMA, 'utf8')).replace(
      /(\nmodel Insurer \{\n)/,
      '$1  driftProbe String? @map("drift_probe")\n',
    );
    expect(schema).toContain('drift_probe');
    await writeFile(path.join(dir, 'schema.prisma'), schema);
    const missing = await diffMigrationsToSchema({
      server: dbServer(),
      migrationsDir: MIGRATIONS,
      schemaPath: path.join(dir, 'schema.prisma'),
    });
    expect(missing).toMatch(/ADD COLUMN\s+"drift_probe"/);
  }, 120_000);
});

describe('the migration runner', () => {
  it('applies every migration once, recording sha256 checksums, and applies nothing the second time', async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    const names = await migrationNames(dir);
    expect(names.length).toBeGreaterThan(0);

    const first = await migrate(url, { dir });
    expect(first).toEqual({ applied: names, alreadyApplied: 0 });
    const rows = await history(url);
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const r of rows) {
      const sql = await readFile(path.join(dir, r.migration_name, 'migration.sql'));
      expect(r.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(r.finished_at).toBeInstanceOf(Date);
    }
    expect(await tableExists(url, 'insurers')).toBe(true);

    expect(await migrate(url, { dir })).toEqual({ applied: [], alreadyApplied: names.length });
    expect(await history(url)).toEqual(rows);
  }, 60_000);

  it('refuses to start when an applied migration was edited', async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    await migrate(url, { dir });
    const [firstName] = await migrationNames(dir);
    await appendFile(path.join(dir, firstName, 'migration.sql'), '\n-- an innocent-looking edit\n');
    await expect(migrate(url, { dir })).rejects.toThrow(new RegExp(`${firstName}.*edited`));
  }, 60_000);

  it('rolls back a failing migration completely and names it', async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    const good = await migrationNames(dir);
    const broken = '29991231000000_broken';
    await mkdir(path.join(dir, broken));
    await writeFile(
      path.join(dir, broken, 'migration.sql'),
      'CREATE TABLE "half_done" ("id" INTEGER PRIMARY KEY);\nINSERT INTO "half_done" VALUES (1);\nSELECT * FROM "no_such_table";\n',
    );

    await expect(migrate(url, { dir })).rejects.toThrow(new RegExp(`migration ${broken} failed`));
    expect(await tableExists(url, 'half_done')).toBe(false);
    // The migrations before it committed on their own; the broken one left no history row.
    expect((await history(url)).map((r) => r.migration_name)).toEqual(good);

    // Once fixed, it applies on the next start.
    await writeFile(path.join(dir, broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER PRIMARY KEY);\n');
    expect(await migrate(url, { dir })).toEqual({ applied: [broken], alreadyApplied: good.length });
    expect(await tableExists(url, 'half_done')).toBe(true);
  }, 60_000);

  it('lets two concurrent starts on a fresh database apply each migration exactly once', async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    const names = await migrationNames(dir);

    const results = await Promise.all([migrate(url, { dir }), migrate(url, { dir })]);
    expect(results.flatMap((r) => r.applied).sort()).toEqual(names);
    // One of them did the work, the other waited on the lock and found it done.
    expect(results.map((r) => r.alreadyApplied).sort()).toEqual([0, names.length]);
    expect((await history(url)).map((r) => r.migration_name)).toEqual(names);
  }, 60_000);

  it('refuses a database holding a migration this checkout does not know', async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    await migrate(url, { dir });
    await query(
      url,
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, now(), $3, now(), 1)`,
      ['00000000-0000-4000-8000-000000000001', 'f'.repeat(64), '29990101000000_from_a_newer_checkout'],
    );
    await expect(migrate(url, { dir })).rejects.toThrow(/does not know: 29990101000000_from_a_newer_checkout/);
  }, 60_000);
});
