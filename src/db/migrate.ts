import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { sha256Hex } from '../lib/crypto.ts';
import type { Tx } from './client.ts';
import { ensureAppRole, ensureRoles, ensureTenantIsolation } from './tenancy.ts';

/** prisma/migrations of the checkout: two levels up from src/db, one from dist/ (the compiled build, scripts/build.mjs). */
export const MIGRATIONS_DIR = [
  path.resolve(import.meta.dirname, '../../prisma/migrations'),
  path.resolve(import.meta.dirname, '../prisma/migrations'),
].find((d) => existsSync(d))!;

/**
 * The one advisory lock of start-up work that must not run twice at once: migrations (a session lock, below) and the
 * demo seed with the platform secrets (a transaction lock, `takeStartLock`). Replicas started together take turns.
 * The name predates the seed's use of it; it is kept so a rolling upgrade still queues behind an older replica.
 */
export const START_LOCK_KEY = 'bima-gateway:migrate';

/** Waits for the start lock inside `tx`; it is released when `tx` ends (commit or rollback). */
export async function takeStartLock(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${START_LOCK_KEY}))`;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending migrations from prisma/migrations under the start lock (a session advisory lock: concurrent starts
 * queue), each file in its own transaction, recording standard `_prisma_migrations` rows (checksum = sha256 of the
 * file) so Prisma's CLI recognises the history. Refuses to start when an applied migration was edited or failed, or when
 * the database holds a migration this checkout does not know.
 */
export async function migrate(
  databaseUrl: string,
  opts: { log?: (m: string) => void; dir?: string } = {},
): Promise<MigrationResult> {
  const log = opts.log ?? (() => {});
  const dir = opts.dir ?? MIGRATIONS_DIR;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [START_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const names = existsSync(dir)
      ? (await readdir(dir, { withFileTypes: true }))
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
          .sort()
      : [];
    const { rows: done } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const byName = new Map(done.map((r) => [r.migration_name, r]));
    const unknown = done.filter((r) => !names.includes(r.migration_name));
    if (unknown.length) {
      throw new Error(
        `database has migrations this checkout does not know: ${unknown.map((u) => u.migration_name).join(', ')}`,
      );
    }
    const applied: string[] = [];
    for (const name of names) {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = sha256Hex(sql);
      const prior = byName.get(name);
      if (prior) {
        if (!prior.finished_at)
          throw new Error(`migration ${name} failed earlier and needs attention before the service can start`);
        if (prior.checksum !== checksum)
          throw new Error(
            `migration ${name} was edited after it was applied (checksum differs); add a new migration instead`,
          );
        continue;
      }
      log(`applying migration ${name}`);
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed and was rolled back: ${e instanceof Error ? e.message : String(e)}`, {
          cause: e,
        });
      }
      applied.push(name);
    }
    await client.query('BEGIN');
    const rolesMade = await ensureRoles(client);
    await ensureTenantIsolation(client);
    if (rolesMade) await ensureAppRole(client);
    await client.query('COMMIT');
    return { applied, alreadyApplied: names.length - applied.length };
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [START_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
