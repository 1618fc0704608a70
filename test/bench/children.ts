import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Child {
  proc: ChildProcess;
  origin: string;
  /** The child's last lines of output, for when it fails. */
  tail(): string;
  /** Resolves to how it ended: 'exit 0' is a clean shutdown. */
  stop(): Promise<string>;
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
): { proc: ChildProcess; tail: () => string } {
  const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', ...args], {
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
 * `node --import tsx src/main.ts` on a free port, with its own embedded PostgreSQL and demo seed under
 * `dataDir` (or DATABASE_URL's server when set). Resolves once /healthz answers 200, which the service only
 * does after migrations, seed and the credentials file.
 */
export async function startService(opts: {
  dataDir: string;
  timeoutMs: number;
  env?: Record<string, string>;
}): Promise<Child> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  delete env.NODE_ENV;
  // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops (Node refuses --cpu-prof in NODE_OPTIONS).
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
    : [];
  const { proc, tail } = spawnNode(['src/main.ts'], env, true, prof);
  const origin = `http://127.0.0.1:${port}`;
  const child: Child = { proc, origin, tail, stop: stopper(proc, 30_000) };

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

/** test/bench/baseline-server.ts replaying the captured responses; it prints its port once listening. */
export async function startBaseline(responsesFile: string): Promise<Child> {
  const { proc, tail } = spawnNode(['test/bench/baseline-server.ts', responsesFile], { ...process.env }, false);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baseline server did not start:\n${tail()}`)), 30_000);
    proc.once('exit', (code) => reject(new Error(`baseline server exited with code ${code}:\n${tail()}`)));
    createInterface({ input: proc.stdout! }).once('line', (l) => {
      clearTimeout(timer);
      resolve((JSON.parse(l) as { port: number }).port);
    });
  });
  return { proc, origin: `http://127.0.0.1:${port}`, tail, stop: stopper(proc, 5_000) };
}
