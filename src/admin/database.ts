import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { connToUrl } from '../db/embedded.ts';
import type { Config } from '../lib/config.ts';

/** A refusal the CLI prints as it is (no stack): the operator has something to fix first. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

const NOT_RUNNING =
  'no database is running: start the service with `npm start` (its embedded PostgreSQL under DATA_DIR) or set DATABASE_URL';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded PostgreSQL `npm start` runs under DATA_DIR/pg (src/db/embedded.ts): its port from the postmaster's pid
 * file (line 4), its password from the file kept beside the data directory. The CLI never starts one itself: with
 * the service stopped there is nothing to administer, and a second postmaster would contend for the directory.
 */
function embeddedUrl(config: Config): string {
  const dataDir = path.join(config.dataDir, 'pg');
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const secretFile = `${dataDir}.credentials.json`;
  if (!existsSync(pidFile) || !existsSync(secretFile))
    throw new CliError(`${NOT_RUNNING} (nothing running in ${dataDir})`);
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !alive(pid) || !Number.isInteger(port) || port <= 0) {
    throw new CliError(`${NOT_RUNNING} (the postmaster of ${dataDir} is not running)`);
  }
  const { password } = JSON.parse(readFileSync(secretFile, 'utf8')) as { password: string };
  return connToUrl({ host: '127.0.0.1', port, user: 'postgres', password, database: 'bima' });
}

/**
 * Where the service's database is, by the rules of `npm start`: DATABASE_URL, else the running embedded one. Behind a
 * pooler the CLI connects straight to the primary (DATABASE_DIRECT_URL): an operator's tool, with named statements and
 * the owner's role.
 */
export function resolveDatabaseUrl(config: Config): string {
  return config.databaseDirectUrl ?? config.databaseUrl ?? embeddedUrl(config);
}

/** Connects once with a deadline, so an unreachable server is a clear refusal rather than a hang. */
export async function probeDatabase(url: string, timeoutMs = 5_000): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    const where = new URL(url);
    throw new CliError(
      `cannot reach the database at ${where.hostname}:${where.port || 5432}${where.pathname}: ${(e as Error).message}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
