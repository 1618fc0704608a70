// `npm run admin -- <group> <command> [options]`: the operator's CLI. scripts/admin.ts is its source, compiled to
// dist/admin.mjs (built at install by scripts/build.mjs with the server, rebuilt first if any source is newer, as
// `npm start` does).
//
// When `npm start` runs beside it (the same DATA_DIR, and the same DATABASE_URL if any), the command goes to that
// service over its admin socket (DATA_DIR/admin.sock, src/admin/socket.ts) and runs there, on the service's warm parts: no modules to load, no pool
// to connect, no query compiler to build, so a command answers in little more than the time npm takes to start. This
// file stays small for that reason. The CLI runs the command itself (dist/admin.mjs) when no service answers on the
// socket, when the service runs on another database, when the service was built from other sources, when the service says the command
// must run in its own process (`webhooks listen` runs until Ctrl-C; `trigger` re-wires its runtime's rails), or when
// BIMA_ADMIN_IN_PROCESS=1.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ADMIN_OUTFILE, build, isStale, OUTFILE } from './build.mjs';

const argv = process.argv.slice(2);

/** Who runs the CLI: the service picks the default operator from it (src/admin/cli.ts `defaultOperator`). */
function consoleIdentity() {
  let account;
  try {
    account = os.userInfo().username;
  } catch {
    /* a uid with no account name */
  }
  return { user: process.env.USER, account, host: os.hostname() };
}

/** The service's answer (exit code, after printing it), or undefined when this process should run the command. */
async function viaService() {
  const env = process.env;
  if (env.TEST_CLOCK || env.BIMA_ADMIN_IN_PROCESS === '1') return undefined;
  const socketPath = path.resolve(process.cwd(), env.DATA_DIR ?? '.data', 'admin.sock');
  if (!existsSync(socketPath)) return undefined;
  // The database by its hash: a service on another one sends the command home (the URL itself never leaves here).
  const database = env.DATABASE_URL ? createHash('sha256').update(env.DATABASE_URL).digest('hex') : null;
  const request = { argv, who: consoleIdentity(), build: statSync(OUTFILE).mtimeMs, database };
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    let sent = false;
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      sent = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      // Nobody listening (a socket file left by a killed service): run it here, nothing was sent.
      if (!sent) return resolve(undefined);
      let a;
      try {
        a = JSON.parse(answer);
      } catch {
        // Sent and not answered: the service stopped meanwhile. The command may or may not have run; not run twice.
        process.stderr.write('error: the service stopped before answering; the command may or may not have run\n');
        return resolve(1);
      }
      if (a.local) return resolve(undefined);
      process.stdout.write(a.stdout);
      process.stderr.write(a.stderr);
      resolve(a.exitCode);
    });
  });
}

process.setSourceMapsEnabled(true);
if (isStale()) await build();
const exitCode = await viaService();
if (exitCode === undefined) await import(pathToFileURL(ADMIN_OUTFILE).href);
else process.exitCode = exitCode;
