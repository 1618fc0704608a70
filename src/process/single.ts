import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { adminSocketPath, type AdminSocket, serveAdminSocket } from '../admin/socket.ts';
import { startApp } from '../app.ts';
import { sha256Hex } from '../lib/crypto.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import {
  logReady,
  openDatabase,
  prepareDatabase,
  refuseUnsafeSettings,
  startSteps,
  writeCredentials,
} from './start.ts';

/**
 * One process (WEB_CONCURRENCY=1, or PROCESS_ROLE=jobs): the database, migrations and demo seed, then what
 * PROCESS_ROLE says: `all` the API and the job workers, `web` the API with a send-only pg-boss (the rail's and the
 * certificates' queues), `jobs` the job workers with /healthz and /readyz only. SIGTERM or SIGINT stops it cleanly.
 */
export async function runSingleProcess(config: Config, log: Logger): Promise<void> {
  const role = config.processRole;
  const step = startSteps(log);
  step('process and modules loaded');
  refuseUnsafeSettings(config, log);
  const { databaseUrl, embedded } = await openDatabase(config, log);
  step(embedded ? 'embedded PostgreSQL started' : 'database named (DATABASE_URL)');
  let stopApp: (() => Promise<void>) | undefined;
  let adminSocket: AdminSocket | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 10_000);
    force.unref();
    try {
      await adminSocket?.close(config.shutdownTimeoutMs);
      await stopApp?.();
      await embedded?.stop();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    const tenants = await prepareDatabase(config, log, databaseUrl, step);
    const app = await startApp({
      config,
      log,
      databaseUrl,
      migrate: false,
      jobs: role !== 'web',
      enqueue: role === 'web',
      http: role !== 'jobs',
      beforeReady: tenants ? (_services, origin) => writeCredentials(config, log, tenants, origin) : undefined,
    });
    stopApp = () => app.stop();
    // `npm run admin` beside this process hands its commands to it (src/admin/socket.ts).
    const socketPath = adminSocketPath(config.dataDir);
    const database = config.databaseUrl ? sha256Hex(config.databaseUrl) : null;
    if (socketPath)
      adminSocket = await serveAdminSocket({
        app: app.services,
        databaseUrl,
        socketPath,
        build: bundleBuild(),
        database,
        log,
      })
        .then((s) => (log.debug({ path: s.path }, 'admin socket'), s))
        .catch((err) => {
          // Not a fault: the CLI runs its commands in its own process (DATA_DIR may be read-only in a deployment).
          log.info({ err }, 'no admin socket: `npm run admin` runs its commands in its own process');
          return undefined;
        });
    step('service started (schema, caches, workers, listening)');
    logReady(config, log, app.origin);
  } catch (err) {
    log.error({ err }, 'start failed');
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  }
}

/** The mtime of the compiled bundle this runs from (dist/main.mjs), or null when it runs from source (tsx). */
function bundleBuild(): number | null {
  const file = fileURLToPath(import.meta.url);
  return file.endsWith('.mjs') ? statSync(file).mtimeMs : null;
}
