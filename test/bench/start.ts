/**
 * `npm run bench:start`: how long `npm start` (package.json's `start` script, run through npm as an operator runs
 * it) takes until GET /healthz answers 200, and how much memory it holds once ready.
 *
 * - cold: a new, empty DATA_DIR (initdb of the embedded PostgreSQL, every migration, the demo seed);
 * - warm: the same DATA_DIR again, after a clean stop;
 * - memory: VmRSS of the service's node process(es) and, separately, of its PostgreSQL's, once ready and idle 2 s.
 *
 * Where the time goes comes from the service's own log (pino JSON lines; `time` of the milestones it logs), counted
 * from the spawn of `npm start`, and from its `start step` lines (logged at debug: how long each step took). Under
 * NODE_ENV=production with a passkey and SECRETS_KEY of its own, as bench:http runs the service; BENCH_START_AS=readme
 * starts it as the README's newcomer does instead (no settings but PORT and DATA_DIR). BENCH_WEB_CONCURRENCY passes
 * WEB_CONCURRENCY (memory then covers every worker).
 *
 *   BENCH_START_RUNS (3): each run is one cold and one warm start, in a data directory of its own under the system's
 *   temporary directory, removed afterwards. Min and median are printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, newSecretsKey, productionEnv, ROOT } from './children.ts';
import { processTree, treeMemory } from './cpu.ts';

const runs = Number(process.env.BENCH_START_RUNS || 3);
if (!Number.isInteger(runs) || runs < 1) throw new Error('BENCH_START_RUNS must be a positive integer');
const webConcurrency = process.env.BENCH_WEB_CONCURRENCY || undefined;
if (webConcurrency !== undefined && !/^[1-9]\d*$/.test(webConcurrency))
  throw new Error('BENCH_WEB_CONCURRENCY must be a positive integer');
const as = process.env.BENCH_START_AS || 'production';
if (as !== 'production' && as !== 'readme') throw new Error('BENCH_START_AS must be production or readme');
const TIMEOUT_MS = 300_000;
const IDLE_MS = 2_000;
const log = (m: string) => process.stderr.write(`[start] ${m}\n`);

/** Log messages that mark a stage of start-up (the first line that matches each), in the order they happen. */
const MILESTONES: { label: string; match: (msg: string) => boolean }[] = [
  { label: 'PostgreSQL started', match: (m) => m === 'embedded PostgreSQL started' },
  { label: 'migrations up to date', match: (m) => m === 'migrations up to date' },
  { label: 'demo credentials written', match: (m) => m === 'demo credentials written' },
  { label: 'ready (logged)', match: (m) => m.startsWith('Bima Gateway ready on') },
];

interface Start {
  /** Milliseconds from the spawn of `npm start`, by milestone label; missing when not logged. */
  at: Map<string, number>;
  /** Milliseconds each start step took (the service's `start step` lines), by step. */
  steps: Map<string, number>;
  /** KiB once ready and idle. */
  nodeKb: number;
  /** The service's processes by command name, e.g. "node, esbuild" (tsx's transform helper). */
  nodeProcesses: string;
  postgresKb: number;
  postgresProcesses: number;
  npmKb: number;
}

const groups = new Set<number>();
// npm runs in a process group of its own: whatever happens to this process, nothing it started outlives it.
process.on('exit', () => {
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

async function startOnce(dataDir: string, secretsKey: string): Promise<Start> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(as === 'production' ? productionEnv(secretsKey) : {}),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    ...(webConcurrency ? { WEB_CONCURRENCY: webConcurrency } : {}),
  };
  delete env.DATABASE_URL; // the embedded PostgreSQL is part of what starts
  const t0 = Date.now();
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  groups.add(npm.pid!);
  const exited = new Promise<void>((r) => npm.once('exit', () => r()));
  const at = new Map<string, number>();
  const steps = new Map<string, number>();
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 30) tail.shift();
    let entry: { msg?: unknown; time?: unknown; step?: unknown; ms?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return; // npm's own banner
    }
    if (typeof entry.msg !== 'string' || typeof entry.time !== 'string') return;
    if (entry.msg === 'start step' && typeof entry.step === 'string' && typeof entry.ms === 'number')
      steps.set(entry.step, entry.ms);
    const m = MILESTONES.find((x) => !at.has(x.label) && x.match(entry.msg as string));
    if (m) at.set(m.label, Date.parse(entry.time) - t0);
  };
  createInterface({ input: npm.stdout }).on('line', onLine);
  createInterface({ input: npm.stderr }).on('line', onLine);

  try {
    for (;;) {
      if (npm.exitCode !== null || npm.signalCode !== null)
        throw new Error(
          `npm start ended (${npm.exitCode ?? npm.signalCode}) before /healthz answered:\n${tail.join('\n')}`,
        );
      if (Date.now() - t0 > TIMEOUT_MS) throw new Error(`no /healthz 200 within ${TIMEOUT_MS} ms:\n${tail.join('\n')}`);
      const status = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    at.set('/healthz 200', Date.now() - t0);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const tree = processTree(npm.pid);
    // The service: every process below npm's shell but PostgreSQL's (node, its workers, tsx's esbuild helper).
    const isService = (p: { pid: number; comm: string; postgres: boolean }) =>
      p.pid !== npm.pid && p.comm !== 'sh' && !p.postgres;
    const mem = treeMemory(npm.pid, (p) => p.pid !== npm.pid && p.comm !== 'sh');
    const npmMem = treeMemory(npm.pid, (p) => p.pid === npm.pid);
    return {
      at,
      steps,
      nodeKb: mem?.nodeKb ?? 0,
      nodeProcesses: tree
        .filter(isService)
        .map((p) => p.comm)
        .join(', '),
      postgresKb: mem?.postgresKb ?? 0,
      postgresProcesses: tree.filter((p) => p.postgres).length,
      npmKb: npmMem?.sumKb ?? 0,
    };
  } finally {
    await stop(npm, exited);
  }
}

