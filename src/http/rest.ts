import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { type CompiledRoute, compileRoutes, runOperation } from '../../rest-compat/executor.ts';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { requireScope } from '../auth/principal.ts';
import { type AppServices, createContext } from '../context.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { AppError } from '../lib/problem.ts';
import { rateLimitHeaders } from '../lib/rate-limit.ts';
import { canonicalJson, hasUnstorableText, parseJson, readBody, UNSTORABLE_TEXT } from './body.ts';
import { answerOptions, corsPolicy, setCorsHeaders } from './cors.ts';
import { checkIdempotencyKey, withIdempotency } from './idempotency.ts';
import { enforceTokenRateLimit } from './rate-limits.ts';
import { sendJson, sendText } from './respond.ts';

export const API_PREFIX = '/api/v1';

/**
 * Transport for the legacy REST surface: matching, authentication, scopes, rate limits and Idempotency-Key.
 * What each path means is the route table's business (rest-compat/); what it does is the GraphQL core's.
 */
export function createRestHandler(app: AppServices, schema: GraphQLSchema) {
  const compiled = compileRoutes(schema, ROUTES);
  const cors = corsPolicy(app.config.corsOrigins);

  /** The methods a path takes: what OPTIONS (a CORS preflight or a plain question) answers; nothing else runs. */
  function methodsOf(path: string): string[] {
    const methods = [...new Set(compiled.filter((c) => c.matcher.test(path)).map((c) => c.route.method))];
    if (!methods.length) throw new AppError('not_found', { detail: `No such endpoint: ${API_PREFIX}${path}` });
    return methods;
  }

  function match(method: string, path: string): { c: CompiledRoute; params: Record<string, string> } {
    const allowed = new Set<string>();
    for (const c of compiled) {
      const m = c.matcher.exec(path);
      if (!m) continue;
      if (c.route.method !== method) {
        allowed.add(c.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      c.paramNames.forEach((n, i) => (params[n] = decodePathParam(m[i + 1])));
      return { c, params };
    }
    if (allowed.size) {
      throw new AppError('method_not_allowed', {
        detail: `Use ${[...allowed].join(', ')}`,
        headers: { allow: [...allowed].join(', ') },
      });
    }
    throw new AppError('not_found', { detail: `No such endpoint: ${method} ${API_PREFIX}${path}` });
  }

  return async function handleRest(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    url: URL,
  ): Promise<void> {
    const path = url.pathname.slice(API_PREFIX.length) || '/';
    // Every answer here shows tenant data or a credential (a secret is shown once): no cache may keep a copy.
    res.setHeader('cache-control', 'no-store');
    if (req.method === 'OPTIONS') return answerOptions(res, cors, req, methodsOf(path));
    setCorsHeaders(res, cors.headers(header(req, 'origin')));
    const { c, params } = match(req.method ?? 'GET', path);
    const route = c.route;
    const ctx = await createContext({
      app,
      transport: 'rest',
      requestId,
      credentials: {
        authorization: req.headers.authorization,
        agentCode: header(req, 'x-agent-code'),
        agentKey: header(req, 'x-agent-key'),
      },
    });
    const principal = requireScope(ctx.principal, ...route.scopes);
    const limit = await enforceTokenRateLimit(app, principal);
    const limitHeaders = rateLimitHeaders(limit);
    try {
      const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
      const body = hasBody ? parseJson(await readBody(req, app.config.maxBodyBytes), req) : undefined;
      // PostgreSQL text cannot hold U+0000 or an unpaired surrogate ("\ud800" in JSON): refuse them here instead of
      // failing inside a query as a 500.
      if (hasUnstorableText(params) || hasUnstorableText([...url.searchParams]) || hasUnstorableText(body)) {
        throw new AppError('invalid_request', { detail: UNSTORABLE_TEXT });
      }
      const input = {
        url,
        params,
        query: url.searchParams,
        body,
        idempotencyKey:
          route.idempotent === 'operation' ? checkIdempotencyKey(req.headers['idempotency-key']) : undefined,
      };
      const run = async () => {
        const data = await runOperation(schema, c, ctx, route.toVariables(input));
        return route.toResponse(data, input);
      };
      if (route.idempotent === 'operation') {
        const out = await run();
        const replayed = (out as { replayed?: boolean }).replayed === true;
        sendJson(res, out.status, out.body, {
          ...limitHeaders,
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        return;
      }
      if (route.idempotent) {
        const key = checkIdempotencyKey(req.headers['idempotency-key']);
        const requestHash = sha256Hex(
          `${route.method} ${path}\n${canonicalJson(body)}\n${ctx.principal?.actor?.userId ?? ''}`,
        );
        const outsideTransaction = route.idempotent === 'outside-transaction';
        const out = await withIdempotency(
          ctx,
          { key, requestHash, operation: route.operationId, redact: route.redactForReplay, outsideTransaction },
          run,
        );
        sendText(res, out.status, out.bodyText, {
          'content-type': 'application/json; charset=utf-8',
          ...limitHeaders,
          ...(out.replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        return;
      }
      const out = await run();
      sendJson(res, out.status, out.body, limitHeaders);
    } catch (e) {
      if (e instanceof AppError)
        throw new AppError(e.code, {
          detail: e.detail,
          errors: e.errors,
          extra: e.extra,
          status: e.status,
          headers: { ...limitHeaders, ...(e.headers ?? {}) },
        });
      throw e;
    }
  };
}

function decodePathParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('invalid_request', { detail: 'Malformed percent-encoding in the path' });
  }
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}
