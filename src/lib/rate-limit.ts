/**
 * Rate limiting with an exact sliding log. Each key keeps the timestamps of the hits it was
 * allowed; a hit at `now` is allowed iff fewer than `limit` of them lie in the window
 * (now - windowMs, now], so a hit made at t stops counting at exactly t + windowMs.
 * Refused hits are not logged, so a client hammering while limited doesn't extend its ban.
 * A log never holds more than `limit` live entries (the largest limit its rule has had).
 *
 * The hit that frees capacity is the pivot: the (count - limit)-th oldest logged hit, where
 * `count` includes this one if it was allowed. Once it leaves the window one more request
 * fits, and for an allowed hit (count <= limit) it is simply the oldest. Using the pivot
 * rather than the oldest also keeps Retry-After right when a rule's limit was lowered while
 * more than the new limit were still logged.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The rule's limit. */
  limit: number;
  /** Requests left in the window after this one (never negative). */
  remaining: number;
  /**
   * Whole seconds until the window frees more capacity, assuming no further hits: for a
   * refused hit, until one request fits again; otherwise until the oldest hit in the window
   * leaves it and `remaining` grows.
   */
  resetSeconds: number;
  /** 0 when allowed, else >= 1 (for the Retry-After header). */
  retryAfterSeconds: number;
  /** IETF RateLimit-Policy value, e.g. `60;w=60`. */
  policy: string;
}

export interface RateLimitStore {
  /** Counts one hit for `key` under `rule` and decides; atomic across concurrent callers (and, for shared stores, across processes). */
  hit(rule: RateLimitRule, key: string, now?: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

interface Checked {
  limit: number;
  windowMs: number;
  /** `now` in whole milliseconds. */
  t: number;
}

function check(rule: RateLimitRule, now: number): Checked {
  // Whole numbers keep every comparison exact in doubles and as Redis sorted-set scores.
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new RangeError(`rate limit rule "${rule.name}": limit must be a positive integer`);
  }
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new RangeError(`rate limit rule "${rule.name}": windowSeconds must be a positive integer`);
  }
  if (!Number.isFinite(now)) throw new RangeError(`rate limit rule "${rule.name}": now must be a finite time`);
  return { limit: rule.limit, windowMs: rule.windowSeconds * 1000, t: Math.floor(now) };
}

/** `count` is the number of hits in the window after this one was (or was not) logged; `pivotAt` is the pivot's timestamp. */
function decide(rule: RateLimitRule, c: Checked, allowed: boolean, count: number, pivotAt: number): RateLimitDecision {
  // The pivot lies inside the window, so this is positive; a pivot stamped ahead of `now` by
  // a server with a faster clock honestly makes the wait longer than the window.
  const resetSeconds = Math.max(1, Math.ceil((pivotAt + c.windowMs - c.t) / 1000));
  return {
    allowed,
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - count),
    resetSeconds,
    retryAfterSeconds: allowed ? 0 : resetSeconds,
    policy: `${rule.limit};w=${rule.windowSeconds}`,
  };
}

export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSeconds),
    "RateLimit-Policy": d.policy,
  };
  if (!d.allowed) headers["Retry-After"] = String(d.retryAfterSeconds);
  return headers;
}

/** Ascending timestamps of allowed hits; `ts[head..]` are live, so pruning the front doesn't shift the array each hit. */
interface HitLog {
  ts: number[];
  head: number;
  /** The window of the rule last applied, for sweeping. */
  windowMs: number;
}

function prune(log: HitLog, cutoff: number): void {
  while (log.head < log.ts.length && log.ts[log.head]! <= cutoff) log.head++;
  // Compact once the dead prefix is at least half the array: amortised O(1) per hit.
  if (log.head > 0 && log.head * 2 >= log.ts.length) {
    log.ts.splice(0, log.head);
    log.head = 0;
  }
}

function insert(log: HitLog, t: number): void {
  const { ts } = log;
  if (ts.length === log.head || ts[ts.length - 1]! <= t) {
    ts.push(t);
    return;
  }
  // Another caller's clock ran ahead (or ours stepped back): keep the order so the front stays the oldest.
  let lo = log.head;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! <= t) lo = mid + 1;
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

  async hit(rule: RateLimitRule, key: string, now: number = Date.now()): Promise<RateLimitDecision> {
    // No await before the log is updated, so concurrent callers are serialised by the event loop.
    const c = check(rule, now);
    this.#sweep(c.t);
    const id = `${rule.name}\u0000${key}`;
    let log = this.#logs.get(id);
    if (!log) {
      log = { ts: [], head: 0, windowMs: c.windowMs };
      this.#logs.set(id, log);
    }
    log.windowMs = c.windowMs;
    prune(log, c.t - c.windowMs);
    let count = log.ts.length - log.head;
    const allowed = count < c.limit;
    if (allowed) {
      insert(log, c.t);
      count++;
    }
    const pivotAt = log.ts[log.head + Math.max(0, count - c.limit)]!;
    return decide(rule, c, allowed, count, pivotAt);
  }

  async close(): Promise<void> {
    this.#logs.clear();
  }

  #sweep(now: number): void {
    // Lazy and driven by the caller's clock: no timer to unref, and injected time stays deterministic.
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + this.#sweepIntervalMs;
    for (const [id, log] of this.#logs) {
      const newest = log.ts.length > log.head ? log.ts[log.ts.length - 1]! : -Infinity;
      if (newest + log.windowMs <= now) this.#logs.delete(id);
    }
  }
}

