import cluster from 'node:cluster';
import v8 from 'node:v8';
import { setTestClock } from './lib/clock.ts';
import { type Config, loadConfig } from './lib/config.ts';
import { chooseLogFormat, createLogger } from './lib/logger.ts';
import { runClusterPrimary } from './process/cluster-primary.ts';
import { runClusterWorker, WORKER_SLOT } from './process/cluster-worker.ts';
import { runSingleProcess } from './process/single.ts';

/** Set by scripts/start.mjs when it rebuilt dist/ before loading it: the build's milliseconds. */
const REBUILT_MS = 'BIMA_REBUILT_MS';

/**
 * `npm start`: DATABASE_URL or an embedded PostgreSQL under .data/, migrations, demo data, then what PROCESS_ROLE
 * says (the API, the job workers, or both) in one process, or with WEB_CONCURRENCY > 1 in a node:cluster of that
 * many HTTP workers on one port (src/process/). docs/operations.md "Several processes and replicas".
 */
function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    // A bad setting is the operator's to fix: say which, without a stack trace.
    console.error(`bima-gateway: ${(err as Error).message}`);
    process.exit(1);
  }
  // Before the service's work begins: V8 reads the factor at each full collection (each cluster worker sets its own).
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  // Test mode only (loadConfig refuses TEST_CLOCK elsewhere): a test's server child shares the test's clock.
  if (config.testClock) setTestClock(config.testClock.at, { frozen: config.testClock.frozen });
  const level = config.logLevel === 'silent' ? 'info' : config.logLevel;
  const log = createLogger(level, chooseLogFormat(config.logFormat, config.nodeEnv));
  // scripts/start.mjs rebuilt a stale dist/ before loading it; taken out of the environment so that cluster workers,
  // which inherit it, do not say it again.
  const rebuiltMs = process.env[REBUILT_MS];
  if (rebuiltMs !== undefined) {
    delete process.env[REBUILT_MS];
    log.info({ build_ms: Number(rebuiltMs) }, 'dist/ was older than its sources: rebuilt before this start');
  }
  // Forked by our primary (a worker of another cluster manager, say PM2's, starts as a process of its own).
  if (cluster.isWorker && process.env[WORKER_SLOT]) return runClusterWorker(config, log);
  if (config.processRole === 'web' && !config.redisUrl)
    log.warn(
      'PROCESS_ROLE=web without REDIS_URL: rate limits are counted by this process (or its cluster primary) alone; ' +
        'replicas on other processes or machines each allow the full limit unless they share REDIS_URL',
    );
  if (config.webConcurrency > 1 && config.processRole === 'jobs') {
    log.warn('WEB_CONCURRENCY is ignored with PROCESS_ROLE=jobs: one process runs the job workers');
  } else if (config.webConcurrency > 1) {
    return runClusterPrimary(config, log);
  }
  return runSingleProcess(config, log);
}

void main();
