import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { childClockEnv } from './clock.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The node flags `npm start` gives (package.json's start script: `node <flags> scripts/start.mjs`), so a test or a
 * bench that starts the compiled service starts it exactly as `npm start` does.
 */
export function startFlags(): string[] {
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const m = /^node((?:\s+--[\w-]+(?:=\S+)?)*)\s+scripts\/start\.mjs$/.exec(script.trim());
  if (!m) throw new Error(`package.json's start script is not "node [flags] scripts/start.mjs": ${script}`);
  return m[1].trim() ? m[1].trim().split(/\s+/) : [];
}

export interface Spawned {
  child: ChildProcess;
  origin: string;
  /** Everything the process printed so far (stdout and stderr interleaved), for failure messages. */
  output(): string;
  /** Resolves with the exit once the process has ended (immediately if it already has). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
}

/**
 * Starts the real entrypoint from source (`node --import tsx src/main.ts`), with an environment built
 * from scratch: only PATH and HOME are inherited, so no DATABASE_URL, NODE_ENV or test setting leaks in from the
 * test runner. A server started with NODE_ENV=test gets TEST_CLOCK, the test's clock, unless `env` sets its own.
 * With PORT=0 the server binds a port of the system's choosing (no probe-then-bind race): `origin` is read from its
 * ready line (logged at LOG_LEVEL info) and throws until then; waitHealthy waits for it. `ownProcessGroup` makes it
 * the leader of a process group of its own, as a shell makes `npm start`; `bundle` runs the compiled build instead.
 */
export function spawnServer(
  env: Record<string, string>,
  opts: { ownProcessGroup?: boolean; bundle?: boolean } = {},
): Spawned {
  // `bundle`: exactly `npm start` (scripts/start.mjs, the compiled dist/main.mjs, rebuilt first if stale).
  const args = opts.bundle ? [...startFlags(), 'scripts/start.mjs'] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // As a terminal starts it: the leader of a process group, which Ctrl-C signals as a whole (kill(-pid)).
    detached: opts.ownProcessGroup ?? false,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      // A test-mode server shares the test's clock (test/helpers/clock.ts); TEST_CLOCK is refused in any other mode.
      ...(env.NODE_ENV === 'test' ? childClockEnv() : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let origin = env.PORT && env.PORT !== '0' ? `http://127.0.0.1:${env.PORT}` : undefined;
  const append = (b: Buffer) => {
    out += b.toString('utf8');
    origin ??= /Bima Gateway ready on (http:\/\/[\w.:[\]]+)/.exec(out)?.[1];
    // Keep the tail: a chatty process must not grow the buffer without bound.
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  return {
    child,
    get origin() {
      if (!origin) throw new Error('the server has not said where it listens yet (PORT=0: its ready line names it)');
      return origin;
    },
    output: () => out,
    exited,
    hasExited: () => done,
  };
}

/** The first error or fatal log line (pino levels 50/60), which names the cause better than the shutdown noise after it. */
function firstError(out: string): string {
  const line = out.split('\n').find((l) => /"level":(50|60)/.test(l));
  return line ? `first error: ${line.slice(0, 3000)}\n` : '';
}

/** Polls GET /healthz until 200; fails early, with the process output, if the process exits first. */
export async function waitHealthy(s: Spawned, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (s.hasExited())
      throw new Error(
        `server exited before it was healthy (${JSON.stringify(await s.exited)}):\n${firstError(s.output())}${s.output().slice(-3000)}`,
      );
    try {
      const r = await fetch(`${s.origin}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (r.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server not healthy after ${timeoutMs} ms:\n${firstError(s.output())}${s.output().slice(-3000)}`);
}

/** Sends `signal` and waits (bounded) for the exit; null when the process outlived the wait. */
export async function stopWith(s: Spawned, signal: NodeJS.Signals, timeoutMs: number) {
  if (!s.hasExited()) s.child.kill(signal);
  return Promise.race([s.exited, new Promise<null>((r) => setTimeout(() => r(null), timeoutMs).unref())]);
}

/** Waits (bounded) for the process to exit by itself; null when it outlived the wait (it is not signalled). */
export function waitExit(s: Spawned, timeoutMs: number) {
  return Promise.race([s.exited, new Promise<null>((r) => setTimeout(() => r(null), timeoutMs).unref())]);
}

/** Whether a process with this pid is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until the process is gone; whether it is. */
export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

/** The parent of a process, from /proc (null when it is gone). */
export function parentPid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces, so split after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

export interface FreshAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  text: string;
}

/**
 * A request on a connection of its own, closed after the answer (no keep-alive agent): under node:cluster every
 * connection is handed to the next worker in turn, so consecutive calls reach different workers.
 */
export function requestFresh(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<FreshAnswer> {
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: o.method ?? 'GET',
        agent: false,
        headers: {
          connection: 'close',
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...o.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.end(payload);
  });
}
