import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startFlags } from '../helpers/spawn.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Child {
  proc: ChildProcess;
  origin: string;
  /** The child's last lines of output, for when it fails. */
  tail(): string;
  /** Resolves to how it ended: 'exit 0' is a clean shutdown. */
  stop(): Promise<string>;
  /** The inspector's port, when the service was started for BENCH_CPU_PROF or BENCH_HEAP_PROF (profiler.ts). */
  inspectPort?: number;
}

const running = new Set<ChildProcess>();

// Ctrl-C or a crash of the runner must not leave a server (and its PostgreSQL) behind.
process.on('exit', () => {
  for (const p of running) p.kill('SIGTERM');
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const p of running) p.kill('SIGTERM');
    process.exit(130);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function spawnNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  keepStdout: boolean,
  nodeFlags: string[] = [],
  loader: string[] = ['--import', 'tsx'],
): { proc: ChildProcess; tail: () => string } {
  const proc = spawn(process.execPath, [...nodeFlags, ...loader, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  const lines: string[] = [];
  const keep = (l: string) => {
    lines.push(l);
    if (lines.length > 40) lines.shift();
  };
  createInterface({ input: proc.stderr }).on('line', keep);
  if (keepStdout) createInterface({ input: proc.stdout }).on('line', keep);
  return { proc, tail: () => lines.join('\n') };
}

/** SIGTERM, then wait for the exit (bounded); SIGKILL if it hangs. */
function stopper(proc: ChildProcess, graceMs: number): () => Promise<string> {
  const how = () => (proc.signalCode ? `signal ${proc.signalCode}` : `exit ${proc.exitCode}`);
  return async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return how();
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    return how();
  };
}

/**
 * What the service needs to start under NODE_ENV=production (src/lib/posture.ts), as a deployment has it: a
 * passkey of its own (production refuses the public Daraja sandbox one; the M-Pesa simulator does not check it) and
 * SECRETS_KEY (without it production warns that the master key lies beside the data). Settings already in the
 * environment win.
 */
export function productionEnv(secretsKey: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    MPESA_PASSKEY: process.env.MPESA_PASSKEY || randomBytes(32).toString('hex'),
    SECRETS_KEY: process.env.SECRETS_KEY || secretsKey,
  };
}

export const newSecretsKey = () => randomBytes(32).toString('base64');

/**
 * The data directory's own master key, secrets.key (created here when absent, as the service would), to pass as
 * SECRETS_KEY: secrets stored by earlier runs still open, and whoever derives a callback token from the directory
 * (delivery.ts) gets the same key.
 */
async function dataDirSecretsKey(dataDir: string): Promise<string> {
  const keyFile = path.join(dataDir, 'secrets.key');
  if (!existsSync(keyFile)) {
    await mkdir(dataDir, { recursive: true });
    await writeFile(keyFile, `${newSecretsKey()}\n`, { mode: 0o600, flag: 'wx' });
  }
  return (await readFile(keyFile, 'utf8')).trim();
}

/**
 * The service's database: DATABASE_URL when set, else the embedded cluster under `dataDir` (its password is kept
 * beside its data directory, `pg.credentials.json`; the fourth line of `postmaster.pid` is the port it listens on,
 * a free one each start). The superuser: it bypasses row-level security.
 */
export async function serviceDatabaseUrl(dataDir: string): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const pgDir = path.join(dataDir, 'pg');
  const { password } = JSON.parse(await readFile(`${pgDir}.credentials.json`, 'utf8')) as { password: string };
  const port = Number((await readFile(path.join(pgDir, 'postmaster.pid'), 'utf8')).split('\n')[3]);
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/bima`;
}

/**
 * `node --import tsx src/main.ts` on a free port under NODE_ENV=production, with its own embedded PostgreSQL and
 * demo seed under `dataDir` (or DATABASE_URL's server when set). Resolves once /healthz answers 200, which the
 * service only does after migrations, seed and the credentials file.
 */
export async function startService(opts: {
  dataDir: string;
  timeoutMs: number;
  env?: Record<string, string>;
}): Promise<Child> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...productionEnv(process.env.SECRETS_KEY || (await dataDirSecretsKey(opts.dataDir))),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  // BENCH_CPU_PROF or BENCH_HEAP_PROF=<dir>: the service listens for the inspector, and run.ts profiles each
  // measurement (profiler.ts).
  const inspectPort = process.env.BENCH_CPU_PROF || process.env.BENCH_HEAP_PROF ? await freePort() : undefined;
  const prof = inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : [];
  // What `npm start` runs (scripts/start.mjs: the compiled build, rebuilt if stale); a checkout from before the
  // compiled build (a bench of an older commit) runs src/main.ts under tsx as its `npm start` did.
  const compiled = existsSync(path.join(ROOT, 'scripts', 'start.mjs'));
  const { proc, tail } = compiled
    ? spawnNode(['scripts/start.mjs'], env, true, [...startFlags(), ...prof], [])
    : spawnNode(['src/main.ts'], env, true, prof);
  const origin = `http://127.0.0.1:${port}`;
  const child: Child = { proc, origin, tail, stop: stopper(proc, 30_000), inspectPort };

  const deadline = Date.now() + opts.timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null)
      throw new Error(`service exited with code ${proc.exitCode} before it was healthy:\n${tail()}`);
    const status = await fetch(`${origin}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  await child.stop();
  throw new Error(`service not healthy within ${opts.timeoutMs} ms:\n${tail()}`);
}

/** A server script of the bench that prints `{"port": N}` once listening. */
async function startListening(what: string, args: string[], env: NodeJS.ProcessEnv): Promise<Child> {
  const { proc, tail } = spawnNode(args, env, false);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${tail()}`)), 30_000);
    proc.once('exit', (code) => reject(new Error(`${what} exited with code ${code}:\n${tail()}`)));
    createInterface({ input: proc.stdout! }).once('line', (l) => {
      clearTimeout(timer);
      resolve((JSON.parse(l) as { port: number }).port);
    });
  });
  return { proc, origin: `http://127.0.0.1:${port}`, tail, stop: stopper(proc, 5_000) };
}

/** test/bench/baseline-server.ts replaying the captured responses. */
export function startBaseline(responsesFile: string): Promise<Child> {
  return startListening('baseline server', ['test/bench/baseline-server.ts', responsesFile], { ...process.env });
}

/** test/bench/quote-baseline.ts: the hand-written motor quote over `databaseUrl`, for the tenant `tenantCode`. */
export function startQuoteBaseline(databaseUrl: string, tenantCode: string): Promise<Child> {
  return startListening('hand-written quote service', ['test/bench/quote-baseline.ts', tenantCode], {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
  });
}

/** test/bench/hand/server.ts: the hand-written everyday paths over `databaseUrl`. */
export function startHandWritten(databaseUrl: string): Promise<Child> {
  return startListening('hand-written service', ['test/bench/hand/server.ts'], {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
  });
}
