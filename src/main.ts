import path from 'node:path';
import { startApp } from './app.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './db/embedded.ts';
import { setTestClock } from './lib/clock.ts';
import { type Config, loadConfig } from './lib/config.ts';
import { createLogger } from './lib/logger.ts';
import { seedDemo } from './seed/demo.ts';

/** `npm start`: DATABASE_URL or an embedded PostgreSQL under .data/, migrations, demo data, one HTTP server. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    // A bad setting is the operator's to fix: say which, without a stack trace.
    console.error(`bima-gateway: ${(err as Error).message}`);
    process.exit(1);
  }
  // Test mode only (loadConfig refuses TEST_CLOCK elsewhere): a test's server child shares the test's clock.
  if (config.testClock) setTestClock(config.testClock.at, { frozen: config.testClock.frozen });
  const log = createLogger(config.logLevel === 'silent' ? 'info' : config.logLevel);
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(config.dataDir, 'pg'),
      log: (m) => log.debug(m),
    }).catch((err: Error) => {
      log.fatal(err.message);
      process.exit(1);
    });
    databaseUrl = embedded.url;
    log.info({ port: embedded.conn.port, data_dir: path.join(config.dataDir, 'pg') }, 'embedded PostgreSQL started');
  }
  let stopApp: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 10_000);
    force.unref();
    try {
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
    const app = await startApp({
      config,
      log,
      databaseUrl,
      beforeReady: async (services, origin) => {
        if (!config.demoSeed) return;
        await seedDemo(services.db, {
          credentialsFile: config.demoCredentialsFile,
          origin: config.publicBaseUrl ?? origin,
          log: (m) => log.info(m),
        });
        log.info({ file: config.demoCredentialsFile }, 'demo credentials written');
      },
    });
    stopApp = () => app.stop();
    log.info(
      {
        graphql: `${app.origin}/graphql`,
        graphiql: config.graphiql ? `${app.origin}/graphql (open in a browser)` : null,
        rest: `${app.origin}/api/v1`,
        openapi: `${app.origin}/api/v1/openapi.json`,
        demo_credentials: config.demoSeed ? config.demoCredentialsFile : null,
      },
      `Bima Gateway ready on ${app.origin}`,
    );
  } catch (err) {
    log.error({ err }, 'start failed');
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  }
}

void main();
