import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AppServices } from '../context.ts';
import type { Logger } from '../lib/logger.ts';
import { type CliHost, commandOf, type ConsoleIdentity, defaultOperator, main } from './cli.ts';
import { serviceRuntime } from './runtime.ts';

/**
 * The started service's admin socket: `npm run admin` (scripts/admin.mjs) hands a command to the service that runs on
 * the same database (the embedded one in DATA_DIR, or the same DATABASE_URL) instead of loading the CLI's modules,
 * connecting a pool of its own and compiling Prisma's query compiler for one command — a command answers in the time
 * npm takes to start. The command runs the CLI's code
 * (cli.ts `main`) on the service's parts, as the `system` actor with the operator the CLI named, exactly as it would
 * in its own process.
 *
 * A Unix socket in DATA_DIR, readable and writable by the service's OS user only (mode 0600): whoever may use it may
 * already read DATA_DIR's database and demo credentials. One request per connection, a line of JSON
 * ({@link AdminRequest}); one answer, a line of JSON ({@link AdminAnswer}). The CLI runs a command itself when there
 * is no socket, nobody answers on it, the service was built from other sources, or the answer is `local`.
 */
export const ADMIN_SOCKET_FILE = 'admin.sock';

/** Where the socket is, or undefined when DATA_DIR's path is too long for one (a Unix socket's path is ≤ 107 bytes). */
export function adminSocketPath(dataDir: string): string | undefined {
  const p = path.join(dataDir, ADMIN_SOCKET_FILE);
  return Buffer.byteLength(p) <= 100 ? p : undefined;
}

export interface AdminRequest {
  argv: string[];
  /** Who runs the CLI ($USER, OS account, host): its operator when --operator is not given. */
  who: ConsoleIdentity;
  /** The mtime (ms) of the dist/main.mjs the CLI sees: a service built from other sources sends the CLI home. */
  build: number | null;
  /** sha256 (hex) of the CLI's DATABASE_URL, or null without one (the embedded database in DATA_DIR). */
  database: string | null;
}

export type AdminAnswer =
  | { exitCode: number; stdout: string; stderr: string }
  /**
   * Run it yourself: `build` (another build), `database` (the CLI names another database), `own-process` (a command
   * that must: webhooks listen, trigger; see Command.ownProcess), `busy`, `bad-request`.
   */
  | { local: 'build' | 'database' | 'own-process' | 'busy' | 'bad-request' };

/** A request is a command line: a few KB at most. */
const MAX_REQUEST_BYTES = 64 * 1024;
/** A client that connects and says nothing is dropped. */
const REQUEST_TIMEOUT_MS = 5_000;
/** Commands at once; beyond, the CLI runs its own. */
const MAX_IN_FLIGHT = 4;

export interface AdminSocket {
  path: string;
  /** Stops taking commands, lets the running ones answer (up to `timeoutMs`), removes the socket file. */
  close(timeoutMs: number): Promise<void>;
}

function parseRequest(line: string): AdminRequest | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = v as Partial<AdminRequest> | null;
  if (!r || !Array.isArray(r.argv) || r.argv.length > 100 || !r.argv.every((a) => typeof a === 'string')) return;
  const who = r.who as Partial<ConsoleIdentity> | undefined;
  const text = (v: unknown) => v === undefined || typeof v === 'string';
  if (!who || typeof who.host !== 'string' || !text(who.user) || !text(who.account)) return;
  if (r.build !== null && typeof r.build !== 'number') return;
  if (r.database !== null && typeof r.database !== 'string') return;
  const identity = { user: who.user, account: who.account, host: who.host };
  return { argv: r.argv, who: identity, build: r.build, database: r.database };
}

export async function serveAdminSocket(opts: {
  app: AppServices;
  databaseUrl: string;
  socketPath: string;
  /** This service's build (the mtime of its bundle), or null when it runs from source. */
  build: number | null;
  /** sha256 (hex) of this service's DATABASE_URL, or null on the embedded database: a CLI naming another goes home. */
  database: string | null;
  log: Logger;
}): Promise<AdminSocket> {
  const { app, databaseUrl, socketPath, build, database, log } = opts;
  const running = new Set<Promise<void>>();

  const run = async (req: AdminRequest): Promise<AdminAnswer> => {
    if (build === null || req.build !== build) return { local: 'build' };
    if (req.database !== database) return { local: 'database' };
    if (commandOf(req.argv).command?.ownProcess) return { local: 'own-process' };
    if (running.size >= MAX_IN_FLIGHT) return { local: 'busy' };
    let stdout = '';
    let stderr = '';
    const host: CliHost = {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      defaultOperator: () => defaultOperator(req.who),
      openRuntime: async (operator) => serviceRuntime(app, operator, databaseUrl),
      unexpected: (err) => log.error({ err, argv: req.argv }, 'admin command failed'),
    };
    const started = performance.now();
    const exitCode = await main(req.argv, host);
    log.info(
      { argv: req.argv.slice(0, 2), exit_code: exitCode, ms: Math.round(performance.now() - started) },
      'admin command',
    );
    return { exitCode, stdout, stderr };
  };

  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => undefined);
    let buffered = '';
    socket.setEncoding('utf8'); // a character split between two chunks is decoded whole
    const onData = (chunk: string) => {
      buffered += chunk;
      const nl = buffered.indexOf('\n');
      if (nl < 0 && buffered.length <= MAX_REQUEST_BYTES) return;
      socket.off('data', onData);
      socket.setTimeout(0);
      const req = nl < 0 ? undefined : parseRequest(buffered.slice(0, nl));
      const answered = (req ? run(req) : Promise.resolve<AdminAnswer>({ local: 'bad-request' }))
        .catch((err): AdminAnswer => {
          log.error({ err }, 'admin command failed');
          return { exitCode: 1, stdout: '', stderr: 'error: the service failed to run the command (see its log)\n' };
        })
        .then((answer) => void socket.end(`${JSON.stringify(answer)}\n`));
      running.add(answered);
      void answered.finally(() => running.delete(answered));
    };
    socket.on('data', onData);
  });
  server.on('error', (err) => log.error({ err }, 'admin socket error'));

  // A socket file left by a killed service, or by another process on this DATA_DIR: the newest takes the path over
  // (whichever answers, it runs the command on the database the CLI named, or sends it home).
  rmSync(socketPath, { force: true });
  // Created 0600 from the start: the umask covers the bind, which listen() makes before it returns (one process, not a
  // cluster worker); it is put back before anything else can create a file. Then made sure of.
  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const umask = process.umask(0o177);
  try {
    server.listen(socketPath);
  } finally {
    process.umask(umask);
  }
  await listening;
  chmodSync(socketPath, 0o600);

  return {
    path: socketPath,
    async close(timeoutMs) {
      server.close();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
      await Promise.race([Promise.allSettled([...running]), deadline]);
      rmSync(socketPath, { force: true });
    },
  };
}
