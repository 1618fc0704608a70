/**
 * Rate limiting with a sliding-window approximation. Time is cut into fixed windows of
 * `windowSeconds`; a hit `elapsed` ms into window i counts
 *
 *   count = prev * (window - elapsed) / window + current
 *
 * where `prev` and `current` are the hits accepted in windows i-1 and i, and the hit is
 * allowed when count + 1 <= limit. Unlike a plain fixed window this does not let a client
 * burst 2x the limit across a window edge, yet it needs only two counters per key.
 * From a quiet start it is exact: `limit` back-to-back hits pass and the next is refused.
 * Refused hits are not counted, so a client hammering while limited doesn't extend its ban.
 */
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
  /** Requests left in the current window after this one (never negative). */
  remaining: number;
  /**
   * Whole seconds until the window frees more capacity, assuming no further hits: for a
   * refused hit, until one request fits again; otherwise until `remaining` grows (which
   * for a key that has only seen recent hits is when the quota is fully restored).
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

interface WindowPosition {
  index: number;
  elapsedMs: number;
  windowMs: number;
}

function position(rule: RateLimitRule, now: number): WindowPosition {
  // Whole numbers keep every comparison below exact in doubles (and in Redis' Lua).
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new RangeError(`rate limit rule "${rule.name}": limit must be a positive integer`);
  }
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new RangeError(`rate limit rule "${rule.name}": windowSeconds must be a positive integer`);
  }
  const windowMs = rule.windowSeconds * 1000;
  const t = Math.floor(now);
  const index = Math.floor(t / windowMs);
  return { index, elapsedMs: t - index * windowMs, windowMs };
}

/** `count + 1 <= limit`, multiplied through by the window so the boundary has no rounding. Mirrored in HIT_SCRIPT. */
function fits(limit: number, pos: WindowPosition, prev: number, current: number): boolean {
  return prev * (pos.windowMs - pos.elapsedMs) <= (limit - current - 1) * pos.windowMs;
}

/** `current` is the count after this hit was (or was not) recorded. */
function decide(rule: RateLimitRule, pos: WindowPosition, allowed: boolean, prev: number, current: number): RateLimitDecision {
  const { windowMs: w, elapsedMs: e } = pos;
  const remaining = Math.max(0, Math.floor(((rule.limit - current) * w - prev * (w - e)) / w));
  // The count at which one more request than `remaining` would fit; it is strictly below
  // the count now, so the wait is always positive.
  const target = rule.limit - remaining - 1;
  const waitMs =
    current <= target
      ? w - ((target - current) * w) / prev - e // prev's share decays enough within this window
      : w - e + w - (target * w) / current; // only once this window's hits become the decaying prev
  const resetSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return {
    allowed,
    limit: rule.limit,
    remaining,
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

interface Counter {
  index: number;
  windowMs: number;
  prev: number;
  current: number;
}

/** Single-process store. Counters idle for two windows carry no weight and are swept lazily on later hits. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters = new Map<string, Counter>();
  readonly #sweepIntervalMs: number;
  #nextSweepAt = -Infinity;

  constructor(opts: { sweepIntervalMs?: number } = {}) {
    this.#sweepIntervalMs = opts.sweepIntervalMs ?? 60_000;
  }

  /** Number of keys currently held (for monitoring memory). */
  get size(): number {
    return this.#counters.size;
  }

  async hit(rule: RateLimitRule, key: string, now: number = Date.now()): Promise<RateLimitDecision> {
    let pos = position(rule, now);
    this.#sweep(now);
    const id = `${rule.name}\u0000${key}`;
    let c = this.#counters.get(id);
    if (!c || c.windowMs !== pos.windowMs) {
      c = { index: pos.index, windowMs: pos.windowMs, prev: 0, current: 0 };
      this.#counters.set(id, c);
    } else if (pos.index > c.index) {
      c.prev = pos.index === c.index + 1 ? c.current : 0;
      c.current = 0;
      c.index = pos.index;
    } else if (pos.index < c.index) {
      // The clock stepped back past a window edge; judging against the newest window with
      // prev at full weight is the conservative choice and keeps state monotonic.
      pos = { index: c.index, elapsedMs: 0, windowMs: c.windowMs };
    }
    const allowed = fits(rule.limit, pos, c.prev, c.current);
    if (allowed) c.current += 1;
    return decide(rule, pos, allowed, c.prev, c.current);
  }

  async close(): Promise<void> {
    this.#counters.clear();
  }

  #sweep(now: number): void {
    // Lazy and driven by the caller's clock: no timer to unref, and injected time stays deterministic.
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + this.#sweepIntervalMs;
    for (const [id, c] of this.#counters) {
      if ((c.index + 2) * c.windowMs <= now) this.#counters.delete(id);
    }
  }
}

/**
 * KEYS: current window counter, previous window counter. ARGV: limit, windowMs, elapsedMs.
 * Returns {allowed (0/1), prev, current after this hit}. Only integers cross the boundary
 * because Redis truncates Lua numbers to integers in replies.
 */
const HIT_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local elapsedMs = tonumber(ARGV[3])
if prev * (windowMs - elapsedMs) > (limit - current - 1) * windowMs then
  return {0, prev, current}
end
current = redis.call('INCR', KEYS[1])
if current == 1 then
  -- It must outlive the next window, where it is read as the previous count.
  redis.call('PEXPIRE', KEYS[1], 2 * windowMs)
end
return {1, prev, current}
`;

type HitCommand = (currentKey: string, prevKey: string, limit: number, windowMs: number, elapsedMs: number) => Promise<unknown>;

function parseHitReply(reply: unknown): [allowed: boolean, prev: number, current: number] {
  if (Array.isArray(reply) && reply.length === 3 && reply.every((n) => typeof n === "number")) {
    return [reply[0] === 1, reply[1], reply[2]];
  }
  throw new Error(`unexpected rate limit script reply: ${JSON.stringify(reply)}`);
}

/**
 * Store shared by every process pointing at the same Redis. Window arithmetic uses the
 * caller's `now` (not Redis TIME) so injected time works; servers need roughly synced clocks.
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
    this.#redis.defineCommand("rateLimitHit", { numberOfKeys: 2, lua: HIT_SCRIPT });
    const scripted = this.#redis as Redis & { rateLimitHit: HitCommand };
    this.#hit = scripted.rateLimitHit.bind(scripted);
  }

  async hit(rule: RateLimitRule, key: string, now: number = Date.now()): Promise<RateLimitDecision> {
    const pos = position(rule, now);
    // The braces form a Redis Cluster hash tag, so both windows' keys share a slot.
    const base = `${this.#prefix}{${rule.name}:${key}}:`;
    const reply = await this.#hit(base + pos.index, base + (pos.index - 1), rule.limit, pos.windowMs, pos.elapsedMs);
    const [allowed, prev, current] = parseHitReply(reply);
    return decide(rule, pos, allowed, prev, current);
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

/** Redis when a URL is given (shared across server processes), else in-process memory. */
/** `namespace` keeps deployments that share one Redis apart (the service passes its database's name). */
export function createRateLimitStore(opts: { redisUrl?: string; namespace?: string }): RateLimitStore {
  return opts.redisUrl
    ? new RedisRateLimitStore(opts.redisUrl, { prefix: `ratelimit:${opts.namespace ? `${opts.namespace}:` : ''}` })
    : new MemoryRateLimitStore();
}
