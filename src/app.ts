import type { AddressInfo } from 'node:net';
import type PgBoss from 'pg-boss';
import { startJobs } from '../jobs/index.ts';
import { queueDepthReader } from '../jobs/instrument.ts';
import { DbSimStore, RegistrySimulator } from '../jobs/rails/registry-simulator.ts';
import type { AppServices } from './context.ts';
import { type ConnectOptions, Database } from './db/client.ts';
import { MemoryWriteMarks, RedisWriteMarks } from './db/replicas.ts';
import { migrate } from './db/migrate.ts';
import { now } from './lib/clock.ts';
import type { Config } from './lib/config.ts';
import { EventBus } from './db/event-bus.ts';
import { Caches } from './db/caches.ts';
import { cachedAuthSource } from './auth/auth-source.ts';
import type { Logger } from './lib/logger.ts';
import { checkProductionPosture } from './lib/posture.ts';
import { createRateLimitStore } from './lib/rate-limit.ts';
import { operationLimits } from './http/rate-limits.ts';
import type { CertificateRegistryPort } from './ports/certificate-registry.ts';
import { createDocumentStore } from './db/document-store.ts';
import { createMetrics } from './http/pages/metrics/registry.ts';
import { createHttpServer, type HttpServer } from './server.ts';
import { startEnqueueOnly } from './process/enqueue.ts';
import { createHealthServer } from './process/health-server.ts';
import { KeyedGate } from './lib/keyed-gate.ts';

export interface RunningApp {
  services: AppServices;
  http: HttpServer;
  boss: PgBoss | undefined;
  /** e.g. http://127.0.0.1:3000 */
  origin: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  log: Logger;
  databaseUrl: string;
  /**
   * A direct connection to the primary for what needs a session (migrations, LISTEN, session locks) when databaseUrl
   * goes through a pooler in transaction mode. Default: DATABASE_DIRECT_URL, else databaseUrl (no pooler).
   */
  directUrl?: string;
  /** Skip migrations (tests start from an already-migrated template database). */
  migrate?: boolean;
  /** Run pg-boss workers (default true). */
  jobs?: boolean;
  /** Without workers, still send jobs: the rail and certificate queues (PROCESS_ROLE=web; src/process/enqueue.ts). */
  enqueue?: boolean;
  /** Serve the API (default true); false serves only /healthz and /readyz (PROCESS_ROLE=jobs). */
  http?: boolean;
  /** An HTTP worker of our node:cluster primary: without REDIS_URL, its rate limits are the primary's (over IPC). */
  clusterWorker?: boolean;
  /** Runs once the server listens and before it reports ready (demo seed, credentials file). */
  beforeReady?: (services: AppServices, origin: string) => Promise<void>;
}

/** Counters belong to one deployment: its database (host, port, name) names it. */
function rateLimitNamespace(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  return `${u.hostname}:${u.port || 5432}/${u.pathname.replace(/^\//, '')}`;
}

/**
 * Where the pool's connections go: through a pooler when the direct URL differs (no named statements), and which
 * replicas take reads, with writers' marks in Redis when REDIS_URL is set (src/db/replicas.ts).
 */
export function databaseRoutes(
  config: Config,
  databaseUrl: string,
  directUrl: string,
  log: Logger,
  serves = true,
): Pick<ConnectOptions, 'pooled' | 'directUrl' | 'replicas'> {
  const replicas = serves ? config.databaseReplicaUrls : [];
  return {
    pooled: directUrl !== databaseUrl,
    directUrl,
    ...(replicas.length
      ? {
          replicas: {
            urls: replicas,
            poolSize: config.dbReplicaPoolSize,
            maxLagMs: config.replicaMaxLagMs,
            waitMs: config.replicaWaitMs,
            marks: config.redisUrl
              ? new RedisWriteMarks(config.redisUrl, `bima:rw:${rateLimitNamespace(databaseUrl)}:`)
              : new MemoryWriteMarks(),
            onChange: (s) =>
              (s.healthy ? log.info : log.warn).call(
                log,
                { replica: redactUrl(s.url), lag_ms: s.lagMs, reason: s.lastError ?? undefined },
                s.healthy ? 'read replica in' : 'read replica out: reads go to the primary',
              ),
          },
        }
      : {}),
  };
}

