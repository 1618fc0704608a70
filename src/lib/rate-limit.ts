/**
 * Rate limiting with an exact sliding log. Each key keeps the timestamps of the hits it was
 * allowed; a hit at `now` is allowed iff fewer than `limit` of them lie in the window
 * (now - windowMs, now], so a hit made at t stops counting at exactly t + windowMs.
 * Refused hits are not logged, so a client hammering while limited doesn't extend its ban.
 * A log never holds more than `limit` live entries (the largest limit its rule has had).
 *
 * A hit may weigh more than one (`cost`, e.g. one per root field of a GraphQL operation): it is
 * allowed iff `cost` more fit, and then logs `cost` entries at once, atomically; a hit that
 * does not fit whole logs nothing, so a batch is never half-charged.
 *
 * The hit that frees capacity is the pivot. For an allowed hit it is the (count - limit)-th
 * oldest logged hit, `count` including this one: simply the oldest while count <= limit. For
 * a refused one it is the hit whose leaving lets all `cost` fit: the (count + cost - limit)-th
 * oldest. Using the pivot rather than the oldest also keeps Retry-After right when a rule's
 * limit was lowered while more than the new limit were still logged. A cost above the limit
 * never fits; its pivot is `now` (Retry-After is a whole window), and callers should refuse
 * such a request as too large rather than as too frequent.
 */
import {
  check,
  decide,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from './rate-limit-decision.ts';
import { ClusterRateLimitStore } from './rate-limit-cluster.ts';
import { RedisRateLimitStore } from './rate-limit-redis.ts';

export {
  rateLimitHeaders,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from './rate-limit-decision.ts';
export { ClusterRateLimitStore, RedisRateLimitStore };
export { serveClusterRateLimits } from './rate-limit-cluster.ts';

/** Ascending timestamps of allowed hits; `ts[head..]` are live, so pruning the front doesn't shift the array each hit. */
interface HitLog {
  ts: number[];
  head: number;
  /** The window of the rule last applied, for sweeping. */
  windowMs: number;
}

function prune(log: HitLog, cutoff: number): void {
  while (log.head < log.ts.length && log.ts[log.head] <= cutoff) log.head++;
  // Compact once the dead prefix is at least half the array: amortised O(1) per hit.
  if (log.head > 0 && log.head * 2 >= log.ts.length) {
    log.ts.splice(0, log.head);
    log.head = 0;
  }
}

function insert(log: HitLog, t: number): void {
  const { ts } = log;
  if (ts.length === log.head || ts[ts.length - 1] <= t) {
    ts.push(t);
    return;
  }
  // Another caller's clock ran ahead (or ours stepped back): keep the order so the front stays the oldest.
  let lo = log.head;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  ts.splice(lo, 0, t);
}

/** Single-process store. Logs whose newest hit has left the window are swept lazily on later hits. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #logs = new Map<string, HitLog>();
  readonly #sweepIntervalMs: number;
  #nextSweepAt = -Infinity;

  constructor(opts: { sweepIntervalMs?: number } = {}) {
    this.#sweepIntervalMs = opts.sweepIntervalMs ?? 60_000;
  }

  /** Number of keys currently held (for monitoring memory). */
  get size(): number {
    return this.#logs.size;
  }

  async hit(rule: RateLimitRule, key: string, now: number = Date.now(), cost = 1): Promise<RateLimitDecision> {
    return this.#decide(rule, key, now, cost, false);
  }

  async peek(rule: RateLimitRule, key: string, now: number = Date.now(), cost = 1): Promise<RateLimitDecision> {
    return this.#decide(rule, key, now, cost, true);
  }

  #decide(rule: RateLimitRule, key: string, now: number, cost: number, dryRun: boolean): RateLimitDecision {
    // No await before the log is updated, so concurrent callers are serialised by the event loop.
    const c = check(rule, now, cost);
    this.#sweep(c.t);
    const id = `${rule.name}\u0000${key}`;
    let log = this.#logs.get(id);
    if (!log) {
      log = { ts: [], head: 0, windowMs: c.windowMs };
      // A peek leaves no trace, not even an empty log.
      if (!dryRun) this.#logs.set(id, log);
    }
    log.windowMs = c.windowMs;
    prune(log, c.t - c.windowMs);
    const live = log.ts.length - log.head;
    const allowed = live + cost <= c.limit;
    if (allowed && !dryRun) {
      for (let i = 0; i < cost; i++) insert(log, c.t);
      const count = live + cost;
      return decide(rule, c, true, count, log.ts[log.head + Math.max(0, count - c.limit)]);
    }
    // Not logged: the pivot is counted among the live hits, or is one of this hit's own (at now).
    const k = allowed ? 0 : live + cost - 1 - c.limit;
    const pivotAt = k < live ? log.ts[log.head + k] : c.t;
    return decide(rule, c, allowed, allowed ? live + cost : live, pivotAt);
  }

  async close(): Promise<void> {
    this.#logs.clear();
  }

  #sweep(now: number): void {
    // Lazy and driven by the caller's clock: no timer to unref, and injected time stays deterministic.
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + this.#sweepIntervalMs;
    for (const [id, log] of this.#logs) {
      const newest = log.ts.length > log.head ? log.ts[log.ts.length - 1] : -Infinity;
      if (newest + log.windowMs <= now) this.#logs.delete(id);
    }
  }
}

/**
 * Redis when a URL is given (shared across server processes and machines); else, in an HTTP worker of our
 * node:cluster primary (`viaClusterPrimary`, WEB_CONCURRENCY > 1), the primary's memory over IPC (shared by the
 * workers of one primary); else in-process memory.
 * `namespace` keeps deployments that share one Redis apart (the service passes its database's name).
 */
export function createRateLimitStore(opts: {
  redisUrl?: string;
  namespace?: string;
  viaClusterPrimary?: boolean;
}): RateLimitStore {
  if (opts.redisUrl)
    return new RedisRateLimitStore(opts.redisUrl, {
      prefix: `ratelimit:${opts.namespace ? `${opts.namespace}:` : ''}`,
    });
  return opts.viaClusterPrimary ? new ClusterRateLimitStore() : new MemoryRateLimitStore();
}
