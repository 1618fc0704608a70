import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendText } from './respond.ts';

/**
 * CORS from an allowlist of exact origins (CORS_ORIGINS; none by default), one rule for /graphql and /api/v1.
 * Credentials travel in the Authorization header, never in cookies, so Access-Control-Allow-Credentials is never
 * sent: a page on an allowed origin must still hold a token, and a page anywhere else cannot read an answer at all.
 * An origin not on the list gets no Access-Control-Allow-* header, which is how a browser is told "no".
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Agent-Code, X-Agent-Key, X-Request-Id';
const EXPOSE_HEADERS =
  'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, Idempotent-Replayed, Location';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export interface CorsPolicy {
  /**
   * Headers for one answer. `preflight` carries the methods the path accepts when the request is a preflight
   * (OPTIONS with Access-Control-Request-Method).
   */
  headers(origin: string | null | undefined, preflight?: { methods: string[] }): Record<string, string>;
}

/** One policy per allowlist (the config's array): REST, the token endpoint and GraphQL share it, built once. */
const policies = new WeakMap<readonly string[], CorsPolicy>();

export function corsPolicy(allowed: readonly string[]): CorsPolicy {
  let policy = policies.get(allowed);
  if (!policy) policies.set(allowed, (policy = buildPolicy(allowed)));
  return policy;
}

function buildPolicy(allowed: readonly string[]): CorsPolicy {
  const list = new Set(allowed);
  return {
    headers(origin, preflight) {
      if (!list.size) return {};
      // The answer depends on Origin once there is a list, so a shared cache must key on it.
      const vary = { vary: 'Origin' };
      if (!origin || !list.has(origin)) return vary;
      if (preflight) {
        return {
          ...vary,
          'access-control-allow-origin': origin,
          'access-control-allow-methods': preflight.methods.join(', '),
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
        };
      }
      return { ...vary, 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS };
    },
  };
}

/** Sets CORS headers on a Node response ahead of writeHead (so problem answers carry them too), merging Vary. */
export function setCorsHeaders(res: ServerResponse, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    const prior = name === 'vary' ? res.getHeader('vary') : undefined;
    res.setHeader(name, prior ? `${String(prior)}, ${value}` : value);
  }
}

/** Answers OPTIONS on a Node response: 204 with Allow, and the preflight headers when the origin is allowed. */
export function answerOptions(res: ServerResponse, policy: CorsPolicy, req: IncomingMessage, methods: string[]): void {
  setCorsHeaders(
    res,
    policy.headers(req.headers.origin, req.headers['access-control-request-method'] ? { methods } : undefined),
  );
  sendText(res, 204, '', { allow: allowHeader(methods) });
}

/**
 * The Allow header of a path that answers OPTIONS (REST, the token endpoint, /graphql): its methods and OPTIONS, the
 * same in a 405 as in OPTIONS' own answer.
 */
export function allowHeader(methods: Iterable<string>): string {
  const all = [...methods];
  return (all.includes('OPTIONS') ? all : [...all, 'OPTIONS']).join(', ');
}
