import { existsSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../db/client.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { checkProductionPosture } from '../lib/posture.ts';
import {
  DEMO_API_CLIENTS,
  type DemoCredentials,
  issueClientSecrets,
  loadDemo,
  relistCustomers,
  writeDemoCredentials,
} from '../seed/demo.ts';
import { seedDemoWeek } from '../seed/demo-week.ts';
import { checkSharedMasterKey } from '../seed/platform-secrets.ts';
import { PLACES, websocketUrl } from '../http/pages/home.ts';
import { ensureQueues } from './enqueue.ts';

/**
 * The start-up steps every kind of process shares (src/main.ts): the posture check, the database (DATABASE_URL or
 * the embedded one), and the once-per-database work (migrations, the master-key check, the demo seed), which runs
 * under the start lock so replicas started together take turns and end up with the same secrets.
 */

/**
 * Times the start's steps: each call logs, at debug, the step just finished and how long it took since the previous
 * one (or since the process started), so a slow start says where its time went.
 */
export function startSteps(log: Logger): (step: string) => void {
  let last = 0; // performance.now() counts from the process's start
  return (step) => {
    const now = performance.now();
    log.debug({ step, ms: Math.round(now - last), since_process_start_ms: Math.round(now) }, 'start step');
    last = now;
  };
}

/** Settings refused in production stop the start before anything opens (startApp logs the warnings later). */
export function refuseUnsafeSettings(config: Config, log: Logger): void {
  try {
    checkProductionPosture(config, { warn: () => undefined });
  } catch (err) {
    log.fatal({ err }, 'start refused');
    process.exit(1);
  }
}

/** DATABASE_URL, or the embedded PostgreSQL under DATA_DIR/pg (started here; the caller stops it last). */
export async function openDatabase(
  config: Config,
  log: Logger,
): Promise<{ databaseUrl: string; embedded?: EmbeddedPostgres }> {
  if (config.databaseUrl) {
    // Migrations, the start lock and LISTEN need a session: a pooler there would hand the lock to whichever client
    // it serves next and the start would wait for it without a word (seen with PgBouncer in transaction mode).
    const direct = config.databaseDirectUrl ?? config.databaseUrl;
    const ok = await Database.reachesSession(direct).catch((err: Error) => {
      log.fatal({ err }, 'the database does not answer');
      process.exit(1);
    });
    if (!ok) {
      log.fatal(
        `${config.databaseDirectUrl ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL'} goes through a connection pooler, ` +
          'which keeps no session for migrations, the start lock and LISTEN: set DATABASE_DIRECT_URL to the primary ' +
          'itself (DATABASE_URL may stay on the pooler; docs/operations.md "Pooler and read replicas")',
      );
      process.exit(1);
    }
    return { databaseUrl: config.databaseUrl };
  }
  if (config.databaseDirectUrl || config.databaseReplicaUrls.length) {
    log.fatal(
      'DATABASE_DIRECT_URL and DATABASE_REPLICA_URLS go with DATABASE_URL; the embedded PostgreSQL takes neither',
    );
    process.exit(1);
  }
  const dataDir = path.join(config.dataDir, 'pg');
  const embedded = await startEmbeddedPostgres({
    dataDir,
    log: (m) => log.debug(m),
    warn: (m) => log.warn(m),
  }).catch((err: Error) => {
    log.fatal(err.message);
    process.exit(1);
  });
  log.info({ port: embedded.conn.port, data_dir: dataDir }, 'embedded PostgreSQL started');
  return { databaseUrl: embedded.url, embedded };
}

/**
 * Migrations and pg-boss's queues, then (under the start lock) the master-key check and the demo data with its secrets. Returns the demo
 * organisations' credentials for the file (written once the origin is known), or undefined with DEMO_SEED=0.
 */
export async function prepareDatabase(
  config: Config,
  log: Logger,
  databaseUrl: string,
  step: (name: string) => void = () => undefined,
): Promise<DemoCredentials['tenants'] | undefined> {
  // A first start (no credentials file yet) issues every demo client's secret: hashed meanwhile, off the main thread.
  const issued =
    config.demoSeed && !existsSync(config.demoCredentialsFile) ? issueClientSecrets(DEMO_API_CLIENTS) : undefined;
  void issued?.catch(() => undefined);
  // Migrations, pg-boss's DDL and the start lock need a session: straight to the primary (DATABASE_DIRECT_URL).
  const directUrl = config.databaseDirectUrl ?? databaseUrl;
  const r = await migrate(directUrl, { log: (m) => log.info(m) });
  log.info({ applied: r.applied, already_applied: r.alreadyApplied }, 'migrations up to date');
  step('migrations');
  await ensureQueues(directUrl);
  step("pg-boss's schema and queues");
  const db = await Database.connect(databaseUrl, {
    poolSize: 4,
    poolWaitMs: config.dbPoolWaitMs,
    pooled: directUrl !== databaseUrl,
    directUrl,
  });
  try {
    if (!config.demoSeed) {
      await checkSharedMasterKey(db, config);
      return undefined;
    }
    const tenants = await loadDemo(db, {
      credentialsFile: config.demoCredentialsFile,
      log: (m) => log.info(m),
      masterKey: config,
      issued,
    });
    step('demo data');
    // The brokerage's recent week, once per database (src/seed/demo-week.ts): its new clients join the customers
    // the file lists. Listed again whoever added the week: a replica that waited for another's week lists the same.
    await seedDemoWeek(db, config, log);
    await relistCustomers(db, tenants);
    step("demo data: the brokerage's recent week");
    return tenants;
  } finally {
    await db.close();
  }
}

/** The credentials file for the service at `origin` (PUBLIC_BASE_URL when set). */
export async function writeCredentials(
  config: Config,
  log: Logger,
  tenants: DemoCredentials['tenants'],
  origin: string,
): Promise<void> {
  await writeDemoCredentials(config.demoCredentialsFile, config.publicBaseUrl ?? origin, tenants);
  log.info({ file: config.demoCredentialsFile }, 'demo credentials written');
}

/** The line operators (and the test harness, test/helpers/spawn.ts) read: where everything is. */
export function logReady(config: Config, log: Logger, origin: string, extra: Record<string, unknown> = {}): void {
  if (config.processRole === 'jobs') {
    log.info(
      { role: 'jobs', health: `${origin}/healthz`, ...extra },
      `Bima Gateway ready on ${origin} (PROCESS_ROLE=jobs: job workers; /healthz and /readyz only)`,
    );
    return;
  }
  const at = (p: string) => `${origin}${p}`;
  const metrics = config.metricsToken ? at('/metrics') : `${at('/metrics')} (off: set METRICS_TOKEN)`;
  log.info(
    {
      role: config.processRole,
      home: `${origin}/`,
      rest: at('/api/v1'),
      // The places the landing page (GET /) lists, under the same keys.
      ...Object.fromEntries(PLACES.map((p) => [p.key, at(p.path)])),
      graphiql: config.graphiql ? `${at('/graphql')} (open in a browser)` : null,
      websocket: websocketUrl(origin),
      metrics,
      demo_credentials: config.demoSeed ? config.demoCredentialsFile : null,
      start_ms: Math.round(performance.now()),
      ...extra,
    },
    `Bima Gateway ready on ${origin} · API ${at('/api/v1')}, reference ${at('/docs')}, GraphQL ${at('/graphql')} ` +
      `(subscriptions ${websocketUrl(origin)}), dashboard ${at('/dashboard')}, metrics ${metrics}`,
  );
}