/** A connection string without its password, for logs. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** The certificate registry rail: the simulator until a real adapter replaces it. */
function registryPort(db: Database, config: Config): CertificateRegistryPort {
  const registry: CertificateRegistryPort = {
    clock: now, // the service's clock (src/lib/clock.ts): business dates of certificates follow it
    // The simulator reads the port's clock, so a test that moves one moves both.
    registry: new RegistrySimulator({
      store: new DbSimStore(db, config.registrySimDefaultStock),
      now: () => registry.clock(),
    }),
  };
  return registry;
}

export async function startApp(opts: StartOptions): Promise<RunningApp> {
  const { config, log, databaseUrl } = opts;
  const directUrl = opts.directUrl ?? config.databaseDirectUrl ?? databaseUrl;
  // Before anything opens: a refused setting must not leave a half-started service behind.
  checkProductionPosture(config, log);
  if (opts.migrate !== false) {
    const r = await migrate(directUrl, { log: (m) => log.info(m) });
    log.info({ applied: r.applied, already_applied: r.alreadyApplied }, 'migrations up to date');
  }
  const db = await Database.connect(databaseUrl, {
    poolSize: config.dbPoolSize,
    poolWaitMs: config.dbPoolWaitMs,
    tenantShare: config.dbTenantShare,
    genericReadPlans: config.genericReadPlans,
    // A process serving no requests (PROCESS_ROLE=jobs) reads nothing a replica could take: no replica pools.
    ...databaseRoutes(config, databaseUrl, directUrl, log, opts.http !== false),
  });
  // LISTEN needs a session: straight to the primary.
  const events = new EventBus(directUrl, (err) => log.error({ err }, 'event bus error'));
  await events.start();
  await db.clocks.follow(events, (err) => log.error({ err }, 'sandbox clocks: reload failed'));
  const caches = new Caches(events, db.pool);
  const rateLimits = createRateLimitStore({
    redisUrl: config.redisUrl,
    namespace: rateLimitNamespace(databaseUrl),
    viaClusterPrimary: opts.clusterWorker,
  });
  const registry = registryPort(db, config);
  const services: AppServices = {
    db,
    config,
    log,
    rateLimits,
    events,
    caches,
    auth: cachedAuthSource(db, caches, config.principalCacheSeconds),
    limits: operationLimits(rateLimits, config),
    // The job runner (without jobs, src/process/enqueue.ts) registers the rail; origin is set once listening.
    mobileMoney: {},
    registry,
    documents: createDocumentStore(config),
    documentReads: new KeyedGate(Math.ceil(config.documentReadsMax / 2), config.documentReadsMax),
    metrics: createMetrics({ pool: db.pool, poolMax: config.dbPoolSize, log }),
  };
  const jobs = opts.jobs !== false ? await startJobs(services, databaseUrl, directUrl) : undefined;
  const boss = jobs?.boss ?? (opts.enqueue ? await startEnqueueOnly(services, databaseUrl) : undefined);
  if (boss) services.metrics.watchQueues(queueDepthReader(boss));
  const health = {
    ready: async () => {
      await db.pool.query('SELECT 1');
      return true;
    },
  };
  const http = opts.http === false ? createHealthServer(health) : createHttpServer(services, health);
  await new Promise<void>((resolve, reject) => {
    http.server.once('error', reject);
    http.server.listen(config.port, config.host, () => resolve());
  });
  const { port } = http.server.address() as AddressInfo;
  const origin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // The rail calls back here unless PUBLIC_BASE_URL names the public origin (a health-only server takes no callback).
  services.mobileMoney.origin = opts.http === false ? config.publicBaseUrl : origin;
  await opts.beforeReady?.(services, origin);
  http.markReady();

  let stopping: Promise<void> | undefined;
  return {
    services,
    http,
    boss,
    origin,
    stop() {
      stopping ??= (async () => {
        jobs?.markStopping();
        await http.close(config.shutdownTimeoutMs);
        await jobs?.quiesce();
        await boss
          ?.stop({ graceful: true, wait: true, timeout: config.shutdownTimeoutMs })
          .catch((err) => log.error({ err }, 'pg-boss stop failed'));
        await events.close();
        await services.rateLimits.close();
        await db.close();
      })();
      return stopping;
    },
  };
}
