import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { type CompiledRoute, compileRoutes, parsedBody, runOperation } from '../../rest-compat/executor.ts';
import { type AnyRoute, BinaryBody, type RestInput, type RestOutput } from '../../rest-compat/route.ts';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { requireScope } from '../auth/principal.ts';
import { type AppServices, type Context, createContext } from '../context.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { FIELD_ERROR_MESSAGES } from '../lib/field-errors.ts';
import { AppError, ValidationError } from '../lib/problem.ts';
import { rateLimitHeaders } from '../lib/rate-limit.ts';
import {
  canonicalJson,
  type FormBody,
  formDigest,
  parseForm,
  parseJson,
  readBody,
  unstorableTextAt,
  unstorableTextError,
} from './body.ts';
import { allowHeader, answerOptions, corsPolicy, setCorsHeaders } from './cors.ts';
import { streamCsv, wantsCsv } from './csv-stream.ts';
import { streamRanges } from './binary-stream.ts';
import { checkIdempotencyKey, withIdempotency } from './idempotency.ts';
import { enforceTokenRateLimit } from './rate-limits.ts';
import { checkQueryEncoding } from './query-encoding.ts';
import { setRouteTemplate } from './pages/metrics/route-label.ts';
import { sendBytes, sendJson, sendText } from './respond.ts';

export const API_PREFIX = '/api/v1';

export type RestHandler = (req: IncomingMessage, res: ServerResponse, requestId: string, url: URL) => Promise<void>;

/** A request matched to its route, authenticated and within its rate limit: what running the route needs. */
interface RouteCall {
  req: IncomingMessage;
  res: ServerResponse;
  ctx: Context;
  compiled: CompiledRoute;
  /** The path below API_PREFIX (part of what an Idempotency-Key's request hash covers). */
  path: string;
  url: URL;
  params: Record<string, string>;
  /** Sent with every answer, problems included. */
  limitHeaders: Record<string, string>;
}

/**
 * Transport for the legacy REST surface: matching, authentication, scopes, rate limits and Idempotency-Key.
 * What each path means is the route table's business (rest-compat/); what it does is the GraphQL core's.
 */
export function createRestHandler(app: AppServices, schema: GraphQLSchema): RestHandler {
  const compiled = compileRoutes(schema, ROUTES, { jit: app.config.facadeJit, columns: app.config.facadeJitColumns });
  const cors = corsPolicy(app.config.corsOrigins);

  return async function handleRest(req, res, requestId, url) {
    const path = url.pathname.slice(API_PREFIX.length) || '/';
    // Every answer here shows tenant data or a credential (a secret is shown once): no cache may keep a copy.
    res.setHeader('cache-control', 'no-store');
    if (req.method === 'OPTIONS') return answerOptions(res, cors, req, methodsOf(compiled, path));
    setCorsHeaders(res, cors.headers(header(req, 'origin')));
    const { c, params } = match(compiled, req.method ?? 'GET', path);
    checkQueryEncoding(url.search);
    setRouteTemplate(res, `${API_PREFIX}${c.route.path}`);
    const ctx = await restContext(app, req, requestId);
    const principal = requireScope(ctx.principal, ...c.route.scopes);
    const limit = await enforceTokenRateLimit(app, principal);
    const limitHeaders = rateLimitHeaders(limit);
    try {
      await runRoute(app, schema, { req, res, ctx, compiled: c, path, url, params, limitHeaders });
    } catch (e) {
      throw withRateLimitHeaders(e, limitHeaders);
    }
  };
}

/** The methods a path takes: what OPTIONS (a CORS preflight or a plain question) answers; nothing else runs. */
function methodsOf(compiled: CompiledRoute[], path: string): string[] {
  const methods = withHead(new Set(compiled.filter((c) => c.matcher.test(path)).map((c) => c.route.method)));
  if (!methods.length) throw new AppError('not_found', { detail: `No such endpoint: ${API_PREFIX}${path}` });
  return methods;
}

/** HEAD goes wherever GET does (RFC 9110 9.3.2): the GET runs and Node sends its status and headers, no body. */
function withHead(methods: Set<string>): string[] {
  return methods.has('GET') ? [...methods, 'HEAD'] : [...methods];
}

function match(
  compiled: CompiledRoute[],
  method: string,
  path: string,
): { c: CompiledRoute; params: Record<string, string> } {
  const allowed = new Set<string>();
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const c of compiled) {
    const m = c.matcher.exec(path);
    if (!m) continue;
    if (c.route.method !== wanted) {
      allowed.add(c.route.method);
      continue;
    }
    const params: Record<string, string> = {};
    c.paramNames.forEach((n, i) => (params[n] = decodePathParam(m[i + 1])));
    return { c, params };
  }
  if (allowed.size) {
    const allow = allowHeader(withHead(allowed));
    throw new AppError('method_not_allowed', { detail: `Use ${allow}`, headers: { allow } });
  }
  throw new AppError('not_found', { detail: `No such endpoint: ${method} ${API_PREFIX}${path}` });
}

function restContext(app: AppServices, req: IncomingMessage, requestId: string): Promise<Context> {
  return createContext({
    app,
    transport: 'rest',
    requestId,
    credentials: {
      authorization: req.headers.authorization,
      agentCode: header(req, 'x-agent-code'),
      agentKey: header(req, 'x-agent-key'),
      clientNo: header(req, 'x-client-no'),
      clientKey: header(req, 'x-client-key'),
    },
    peerIp: req.socket.remoteAddress,
  });
}

