import type { Principal } from '../auth/principal.ts';
import type { AppServices } from '../context.ts';
import { AppError } from '../lib/problem.ts';
import { type RateLimitDecision, type RateLimitRule, rateLimitHeaders } from '../lib/rate-limit.ts';

/**
 * The spec's limits, in one place. Every request with a token counts against the token's per-minute limit
 * (the API client's override, reported by GET /me); bind saves additionally count against 3 per 15 seconds per
 * API client; the token endpoint counts per IP address.
 */
async function check(app: AppServices, rule: RateLimitRule, key: string): Promise<RateLimitDecision> {
  const d = await app.rateLimits.hit(rule, key);
  if (!d.allowed) {
    throw new AppError('rate_limited', {
      detail: `Rate limit of ${rule.limit} requests per ${rule.windowSeconds} s exceeded; retry after ${d.retryAfterSeconds} s`,
      headers: rateLimitHeaders(d),
    });
  }
  return d;
}

export function enforceTokenRateLimit(app: AppServices, p: Principal): Promise<RateLimitDecision> {
  return check(app, { name: 'token', limit: p.apiClient.rateLimitPerMinute, windowSeconds: 60 }, `t${p.token.id}`);
}

export function enforceTokenEndpointLimit(app: AppServices, ip: string): Promise<RateLimitDecision> {
  return check(app, { name: 'oauth', limit: app.config.tokenRateLimitPerMinute, windowSeconds: 60 }, ip);
}

export function enforceBindLimit(app: AppServices, p: Principal): Promise<RateLimitDecision> {
  return check(
    app,
    { name: 'bind', limit: app.config.bindRateLimit, windowSeconds: app.config.bindRateWindowSeconds },
    `c${p.apiClient.id}`,
  );
}
