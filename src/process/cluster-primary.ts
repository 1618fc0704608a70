import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { MemoryRateLimitStore, serveClusterRateLimits } from '../lib/rate-limit.ts';
import type { DemoCredentials } from '../seed/demo.ts';
import { type ToPrimary, type ToWorker, WORKER_JOBS, WORKER_SLOT } from './cluster-worker.ts';
import { logReady, openDatabase, prepareDatabase, refuseUnsafeSettings, writeCredentials } from './start.ts';

/** A worker that lived this long before dying starts its backoff again from the shortest delay. */
const STABLE_MS = 60_000;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 30_000;

interface Slot {
  n: number;
  /** Runs the job workers (slot 1 under PROCESS_ROLE=all). */
  jobs: boolean;
  worker?: Worker;
  exited?: Promise<void>;
  startedAt: number;
  /** Deaths in a row, each within STABLE_MS of its start. */
  crashes: number;
  refork?: NodeJS.Timeout;
}

/**
 * WEB_CONCURRENCY > 1: the node:cluster primary. It starts the embedded PostgreSQL (without DATABASE_URL), migrates
 * and seeds once, holds the rate-limit counters its workers share over IPC, and forks WEB_CONCURRENCY HTTP workers on
 * one port (src/process/cluster-worker.ts). It serves no request itself and runs no job: under PROCESS_ROLE=all the
 * job workers run in worker 1 (a crash there costs one worker, not the primary and with it every worker; the
 * primary's event loop stays free to answer the workers' rate-limit questions at once). A worker that dies is logged
 * and forked again after a backoff (0.5 s doubling to 30 s while it keeps dying young); slot 1's replacement takes
 * the jobs over. SIGTERM or SIGINT stops the workers gracefully, then PostgreSQL.
 */
export async function runClusterPrimary(config: Config, log: Logger): Promise<void> {
  refuseUnsafeSettings(config, log);
  const { databaseUrl, embedded } = await openDatabase(config, log);
  const limits = new MemoryRateLimitStore();
  // Set once the database is ready; a signal may arrive before.
  const started: { primary?: Primary; stopServingLimits?: () => void } = {};
  let stopping = false;
  const shutdown = async (why: string, code: number) => {
    if (stopping) return;
    stopping = true;
    log.info({ why }, 'shutting down');
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 20_000).unref();
    try {
      await started.primary?.stop();
      started.stopServingLimits?.();
      await limits.close();
      await embedded?.stop();
      log.info('stopped');
      process.exit(code);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  const failed = (err: unknown) => {
    log.error({ err }, 'start failed');
    void shutdown('start failed', 1);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('SIGINT', () => void shutdown('SIGINT', 0));

  let tenants: DemoCredentials['tenants'] | undefined;
  try {
    tenants = await prepareDatabase(config, log, databaseUrl);
  } catch (err) {
    return failed(err);
  }
  if (stopping) return;
  started.stopServingLimits = serveClusterRateLimits(limits);
  started.primary = new Primary(config, log, databaseUrl, tenants, failed);
  started.primary.start();
}

class Primary {
  readonly slots: Slot[];
  #origin?: string;
  #credentials?: Promise<void>;
  /** Set once every slot has reported ready: from then on a dead worker is replaced, before it the start fails. */
  #ready = false;
  readonly #readySlots = new Set<number>();
  #stopping = false;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly databaseUrl: string,
    private readonly tenants: DemoCredentials['tenants'] | undefined,
    /** A failed start: a worker died before every worker was ready, or the credentials file could not be written. */
    private readonly onFatal: (err: Error) => void,
  ) {
    this.slots = Array.from({ length: config.webConcurrency }, (_, i) => ({
      n: i + 1,
      jobs: config.processRole === 'all' && i === 0,
      startedAt: 0,
      crashes: 0,
    }));
  }

  start(): void {
    cluster.on('message', (w: Worker, m: unknown) => this.#onMessage(w, m as ToPrimary));
    cluster.on('exit', (w: Worker, code: number | null, signal: string | null) => this.#onExit(w, code, signal));
    for (const slot of this.slots) this.#fork(slot);
    this.log.info(
      { workers: this.slots.length, jobs_in_worker: this.slots.find((s) => s.jobs)?.n ?? null },
      'forking HTTP workers',
    );
  }

  #fork(slot: Slot): void {
    const worker = cluster.fork({
      [WORKER_SLOT]: String(slot.n),
      [WORKER_JOBS]: slot.jobs ? '1' : '0',
      // The primary's database, embedded or not: workers never start one of their own.
      DATABASE_URL: this.databaseUrl,
    });
    slot.worker = worker;
    slot.startedAt = Date.now();
    slot.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  #send(worker: Worker, m: ToWorker): void {
    if (worker.isConnected()) worker.send(m, undefined, () => undefined);
  }

  #onMessage(worker: Worker, m: ToPrimary): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if (!slot || typeof m !== 'object' || m === null) return;
    if (m.type === 'bima:listening') {
      this.#origin ??= m.origin;
      this.#credentials ??= this.tenants
        ? writeCredentials(this.config, this.log, this.tenants, this.#origin)
        : Promise.resolve();
      this.#credentials.then(
        () => this.#send(worker, { type: 'bima:seeded' }),
        (err: Error) => this.onFatal(err),
      );
    } else if (m.type === 'bima:ready') {
      this.log.info({ worker: slot.n, pid: worker.process.pid, jobs: slot.jobs }, 'worker ready');
      this.#readySlots.add(slot.n);
      if (!this.#ready && this.#readySlots.size === this.slots.length) {
        this.#ready = true;
        logReady(this.config, this.log, m.origin, { workers: this.slots.length, primary_pid: process.pid });
      }
    }
  }

  #onExit(worker: Worker, code: number | null, signal: string | null): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if (!slot) return;
    slot.worker = undefined;
    if (this.#stopping) return;
    const pid = worker.process.pid;
    if (!this.#ready) {
      this.onFatal(new Error(`worker ${slot.n} (pid ${pid}) exited during start (code ${code}, signal ${signal})`));
      return;
    }
    slot.crashes = Date.now() - slot.startedAt > STABLE_MS ? 1 : slot.crashes + 1;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (slot.crashes - 1));
    this.log.error(
      { worker: slot.n, pid, code, signal, jobs: slot.jobs, restart_in_ms: delay },
      'worker exited; forking a replacement',
    );
    slot.refork = setTimeout(() => {
      slot.refork = undefined;
      if (!this.#stopping) this.#fork(slot);
    }, delay);
  }

  /** Every worker told to stop (in-flight requests finish, WebSockets close, jobs stop); killed if it outlives the wait. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const s of this.slots) if (s.refork) clearTimeout(s.refork);
    const live = this.slots.flatMap((s) =>
      s.worker && !s.worker.isDead() ? [{ worker: s.worker, exited: s.exited ?? Promise.resolve() }] : [],
    );
    for (const { worker } of live) this.#send(worker, { type: 'bima:shutdown' });
    const all = Promise.all(live.map((l) => l.exited));
    const inTime = await Promise.race([
      all.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), this.config.shutdownTimeoutMs + 10_000).unref()),
    ]);
    if (!inTime) {
      this.log.error('workers outlived the shutdown wait: killing them');
      for (const { worker } of live) if (!worker.isDead()) worker.process.kill('SIGKILL');
      await all;
    }
  }
}
