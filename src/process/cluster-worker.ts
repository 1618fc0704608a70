import { type RunningApp, startApp } from '../app.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';

/** What a worker tells its primary, and what it is told (src/process/cluster-primary.ts). */
export type ToPrimary = { type: 'bima:listening'; origin: string } | { type: 'bima:ready'; origin: string };
export type ToWorker = { type: 'bima:seeded' } | { type: 'bima:shutdown' };

/** The environment a worker is forked with: its slot (1…WEB_CONCURRENCY) and whether it runs the job workers. */
export const WORKER_SLOT = 'BIMA_WORKER_SLOT';
export const WORKER_JOBS = 'BIMA_WORKER_JOBS';

const isToWorker = (m: unknown, type: ToWorker['type']): boolean =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;

function tell(m: ToPrimary): void {
  if (process.connected) process.send?.(m);
}

/**
 * One HTTP worker of the node:cluster primary. The primary has migrated and seeded; the worker starts the app without
 * migrating (its own pool of DB_POOL_SIZE connections, its own event-bus listener), listens on the shared port, and
 * reports ready only once the primary has written the credentials file. Without REDIS_URL its rate limits are the
 * primary's (src/lib/rate-limit-cluster.ts). Slot 1 runs the job workers under PROCESS_ROLE=all; the others send jobs
 * only. It stops gracefully on the primary's word, on SIGTERM/SIGINT, or when the primary has gone.
 */
export async function runClusterWorker(config: Config, log: Logger): Promise<void> {
  const slot = Number(process.env[WORKER_SLOT]);
  const jobs = process.env[WORKER_JOBS] === '1';
  const wlog = log.child({ worker: slot, pid: process.pid });
  let app: RunningApp | undefined;
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    wlog.info({ why }, 'worker stopping');
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 10_000).unref();
    try {
      await app?.stop();
      process.exit(0);
    } catch (err) {
      wlog.error({ err }, 'worker stop failed');
      process.exit(1);
    }
  };
  const seeded = new Promise<void>((resolve) => {
    const onMessage = (m: unknown) => {
      if (!isToWorker(m, 'bima:seeded')) return;
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
  });
  process.on('message', (m: unknown) => {
    if (isToWorker(m, 'bima:shutdown')) void stop('the primary is shutting down');
  });
  process.on('disconnect', () => {
    wlog.error('the cluster primary has gone: stopping');
    void stop('primary gone');
  });
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  try {
    app = await startApp({
      config,
      log: wlog,
      databaseUrl: config.databaseUrl!,
      migrate: false,
      jobs,
      enqueue: !jobs,
      clusterWorker: true,
      beforeReady: async (_services, origin) => {
        tell({ type: 'bima:listening', origin });
        await seeded;
      },
    });
  } catch (err) {
    wlog.error({ err }, 'worker start failed');
    process.exit(1);
  }
  // Test mode only: which worker answered, so a test can see the port is shared (no such header otherwise).
  if (config.testMode) {
    const pid = String(process.pid);
    app.http.server.prependListener('request', (_req, res) => res.setHeader('x-served-by', pid));
  }
  tell({ type: 'bima:ready', origin: app.origin });
}
