import { startApp, type RunningApp } from '../../src/app.ts';
import { Database } from '../../src/db/client.ts';
import { type Config, loadConfig } from '../../src/lib/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase } from './db.ts';

export interface TestApp {
  app: RunningApp;
  origin: string;
  base: string;
  databaseUrl: string;
  /** A second connection to the same database, for test setup (factories) and assertions. */
  db: Database;
  stop(): Promise<void>;
}

/** A real server on a free port over its own database cloned from the migrated template. */
export async function startTestApp(
  overrides: Partial<Config> = {},
  opts: { jobs?: boolean; databaseUrl?: string; logTo?: NodeJS.WritableStream } = {},
): Promise<TestApp> {
  const database = opts.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = opts.databaseUrl ?? database!.url;
  const config: Config = {
    ...loadConfig({ NODE_ENV: 'test' }),
    port: 0,
    host: '127.0.0.1',
    // Tests create many tokens from one IP; the token-endpoint limit has its own test with the real figure.
    tokenRateLimitPerMinute: 10_000,
    // A stop drains for SHUTDOWN_DRAIN_MS (1 s) before it stops listening; tests stop hundreds of servers, and the
    // drain has its own test (test/graceful-stop.test.ts).
    shutdownDrainMs: 0,
    ...overrides,
  };
  // A test that reads the log lines gets every line, debug included, as JSON on its own stream.
  const log = opts.logTo
    ? createLogger('debug', 'json', opts.logTo)
    : createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const app = await startApp({ config, log, databaseUrl, migrate: false, jobs: opts.jobs ?? false });
  const db = await Database.connect(databaseUrl, { poolSize: 5 });
  return {
    app,
    origin: app.origin,
    base: `${app.origin}/api/v1`,
    databaseUrl,
    db,
    async stop() {
      await app.stop();
      await db.close();
      await database?.drop();
    },
  };
}