/** Reads the body, runs the route's operation and answers, keeping the route's Idempotency-Key promise. */
async function runRoute(app: AppServices, schema: GraphQLSchema, call: RouteCall): Promise<void> {
  const { req, res, ctx, compiled, limitHeaders } = call;
  const route = compiled.route;
  const body = await readRouteBody(app, call);
  const input: RestInput = {
    url: call.url,
    params: call.params,
    query: call.url.searchParams,
    body,
    idempotencyKey: route.idempotent === 'operation' ? checkIdempotencyKey(req.headers['idempotency-key']) : undefined,
  };
  const run = async () => {
    const data = await runOperation(schema, compiled, ctx, route.toVariables(parsedBody(route, input)));
    return route.toResponse(data, input);
  };
  if (route.idempotent === 'operation') {
    const out = await run();
    sendJson(res, out.status, out.body, {
      ...limitHeaders,
      ...(out.replayed === true ? { 'idempotent-replayed': 'true' } : {}),
    });
    return;
  }
  if (route.idempotent) return sendStoredOnce(call, body, run);
  if (route.ranges) return streamRanges(res, { schema, compiled, ctx, input }, limitHeaders);
  if (wantsCsv(req, compiled)) {
    return streamCsv(res, { schema, compiled, ctx, variables: route.toVariables(input) }, limitHeaders);
  }
  const out = await run();
  if (out.body instanceof BinaryBody) {
    const b = out.body;
    return sendBytes(res, out.status, b.bytes, { ...b.headers, ...limitHeaders, 'content-type': b.contentType });
  }
  sendJson(res, out.status, out.body, limitHeaders);
}

/** The JSON body, for a method that has one; a multipart route's form (its own size limit, text checked by parseForm). */
async function readRouteBody(app: AppServices, { req, params, url, compiled }: RouteCall): Promise<unknown> {
  const { route } = compiled;
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  const body = !hasBody
    ? undefined
    : route.multipart
      ? await parseForm(await readBody(req, route.multipart.maxBytes(app.config)), req)
      : parseJson(await readBody(req, app.config.maxBodyBytes), req);
  // PostgreSQL text cannot hold U+0000 or an unpaired surrogate ("\ud800" in JSON): refuse them here instead of
  // failing inside a query as a 500.
  // A query parameter is named as sent (`until`, even when given twice); a body field by its path (`vehicles.0.regno`).
  const query = Object.fromEntries([...url.searchParams].map(([k, v]) => [k, v]));
  for (const [k, v] of url.searchParams) if (unstorableTextAt(v) !== null) query[k] = v;
  const unstorable =
    unstorableTextAt(params) ?? unstorableTextAt(query) ?? (route.multipart ? null : unstorableTextAt(body));
  if (unstorable !== null) throw unstorableTextError(unstorable);
  // Every JSON body of the API is an object (the OpenAPI document): `null`, `[]`, `42` or `"x"` is refused, not read
  // as an empty update (found by an outside check: a PATCH with such a body answered 200, changing nothing).
  if (!route.multipart && body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body)))
    throw new ValidationError([{ field: 'body', code: 'not_an_object', message: FIELD_ERROR_MESSAGES.not_an_object }]);
  return body;
}

/** What an Idempotency-Key's request hash covers of the body: canonical JSON, or a form's digest (files by hash). */
function bodyDigest(route: AnyRoute, body: unknown): string {
  return route.multipart ? formDigest(body as FormBody) : canonicalJson(body);
}

/** The facade's own exactly-once: the first answer is stored under the Idempotency-Key and replayed as stored. */
async function sendStoredOnce(call: RouteCall, body: unknown, run: () => Promise<RestOutput>): Promise<void> {
  const { req, res, ctx, limitHeaders } = call;
  const route = call.compiled.route;
  const key = checkIdempotencyKey(req.headers['idempotency-key']);
  // The signed-in client-area customer is part of the request: another customer's retry never replays this answer.
  const requestHash = sha256Hex(
    `${route.method} ${call.path}\n${bodyDigest(route, body)}\n${ctx.principal?.actor?.userId ?? ''}` +
      (ctx.customer ? `\ncustomer:${ctx.customer.clientId}` : ''),
  );
  const outsideTransaction = route.idempotent === 'outside-transaction';
  const redact = route.redactForReplay?.bind(route);
  const out = await withIdempotency(
    ctx,
    { key, requestHash, operation: route.operationId, redact, outsideTransaction },
    run,
  );
  sendText(res, out.status, out.bodyText, {
    'content-type': 'application/json; charset=utf-8',
    ...limitHeaders,
    ...(out.replayed ? { 'idempotent-replayed': 'true' } : {}),
  });
}

/** A problem answers with the rate-limit headers a success would have carried. */
function withRateLimitHeaders(e: unknown, limitHeaders: Record<string, string>): unknown {
  if (!(e instanceof AppError)) return e;
  return new AppError(e.code, {
    detail: e.detail,
    errors: e.errors,
    extra: e.extra,
    status: e.status,
    headers: { ...limitHeaders, ...(e.headers ?? {}) },
  });
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