/**
 * SIGTERM to the service's node process, the one npm (or npm's shell) started: npm and its shell may not pass
 * signals on. It stops its PostgreSQL and exits; npm follows. The whole group is killed if that takes over 30 s.
 */
async function stop(npm: ChildProcess, exited: Promise<void>): Promise<void> {
  if (npm.exitCode === null && npm.signalCode === null) {
    const tree = processTree(npm.pid);
    const shells = new Set(tree.filter((p) => p.comm === 'sh').map((p) => p.pid));
    const service = tree.find(
      (p) => p.pid !== npm.pid && !shells.has(p.pid) && (p.ppid === npm.pid || shells.has(p.ppid)),
    );
    if (service) process.kill(service.pid, 'SIGTERM');
    else npm.kill('SIGTERM');
    const timer = setTimeout(() => process.kill(-npm.pid!, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  // The postmaster is the service's child: wait until nothing of the group is left before its directory goes.
  const alive = () => {
    try {
      process.kill(-npm.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 300 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(-npm.pid!, 'SIGKILL');
  groups.delete(npm.pid!);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function cell(xs: number[], fmt: (x: number) => string): string {
  if (!xs.length) return '-';
  return xs.length === 1 ? fmt(xs[0]) : `${fmt(Math.min(...xs))} / ${fmt(median(xs))}`;
}

async function main(): Promise<void> {
  const startScript = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const cold: Start[] = [];
  const warm: Start[] = [];
  for (let i = 1; i <= runs; i++) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bima-start-'));
    // mkdtemp makes it 0700; the embedded PostgreSQL runs as the postgres user when we are root.
    await chmod(dataDir, 0o755);
    const secretsKey = newSecretsKey();
    try {
      log(`run ${i}/${runs}: cold start in ${dataDir}…`);
      cold.push(await startOnce(dataDir, secretsKey));
      log(`run ${i}/${runs}: warm start…`);
      warm.push(await startOnce(dataDir, secretsKey));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
  const memory = (label: string, kb: (r: Start) => number): [string, string, string] => [
    label,
    cell(cold.map(kb), mb),
    cell(warm.map(kb), mb),
  ];
  const rows: [string, string, string][] = [
    ...[...MILESTONES.map((m) => m.label), '/healthz 200'].map((label): [string, string, string] => [
      label,
      cell(
        cold.flatMap((r) => r.at.get(label) ?? []),
        s,
      ),
      cell(
        warm.flatMap((r) => r.at.get(label) ?? []),
        s,
      ),
    ]),
    ...[...new Set(cold.flatMap((r) => [...r.steps.keys()]))].map((step): [string, string, string] => [
      `  step: ${step}`,
      cell(
        cold.flatMap((r) => r.steps.get(step) ?? []),
        s,
      ),
      cell(
        warm.flatMap((r) => r.steps.get(step) ?? []),
        s,
      ),
    ]),
    memory(`RSS of the service (${cold[0].nodeProcesses})`, (r) => r.nodeKb),
    memory(`RSS of PostgreSQL (${cold[0].postgresProcesses} processes)`, (r) => r.postgresKb),
    memory('RSS of npm itself', (r) => r.npmKb),
  ];
  const head: [string, string, string] = [
    'since `npm start` was spawned',
    'cold (empty DATA_DIR)',
    'warm (same DATA_DIR)',
  ];
  const w = [0, 1, 2].map((c) => Math.max(head[c].length, ...rows.map((r) => r[c].length)));
  const line = (r: string[]) => `${r[0].padEnd(w[0])}  ${r[1].padStart(w[1])}  ${r[2].padStart(w[2])}`;
  const cpus = os.cpus();
  console.log(
    [
      '',
      `node ${process.version}, ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? '?'}), load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the end`,
      `npm start = ${startScript}; ${as === 'production' ? 'NODE_ENV=production' : "as the README's newcomer (no settings)"}, ${webConcurrency ? `WEB_CONCURRENCY=${webConcurrency}` : 'one process'}, ` +
        `DATA_DIR in ${os.tmpdir()}; ${runs} run${runs === 1 ? '' : 's'}${runs > 1 ? ', min / median' : ''}; ` +
        `milestones from the service's log; RSS (VmRSS) once ready and idle ${IDLE_MS / 1000} s`,
      '',
      line(head),
      w.map((n) => '-'.repeat(n)).join('  '),
      ...rows.map(line),
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`start bench failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
