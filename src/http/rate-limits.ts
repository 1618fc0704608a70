import { type Principal, tokenRateLimit } from '../auth/principal.ts';
import type { AppServices, OperationLimits } from '../context.ts';
import type { Config } from '../lib/config.ts';
import { AppError } from '../lib/problem.ts';
import {
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
  rateLimitHeaders,
} from '../lib/rate-limit.ts';

/**
 * The spec's limits, in one place. Every request with a token counts against the token's per-minute limit
 * (the API client's own limit, else the deployment's RATE_LIMIT_PER_MINUTE; GET /me reports the one that applies),
 * a GraphQL operation once per root field (src/graphql/rate-limit.plugin.ts); bind saves additionally count against 3
 * per 15 seconds per API client; the token endpoint counts per IP address. STK prompts have their own throttles
 * (src/modules/payments/stk-throttle.ts).
 */
async function check(store: RateLimitStore, rule: RateLimitRule, key: string, cost = 1): Promise<RateLimitDecision> {
  const d = await store.hit(rule, key, undefined, cost);
  if (!d.allowed) {
    throw new AppError('rate_limited', {
      detail:
        `Rate limit of ${rule.limit} requests per ${rule.windowSeconds} s exceeded` +
        (cost > 1 ? ` (this operation counts as ${cost}, ${d.remaining} left)` : '') +
        `; retry after ${d.retryAfterSeconds} s`,
      headers: rateLimitHeaders(d),
    });
  }
  return d;
}

/** `cost`: how many requests this one counts as (a GraphQL operation's root fields). */
export async function enforceTokenRateLimit(app: AppServices, p: Principal, cost = 1): Promise<RateLimitDecision> {
  const limit = tokenRateLimit(p.apiClient.rateLimitPerMinute, app.config);
  // Never fits, however long the caller waits: a 429 with Retry-After would invite retrying the same thing.
  if (cost > limit) {
    throw new AppError('query_too_complex', {
      detail: `This operation counts as ${cost} requests (one per root field), more than this API client's limit of ${limit} per minute`,
    });
  }
  return check(app.rateLimits, { name: 'token', limit, windowSeconds: 60 }, `t${p.token.id}`, cost);
}

export function enforceTokenEndpointLimit(app: AppServices, ip: string): Promise<RateLimitDecision> {
  return check(app.rateLimits, { name: 'oauth', limit: app.config.tokenRateLimitPerMinute, windowSeconds: 60 }, ip);
}

/** The limits services apply through AppServices.limits (a module never imports the transport). */
export function operationLimits(store: RateLimitStore, config: Config): OperationLimits {
  return {
    bind(p: Principal) {
      return check(
        store,
        { name: 'bind', limit: config.bindRateLimit, windowSeconds: config.bindRateWindowSeconds },
        `c${p.apiClient.id}`,
      );
    },
  };
}
