import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { appendFile, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.ts';

// A real PostgreSQL deployment for one test file, in a temp directory of its own: a primary, a streaming hot standby
// cloned from it with pg_basebackup (replication slot `standby1`), and PgBouncer in transaction mode in front of the
// primary. The engines are Debian's (apt-get install pgbouncer postgresql), run as the `postgres` system user when
// the tests run as root, since neither agrees to run as root.

/** Where the engines were found, and what is missing (empty when everything is there). */
export interface PgEngines {
  pgBin: string | null;
  pgbouncer: string | null;
  missing: string[];
}

const PG_TOOLS = ['postgres', 'initdb', 'pg_ctl', 'pg_basebackup'];
/** Every wait (a start, a stop, a connection, replication catching up) gives up after this long. */
const WAIT_MS = 30_000;
const INSTALL_HINT = 'apt-get install pgbouncer postgresql';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds the engines: a /usr/lib/postgresql/<N>/bin with postgres, initdb, pg_ctl and pg_basebackup (highest N), and pgbouncer (PATH or /usr/sbin). */
export function findPgEngines(): PgEngines {
  let versions: string[] = [];
  try {
    versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+(\.\d+)?$/.test(v));
  } catch {
    /* no Debian PostgreSQL at all */
  }
  versions.sort((a, b) => Number(b) - Number(a));
  const pgBin =
    versions
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .find((bin) => PG_TOOLS.every((t) => executable(path.join(bin, t)))) ?? null;
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/sbin'];
  const pgbouncer = dirs.map((d) => path.join(d, 'pgbouncer')).find(executable) ?? null;
  const missing: string[] = [];
  if (!pgBin) missing.push(`postgresql (a /usr/lib/postgresql/<N>/bin with ${PG_TOOLS.join(', ')})`);
  if (!pgbouncer) missing.push('pgbouncer (on PATH or in /usr/sbin)');
  return { pgBin, pgbouncer, missing };
}

/** The running deployment: where to connect, and the standby's crash and restart. */
export interface PgCluster {
  /** Superuser (postgres), direct to the primary, database `bima`. */
  primaryUrl: string;
  /** The application login role (appRole), through PgBouncer (pool_mode = transaction) to the primary, database `bima`. */
  poolerUrl: string;
  /** The application login role, direct to the standby, database `bima`. */
  replicaUrl: string;
  /** Stops the standby at once (pg_ctl stop -m immediate), as a crash would. */
  killReplica(): Promise<void>;
  /** Starts the standby again on the same port and data directory; resolves once it accepts connections. */
  startReplica(): Promise<void>;
  /** Stops everything (immediate) and removes the temp directory. Idempotent. */
  stop(): Promise<void>;
}

/** The user the engines run as: `postgres` when we are root (they refuse root), otherwise ourselves (undefined). */
function engineUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      `startPgCluster: running as root, and there is no \`postgres\` system user to run the engines as (${INSTALL_HINT} creates it)`,
    );
  }
}

