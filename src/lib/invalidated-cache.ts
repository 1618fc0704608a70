/**
 * An in-memory cache that is never stale beyond the delivery of an invalidation. Each entry belongs to a scope (an
 * organisation); `invalidate(scope)` drops that scope's entries and `clear()` drops everything. What makes it exact
 * is the rule for loads that race an invalidation: a load remembers the epoch it started in, and its result is kept
 * only if no invalidation of its scope (and no clear) happened since. Otherwise the caller still gets the result it
 * asked for (it was current when the load began, like any read), but nobody after it will. A caller that arrives
 * while a load is in flight shares it only if nothing at all was invalidated since that load began.
 *
 * While the invalidation feed is down (`enabled` false) nothing is served from or stored in the cache: every get
 * loads, so a lost LISTEN connection costs speed, never correctness.
 */
export interface CacheOptions {
  /** Longest an entry is served, whatever happens (ms); 0 or Infinity: until invalidated. */
  ttlMs?: number;
  /** Entries kept; the oldest goes first when full. */
  maxEntries?: number;
  /** Clock for ttl (ms). */
  now?: () => number;
}

export interface Loaded<V> {
  value: V;
  /** The scope the value belongs to (an organisation id), known once loaded; null: do not keep this value. */
  scope: number | null;
}

interface Entry<V> {
  value: V;
  scope: number;
  expiresAt: number;
}

interface InFlight<V> {
  promise: Promise<Loaded<V>>;
  epoch: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Loads whose result was not kept because an invalidation raced them. */
  discarded: number;
  invalidations: number;
  size: number;
}

export class InvalidatedCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #inFlight = new Map<K, InFlight<V>>();
  /** Bumped by every invalidation and clear. */
  #epoch = 0;
  /** The epoch of each scope's last invalidation. */
  readonly #scopeEpoch = new Map<number, number>();
  #clearEpoch = 0;
  #enabled = true;
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #stats = { hits: 0, misses: 0, discarded: 0, invalidations: 0 };

  constructor(opts: CacheOptions = {}) {
    this.#ttlMs = opts.ttlMs && Number.isFinite(opts.ttlMs) ? opts.ttlMs : Infinity;
    this.#max = opts.maxEntries ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  /** The cached value, or the loader's (shared with concurrent callers when nothing was invalidated meanwhile). */
  async get(key: K, load: () => Promise<Loaded<V>>): Promise<V> {
    if (!this.#enabled) return (await load()).value;
    const hit = this.peek(key);
    if (hit !== undefined) {
      this.#stats.hits++;
      return hit;
    }
    this.#stats.misses++;
    const flying = this.#inFlight.get(key);
    if (flying && flying.epoch === this.#epoch) return (await flying.promise).value;
    const epoch = this.#epoch;
    const promise = load();
    const mine: InFlight<V> = { promise, epoch };
    this.#inFlight.set(key, mine);
    try {
      const loaded = await promise;
      this.#store(key, loaded, epoch);
      return loaded.value;
    } finally {
      if (this.#inFlight.get(key) === mine) this.#inFlight.delete(key);
    }
  }

  /** The cached value if present and fresh; never loads. */
  peek(key: K): V | undefined {
    if (!this.#enabled) return undefined;
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  #store(key: K, loaded: Loaded<V>, epoch: number): void {
    if (loaded.scope === null) return;
    const raced = (this.#scopeEpoch.get(loaded.scope) ?? 0) > epoch || this.#clearEpoch > epoch;
    if (raced || !this.#enabled) {
      this.#stats.discarded++;
      return;
    }
    this.#entries.delete(key);
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, { value: loaded.value, scope: loaded.scope, expiresAt: this.#now() + this.#ttlMs });
  }

  /** Drops every entry of one scope, and keeps any load already under way from storing an older value. */
  invalidate(scope: number): void {
    this.#epoch++;
    this.#stats.invalidations++;
    this.#scopeEpoch.set(scope, this.#epoch);
    for (const [k, e] of this.#entries) if (e.scope === scope) this.#entries.delete(k);
  }

  /** Drops everything (the invalidation feed was interrupted: messages may have been missed). */
  clear(): void {
    this.#epoch++;
    this.#stats.invalidations++;
    this.#clearEpoch = this.#epoch;
    this.#entries.clear();
  }

  /** Off while the invalidation feed is down: every get loads, nothing is kept. Turning it on starts empty. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.#enabled) return;
    this.clear();
    this.#enabled = enabled;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  stats(): CacheStats {
    return { ...this.#stats, size: this.#entries.size };
  }
}
