import { DbSimStore, RegistrySimulator } from '../../jobs/rails/registry-simulator.ts';
import { cachedAuthSource } from '../auth/auth-source.ts';
import type { AppServices } from '../context.ts';
import { Caches } from '../db/caches.ts';
import type { Database } from '../db/client.ts';
import { createDocumentStore } from '../db/document-store.ts';
import { now } from '../lib/clock.ts';
import type { Config } from '../lib/config.ts';
import { KeyedGate } from '../lib/keyed-gate.ts';
import type { Logger } from '../lib/logger.ts';
import { createRateLimitStore } from '../lib/rate-limit.ts';
import { NO_METRICS } from '../ports/metrics.ts';

/**
 * The parts of AppServices the services use, built as src/app.ts builds them but with no HTTP and no pg-boss, for
 * work done outside a started service: the admin CLI (src/admin/runtime.ts) and the demo week (src/seed). Work a
 * service would queue (an SMS, a certificate) is left to the running service's sweeps, as the ports say. The caller
 * brings what differs: its event bus, its bind limit and its mobile-money rail. `rateLimits.close()` is the caller's.
 */
export function offlineServices(
  db: Database,
  config: Config,
  log: Logger,
  own: Pick<AppServices, 'events' | 'limits' | 'mobileMoney'>,
): AppServices {
  const caches = new Caches(own.events, db.pool);
  const registry: AppServices['registry'] = {
    clock: now,
    registry: new RegistrySimulator({
      store: new DbSimStore(db, config.registrySimDefaultStock),
      now: () => registry.clock(),
    }),
  };
  return {
    db,
    config,
    log,
    rateLimits: createRateLimitStore({}),
    ...own,
    caches,
    auth: cachedAuthSource(db, caches, 0),
    registry,
    documents: createDocumentStore(config),
    documentReads: new KeyedGate(config.documentReadsMax),
    metrics: NO_METRICS,
  };
}