/** The last lines of a log file, for error messages ('' when it does not exist). */
function tail(file: string, lines = 30): string {
  try {
    const text = readFileSync(file, 'utf8').trimEnd();
    return text ? `\n--- last lines of ${file} ---\n${text.split('\n').slice(-lines).join('\n')}` : '';
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SQL identifier quoting. */
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Live deployments, for the exit handler: what must not outlive the test process. */
interface Live {
  dir: string;
  pgCtl: string;
  user: { uid: number; gid: number } | undefined;
  dataDirs: string[];
  bouncer: ChildProcess | undefined;
}
const live = new Set<Live>();
let exitHookInstalled = false;

/** Synchronously kills whatever a deployment still runs and removes its directory ('exit' runs no async code). */
function killNow(l: Live): void {
  if (l.bouncer?.pid && l.bouncer.exitCode === null && l.bouncer.signalCode === null) {
    try {
      process.kill(l.bouncer.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (const dataDir of l.dataDirs) {
    if (!existsSync(path.join(dataDir, 'postmaster.pid'))) continue;
    try {
      execFileSync(l.pgCtl, ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '10'], {
        cwd: l.dir,
        stdio: 'ignore',
        timeout: 15_000,
        ...l.user,
      });
    } catch {
      /* best effort: the process is ending */
    }
  }
  rmSync(l.dir, { recursive: true, force: true });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const l of live) killNow(l);
    live.clear();
  });
}

/**
 * Starts a primary, a streaming hot standby of it and PgBouncer (transaction pooling) in front of it, in a fresh temp
 * directory, on free ports of 127.0.0.1; resolves once all three accept connections and a row written on the primary
 * has reached the standby. The primary has the login role `appRole` (default `bima_app`, no superuser, no
 * BYPASSRLS, granted nothing: the application's migrations grant it what it needs) and the database `bima`.
 * `poolSize` is PgBouncer's default_pool_size (default 20). Throws, naming what to install, when an engine is missing.
 * Call stop() when done; engines still running when the process exits are killed then.
 */
export async function startPgCluster(
  opts: {
    appRole?: string;
    poolSize?: number;
    /** recovery_min_apply_delay of the standby (ms): a replica that is always this far behind. */
    replicaApplyDelayMs?: number;
  } = {},
): Promise<PgCluster> {
  const appRole = opts.appRole ?? 'bima_app';
  const poolSize = opts.poolSize ?? 20;
  const engines = findPgEngines();
  if (!engines.pgBin || !engines.pgbouncer)
    throw new Error(`startPgCluster: missing ${engines.missing.join(' and ')}; install with: ${INSTALL_HINT}`);
  const pgBin = engines.pgBin;
  const pgbouncerBin = engines.pgbouncer;
  const user = engineUser();

  // Short: the unix sockets live here too (a socket path has a 107-byte limit).
  const base = os.tmpdir().length <= 60 ? os.tmpdir() : '/tmp';
  const dir = await mkdtemp(path.join(base, 'pgc-'));
  const own = (file: string) => {
    if (user) chownSync(file, user.uid, user.gid);
  };
  own(dir);
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const primaryLog = path.join(dir, 'primary.log');
  const standbyLog = path.join(dir, 'standby.log');
  const bouncerLog = path.join(dir, 'pgbouncer.log');
  const bouncerOut = path.join(dir, 'pgbouncer.out');
  const l: Live = {
    dir,
    pgCtl: path.join(pgBin, 'pg_ctl'),
    user,
    dataDirs: [standbyDir, primaryDir],
    bouncer: undefined,
  };
  installExitHook();
  live.add(l);

  /** Runs an engine tool to completion (as `postgres` when root), bounded; a failure carries its output and `log`. */
  const run = (tool: string, args: string[], log?: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(path.join(pgBin, tool), args, {
        cwd: dir,
        // From scratch: no PGDATA, PGHOST, PGPORT or PGUSER of the test's environment reaches the tools.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LC_ALL: 'C', TZ: 'UTC' },
        stdio: ['ignore', 'pipe', 'pipe'],
        ...user,
      });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
      child.stderr.on('data', (b: Buffer) => (out += b.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS + 5_000);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`${tool}: ${e.message}`));
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) return resolve(out);
        const why =
          signal === 'SIGKILL' ? `did not finish within ${(WAIT_MS + 5_000) / 1000} s` : `exited ${code ?? signal}`;
        reject(new Error(`${tool} ${args.join(' ')} ${why}:\n${out.trim()}${log ? tail(log) : ''}`));
      });
    });

  /** pg_ctl start, bounded by WAIT_MS; for a server in recovery -w waits until it accepts read-only connections. */
  const pgStart = (dataDir: string, log: string) =>
    run('pg_ctl', ['start', '-D', dataDir, '-l', log, '-w', '-t', String(WAIT_MS / 1000)], log);
  const pgStop = async (dataDir: string) => {
    if (existsSync(path.join(dataDir, 'postmaster.pid')))
      await run('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', String(WAIT_MS / 1000)]);
  };

  /** Connects (retrying until the deadline, or until `gone` says the server exited), runs `fn`, disconnects. */
  const withClient = async <T>(
    url: string,
    log: string,
    fn: (c: pg.Client) => Promise<T>,
    gone: () => boolean = () => false,
  ): Promise<T> => {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
      c.on('error', () => undefined);
      try {
        await c.connect();
      } catch (e) {
        await c.end().catch(() => undefined);
        if (gone()) throw new Error(`no connection to ${url}: the server exited${tail(log)}`, { cause: e });
        if (Date.now() > deadline)
          throw new Error(`no connection to ${url} within ${WAIT_MS / 1000} s: ${(e as Error).message}${tail(log)}`, {
            cause: e,
          });
        await sleep(200);
        continue;
      }
      try {
        return await fn(c);
      } finally {
        await c.end().catch(() => undefined);
      }
    }
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      const b = l.bouncer;
      if (b && b.exitCode === null && b.signalCode === null) {
        const exited = new Promise((r) => b.once('exit', r));
        b.kill('SIGTERM');
        const gone = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
        if (!gone) b.kill('SIGKILL');
      }
      for (const d of l.dataDirs) await pgStop(d).catch(() => undefined);
      live.delete(l);
      // Anything the polite stops left behind (a pg_ctl that failed), then the directory.
      killNow(l);
    })());

  try {
    // The primary.
    await run('initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--encoding=UTF8', '--locale=C', '-N']);
    const common = [
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'max_replication_slots = 5',
      'hot_standby = on',
      'max_connections = 200',
      'fsync = off',
    ];
    await writeFile(
      path.join(primaryDir, 'pg_hba.conf'),
      [
        'local all all trust',
        'local replication all trust',
        'host all all 127.0.0.1/32 trust',
        'host replication all 127.0.0.1/32 trust',
        '',
      ].join('\n'),
    );
    // A port may be taken between the probe and the bind: then another one (the last `port` line wins).
    let primaryPort = 0;
    for (let attempt = 1; ; attempt++) {
      primaryPort = await freePort();
      await appendFile(
        path.join(primaryDir, 'postgresql.conf'),
        `\n# startPgCluster\n${attempt === 1 ? common.join('\n') + '\n' : ''}port = ${primaryPort}\n`,
      );
      const err = await pgStart(primaryDir, primaryLog).then(
        () => null,
        (e: Error) => e,
      );
      if (!err) break;
      if (attempt >= 3 || !/could not bind|already in use/i.test(tail(primaryLog))) throw err;
    }
    const superUrl = (port: number, db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;
    const primaryUrl = superUrl(primaryPort, 'bima');
    await withClient(superUrl(primaryPort, 'postgres'), primaryLog, async (c) => {
      await c.query(`CREATE ROLE ${ident(appRole)} LOGIN NOSUPERUSER NOBYPASSRLS`);
      await c.query('CREATE DATABASE bima');
      await c.query(`SELECT pg_create_physical_replication_slot('standby1')`);
    });

    // The standby: a base backup that writes its own standby.signal and primary_conninfo (-R), streaming from the slot.
    await run('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir],
      ...['-R', '-X', 'stream', '-S', 'standby1', '-c', 'fast', '-N'],
    ]);
    let replicaPort = 0;
    for (let attempt = 1; ; attempt++) {
      replicaPort = await freePort();
      await appendFile(
        path.join(standbyDir, 'postgresql.auto.conf'),
        `port = ${replicaPort}\nunix_socket_directories = '${dir}'\nhot_standby_feedback = on\n` +
          (opts.replicaApplyDelayMs ? `recovery_min_apply_delay = '${opts.replicaApplyDelayMs}ms'\n` : ''),
      );
      const err = await pgStart(standbyDir, standbyLog).then(
        () => null,
        (e: Error) => e,
      );
      if (!err) break;
      if (attempt >= 3 || !/could not bind|already in use/i.test(tail(standbyLog))) throw err;
    }
    const replicaUrl = `postgresql://${encodeURIComponent(appRole)}@127.0.0.1:${replicaPort}/bima`;
    await withClient(replicaUrl, standbyLog, async (c) => {
      const { rows } = await c.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
      if (rows[0]?.r !== true)
        throw new Error(`the standby on port ${replicaPort} is not in recovery${tail(standbyLog)}`);
    });
    // Self-check: a row written on the primary reaches the standby (in the postgres database, dropped afterwards).
    await withClient(superUrl(primaryPort, 'postgres'), primaryLog, (c) =>
      c.query('CREATE TABLE pgc_replication_check (x int); INSERT INTO pgc_replication_check VALUES (42)'),
    );
    await withClient(superUrl(replicaPort, 'postgres'), standbyLog, async (c) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const seen = await c.query('SELECT x FROM pgc_replication_check').then(
          (r) => r.rowCount === 1,
          () => false,
        );
        if (seen) return;
        if (Date.now() > deadline)
          throw new Error(`a row written on the primary did not reach the standby within 10 s${tail(standbyLog)}`);
        await sleep(100);
      }
    });
    await withClient(superUrl(primaryPort, 'postgres'), primaryLog, (c) => c.query('DROP TABLE pgc_replication_check'));

    // PgBouncer, in the foreground as our child; its own log in pgbouncer.log, anything before that in pgbouncer.out.
    const userlist = path.join(dir, 'userlist.txt');
    await writeFile(userlist, `"${appRole.replace(/"/g, '""')}" ""\n`);
    own(userlist);
    const ini = path.join(dir, 'pgbouncer.ini');
    let poolerPort = 0;
    for (let attempt = 1; ; attempt++) {
      poolerPort = await freePort();
      await writeFile(
        ini,
        [
          '[databases]',
          `bima = host=127.0.0.1 port=${primaryPort} dbname=bima`,
          '',
          '[pgbouncer]',
          'listen_addr = 127.0.0.1',
          `listen_port = ${poolerPort}`,
          `unix_socket_dir =`,
          'auth_type = trust',
          `auth_file = ${userlist}`,
          'pool_mode = transaction',
          'max_client_conn = 1000',
          `default_pool_size = ${poolSize}`,
          // node-postgres sends none of these by default; other clients (psql, JDBC) do.
          'ignore_startup_parameters = extra_float_digits',
          `logfile = ${bouncerLog}`,
          `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
          'server_reset_query =',
          '',
        ].join('\n'),
      );
      own(ini);
      const fd = openSync(bouncerOut, 'a');
      own(bouncerOut);
      const b = spawn(pgbouncerBin, [ini], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
        stdio: ['ignore', fd, fd],
        ...user,
      });
      closeSync(fd);
      b.on('error', () => undefined);
      // The test process may end without stop(): the exit handler kills it then.
      b.unref();
      l.bouncer = b;
      const exited = new Promise<string>((r) => b.once('exit', (code, signal) => r(`exited ${code ?? signal}`)));
      const poolerUrl = `postgresql://${encodeURIComponent(appRole)}@127.0.0.1:${poolerPort}/bima`;
      const gone = () => b.exitCode !== null || b.signalCode !== null;
      const ready = withClient(poolerUrl, bouncerLog, (c) => c.query('SELECT 1'), gone).then(
        () => null,
        (e: Error) => e,
      );
      const outcome = await Promise.race([ready, exited]);
      if (outcome === null) {
        return {
          primaryUrl,
          poolerUrl,
          replicaUrl,
          async killReplica() {
            await pgStop(standbyDir);
          },
          async startReplica() {
            await pgStart(standbyDir, standbyLog);
            await withClient(replicaUrl, standbyLog, (c) => c.query('SELECT 1'));
          },
          stop,
        };
      }
      if (outcome instanceof Error) throw outcome;
      const why = `pgbouncer ${outcome} before it accepted connections${tail(bouncerLog)}${tail(bouncerOut)}`;
      if (attempt >= 3 || !/address already in use/i.test(why)) throw new Error(why);
    }
  } catch (e) {
    await stop();
    throw e;
  }
}
