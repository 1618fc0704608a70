import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type CacheOptions, type CacheStats, InvalidatedCache } from '../lib/invalidated-cache.ts';
import type { EventBus } from './event-bus.ts';

/** How long sync() waits for its own notification before giving up (the feed is then down and caches are off). */
const SYNC_TIMEOUT_MS = 2_000;

/**
 * The process's caches of database state, each dropped per organisation by the invalidations the database itself
 * announces (triggers NOTIFY channel bima_cache in the changing transaction; migration caches_and_replicas), so
 * every process, whichever of them made the change, stops serving the old copy as soon as the commit is heard.
 * While the LISTEN connection is down every cache is off (each read loads); when it is back they start empty.
 */
export class Caches {
  readonly #byName = new Map<string, { cache: InvalidatedCache<unknown, unknown>; kinds: readonly string[] }>();
  #listening = false;
  readonly #syncWaiters = new Map<string, () => void>();

  constructor(
    bus: EventBus,
    private readonly pool: Pick<pg.Pool, 'query'>,
  ) {
    bus.onCacheMessage((m) => {
      if (m.kind === 'sync') return this.#syncWaiters.get(String(m.id))?.();
      for (const { cache, kinds } of this.#byName.values()) {
        if (kinds.includes(m.kind) && Number.isInteger(m.tenant)) cache.invalidate(m.tenant);
      }
    });
    bus.onListening((listening) => {
      this.#listening = listening;
      for (const { cache } of this.#byName.values()) cache.setEnabled(listening);
    });
  }

  /**
   * The cache called `name`, made on first use. `kinds`: the invalidation kinds that drop its entries (per
   * organisation). Names are the module's to choose; one name is one cache for the life of the process.
   */
  define<K, V>(name: string, kinds: readonly string[], opts: CacheOptions = {}): InvalidatedCache<K, V> {
    let found = this.#byName.get(name);
    if (!found) {
      const cache = new InvalidatedCache<unknown, unknown>(opts);
      cache.setEnabled(this.#listening);
      found = { cache, kinds };
      this.#byName.set(name, found);
    }
    return found.cache as InvalidatedCache<K, V>;
  }

  /**
   * Resolves once this process has heard every invalidation committed before the call. PostgreSQL delivers a
   * listener's notifications in commit order, so hearing our own marker (sent after those commits) means the ones
   * before it were heard, and applied, first. A service that changes what a cache holds (a key's scopes, a
   * revocation) awaits this before it answers, so the caller's next request, to this process, cannot see the old
   * value; other processes were sent the same invalidation at the same commit (README "Caches").
   */
  async sync(): Promise<void> {
    if (!this.#listening) return; // caches are off: nothing is served from them
    const id = randomUUID();
    const heard = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SYNC_TIMEOUT_MS);
      timer.unref();
      this.#syncWaiters.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    try {
      await this.pool.query("SELECT pg_notify('bima_cache', $1)", [JSON.stringify({ kind: 'sync', id })]);
      await heard;
    } finally {
      this.#syncWaiters.delete(id);
    }
  }

  stats(): Record<string, CacheStats> {
    return Object.fromEntries([...this.#byName].map(([name, { cache }]) => [name, cache.stats()]));
  }
}
