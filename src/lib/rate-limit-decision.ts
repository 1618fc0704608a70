/** The sliding log's rules and decisions, shared by the memory and Redis stores (the algorithm: ./rate-limit.ts). */
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
  /**
   * Counts a hit of weight `cost` (default 1) for `key` under `rule` and decides; atomic across concurrent callers
   * (and, for shared stores, across processes).
   */
  hit(rule: RateLimitRule, key: string, now?: number, cost?: number): Promise<RateLimitDecision>;
  /**
   * What `hit` would decide, logging nothing: for a check that must pass before work whose success alone should be
   * counted (the caller serialises check and hit for the key, e.g. under a database lock).
   */
  peek(rule: RateLimitRule, key: string, now?: number, cost?: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface Checked {
  limit: number;
  windowMs: number;
  /** `now` in whole milliseconds. */
  t: number;
}

export function check(rule: RateLimitRule, now: number, cost: number): Checked {
  // Whole numbers keep every comparison exact in doubles and as Redis sorted-set scores.
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new RangeError(`rate limit rule "${rule.name}": limit must be a positive integer`);
  }
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new RangeError(`rate limit rule "${rule.name}": windowSeconds must be a positive integer`);
  }
  if (!Number.isFinite(now)) throw new RangeError(`rate limit rule "${rule.name}": now must be a finite time`);
  if (!Number.isSafeInteger(cost) || cost < 1)
    throw new RangeError(`rate limit rule "${rule.name}": cost must be a positive integer`);
  return { limit: rule.limit, windowMs: rule.windowSeconds * 1000, t: Math.floor(now) };
}

/**
 * `count` is the number of hits in the window once this one is counted (logged, or for a peek as if logged) or, when
 * refused, without it; `pivotAt` is the pivot's timestamp.
 */
export function decide(
  rule: RateLimitRule,
  c: Checked,
  allowed: boolean,
  count: number,
  pivotAt: number,
): RateLimitDecision {
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
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': String(d.resetSeconds),
    'RateLimit-Policy': d.policy,
  };
  if (!d.allowed) headers['Retry-After'] = String(d.retryAfterSeconds);
  return headers;
}
