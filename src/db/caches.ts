import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type CacheOptions, type CacheStats, InvalidatedCache } from '../lib/invalidated-cache.ts';
import { type EventBus, LISTENER_APPLICATION_NAME } from './event-bus.ts';

/**
 * How long sync() waits for every listening process to acknowledge before answering anyway (a process that cannot
 * answer in this time has a feed in trouble; it turns its caches off when it notices the connection is lost).
 */
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
  readonly #syncWaiters = new Map<string, (pid: number) => void>();

  constructor(
    private readonly bus: EventBus,
    private readonly pool: Pick<pg.Pool, 'query'>,
  ) {
    bus.onCacheMessage((m) => {
      if (m.kind === 'sync') return typeof m.id === 'string' ? bus.acknowledge(m.id) : undefined;
      if (m.kind === 'ack') return this.#syncWaiters.get(String(m.id))?.(Number(m.pid));
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
   * Resolves once every listening process (this one and every other server or worker on the database) has heard,
   * and applied, every invalidation committed before the call. PostgreSQL delivers a listener's notifications in
   * commit order, so a process that hears our marker (sent after those commits) has applied the ones before it; each
   * answers the marker from its LISTEN connection, and we wait for an answer from every listening connection that
   * existed when we sent it (found by application_name in pg_stat_activity; one that connects later starts with
   * empty caches). A service that changes what a cache holds for security (a key's scopes, a revocation) awaits this
   * before it answers, so no process serves the old value to a request made after the answer (docs/performance.md "Caches").
   */
  async sync(): Promise<void> {
    if (!this.#listening) return; // caches are off: nothing is served from them
    const id = randomUUID();
    const { rows } = await this.pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [LISTENER_APPLICATION_NAME],
    );
    const waiting = new Set(rows.map((r) => r.pid));
    if (this.bus.listenerPid !== undefined) waiting.add(this.bus.listenerPid);
    const heard = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SYNC_TIMEOUT_MS);
      timer.unref();
      this.#syncWaiters.set(id, (pid) => {
        waiting.delete(pid);
        if (waiting.size > 0) return;
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
