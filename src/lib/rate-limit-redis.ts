import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { AppError } from './problem.ts';
import {
  check,
  decide,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from './rate-limit-decision.ts';

/**
 * KEYS: the key's log (a sorted set scored by hit time). ARGV: cutoff (hits at or before it
 * have left the window), now, a unique member prefix for this hit, limit, windowMs, cost,
 * dry run ("1": decide only). The same decision as the memory store's, in one atomic call.
 * Returns {allowed (0/1), count as decide() takes it, pivot's score as a string}. Times cross
 * the boundary as strings: Redis truncates Lua numbers in replies and may reformat them in calls.
 */
const HIT_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local limit = tonumber(ARGV[4])
local cost = tonumber(ARGV[6])
local live = redis.call('ZCARD', KEYS[1])
if live + cost <= limit and ARGV[7] ~= '1' then
  for i = 1, cost do redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3] .. ':' .. i) end
  -- Live until the newest hit leaves the window, which is later than now + window when
  -- another server's clock runs ahead of ours.
  local newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
  redis.call('PEXPIRE', KEYS[1], newest - tonumber(ARGV[2]) + tonumber(ARGV[5]))
  local count = live + cost
  local pivot = count - limit
  if pivot < 0 then pivot = 0 end
  return {1, count, redis.call('ZRANGE', KEYS[1], pivot, pivot, 'WITHSCORES')[2]}
end
local allowed = 0
local count = live
local k = live + cost - 1 - limit
if live + cost <= limit then
  allowed = 1
  count = live + cost
  k = 0
end
local pivotAt = ARGV[2]
if k < live then pivotAt = redis.call('ZRANGE', KEYS[1], k, k, 'WITHSCORES')[2] end
return {allowed, count, pivotAt}
`;

type HitCommand = (
  key: string,
  cutoff: number,
  now: number,
  member: string,
  limit: number,
  windowMs: number,
  cost: number,
  dryRun: '0' | '1',
) => Promise<unknown>;

function parseHitReply(reply: unknown): [allowed: boolean, count: number, pivotAt: number] {
  if (Array.isArray(reply) && reply.length === 3 && typeof reply[0] === 'number' && typeof reply[1] === 'number') {
    const pivotAt = Number(reply[2]);
    if (typeof reply[2] === 'string' && Number.isFinite(pivotAt)) return [reply[0] === 1, reply[1], pivotAt];
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
  #waiting: Promise<boolean> | null = null;

  constructor(url: string, opts: { prefix?: string } = {}) {
    this.#prefix = opts.prefix ?? 'ratelimit:';
    // The limiter sits on every request's path: while Redis is unreachable a check fails within a second (not after
    // ioredis's 10 s connect timeout) and the request is refused 503 (#decide): limits that cannot be checked are
    // not waived, and the sign-in and payment throttles ride on them.
    // Loaded on first use (a CommonJS package, so synchronously): a process without REDIS_URL never pays for it.
    const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    // No offline queue and no retry: a hit refused because Redis did not answer must not be sent once it is back
    // (ioredis would replay its queue on reconnecting, charging the caller for requests it was refused). A hit made
    // while the connection is being (re)made waits for it, a second at most (#connected).
    this.#redis = new Client(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: 1_000 });
    // A lost connection is reported by the hits that fail (503s); ioredis reconnects on its own.
    this.#redis.on('error', () => undefined);
    // defineCommand sends EVALSHA and falls back to EVAL when the script isn't cached.
    this.#redis.defineCommand('rateLimitLog', { numberOfKeys: 1, lua: HIT_SCRIPT });
    const scripted = this.#redis as Redis & { rateLimitLog: HitCommand };
    this.#hit = scripted.rateLimitLog.bind(scripted);
  }

  hit(rule: RateLimitRule, key: string, now: number = Date.now(), cost = 1): Promise<RateLimitDecision> {
    return this.#decide(rule, key, now, cost, '0');
  }

  peek(rule: RateLimitRule, key: string, now: number = Date.now(), cost = 1): Promise<RateLimitDecision> {
    return this.#decide(rule, key, now, cost, '1');
  }

  async #decide(
    rule: RateLimitRule,
    key: string,
    now: number,
    cost: number,
    dryRun: '0' | '1',
  ): Promise<RateLimitDecision> {
    const c = check(rule, now, cost);
    // The braces are a Redis Cluster hash tag (the slot stays with the rule and key whatever
    // suffix follows). The `:log` suffix differs from the old two-counter keys, which held
    // strings, so a rolling upgrade never meets a key of the wrong type.
    const logKey = `${this.#prefix}{${rule.name}:${key}}:log`;
    // The random part keeps hits in the same millisecond distinct (a repeated member would only move, not add).
    let reply: unknown;
    try {
      if (!(await this.#connected())) throw new Error('not connected');
      reply = await this.#hit(
        logKey,
        c.t - c.windowMs,
        c.t,
        `${c.t}-${randomUUID()}`,
        c.limit,
        c.windowMs,
        cost,
        dryRun,
      );
    } catch {
      throw new AppError('service_unavailable', {
        detail: 'Rate limits cannot be checked (their store does not answer); retry shortly',
        headers: { 'Retry-After': '5' },
      });
    }
    const [allowed, count, pivotAt] = parseHitReply(reply);
    return decide(rule, c, allowed, count, pivotAt);
  }

  /** Connected now, or within a second; one wait shared by every hit made meanwhile. */
  #connected(): Promise<boolean> | boolean {
    if (this.#redis.status === 'ready') return true;
    this.#waiting ??= new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#redis.off('ready', onReady);
        this.#waiting = null;
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(this.#redis.status === 'ready'), 1_000);
      this.#redis.once('ready', onReady);
    });
    return this.#waiting;
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