/**
 * KEYS: the key's log (a sorted set scored by hit time). ARGV: cutoff (hits at or before it
 * have left the window), now, a unique member for this hit, limit, windowMs.
 * Returns {allowed (0/1), count after this hit, pivot's score as a string}. Times cross the
 * boundary as strings: Redis truncates Lua numbers in replies and may reformat them in calls.
 */
const HIT_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local limit = tonumber(ARGV[4])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  count = count + 1
  allowed = 1
  -- Live until the newest hit leaves the window, which is later than now + window when
  -- another server's clock runs ahead of ours.
  local newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
  redis.call('PEXPIRE', KEYS[1], newest - tonumber(ARGV[2]) + tonumber(ARGV[5]))
end
local pivot = count - limit
if pivot < 0 then pivot = 0 end
return {allowed, count, redis.call('ZRANGE', KEYS[1], pivot, pivot, 'WITHSCORES')[2]}
`;

type HitCommand = (key: string, cutoff: number, now: number, member: string, limit: number, windowMs: number) => Promise<unknown>;

function parseHitReply(reply: unknown): [allowed: boolean, count: number, pivotAt: number] {
  if (Array.isArray(reply) && reply.length === 3 && typeof reply[0] === "number" && typeof reply[1] === "number") {
    const pivotAt = Number(reply[2]);
    if (typeof reply[2] === "string" && Number.isFinite(pivotAt)) return [reply[0] === 1, reply[1], pivotAt];
  }
  throw new Error(`unexpected rate limit script reply: ${JSON.stringify(reply)}`);
}

/**
 * Store shared by every process pointing at the same Redis: one script call (one round trip)
 * per hit. Hit times are the caller's `now` (not Redis TIME) so injected time works; servers
 * need roughly synced clocks.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #hit: HitCommand;
  readonly #prefix: string;
  #closed = false;

  constructor(url: string, opts: { prefix?: string } = {}) {
    this.#prefix = opts.prefix ?? "ratelimit:";
    // The limiter sits on every request's path: fail fast while Redis is unreachable so the
    // caller can choose to fail open or closed instead of stalling requests.
    this.#redis = new Redis(url, { maxRetriesPerRequest: 1 });
    // defineCommand sends EVALSHA and falls back to EVAL when the script isn't cached.
    this.#redis.defineCommand("rateLimitLog", { numberOfKeys: 1, lua: HIT_SCRIPT });
    const scripted = this.#redis as Redis & { rateLimitLog: HitCommand };
    this.#hit = scripted.rateLimitLog.bind(scripted);
  }

  async hit(rule: RateLimitRule, key: string, now: number = Date.now()): Promise<RateLimitDecision> {
    const c = check(rule, now);
    // The braces are a Redis Cluster hash tag (the slot stays with the rule and key whatever
    // suffix follows). The `:log` suffix differs from the old two-counter keys, which held
    // strings, so a rolling upgrade never meets a key of the wrong type.
    const logKey = `${this.#prefix}{${rule.name}:${key}}:log`;
    // The random part keeps hits in the same millisecond distinct (a repeated member would only move, not add).
    const reply = await this.#hit(logKey, c.t - c.windowMs, c.t, `${c.t}-${randomUUID()}`, c.limit, c.windowMs);
    const [allowed, count, pivotAt] = parseHitReply(reply);
    return decide(rule, c, allowed, count, pivotAt);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#redis.quit();
    } catch {
      this.#redis.disconnect();
    }
  }
}

/**
 * Redis when a URL is given (shared across server processes), else in-process memory.
 * `namespace` keeps deployments that share one Redis apart (the service passes its database's name).
 */
export function createRateLimitStore(opts: { redisUrl?: string; namespace?: string }): RateLimitStore {
  return opts.redisUrl
    ? new RedisRateLimitStore(opts.redisUrl, { prefix: `ratelimit:${opts.namespace ? `${opts.namespace}:` : ""}` })
    : new MemoryRateLimitStore();
}
