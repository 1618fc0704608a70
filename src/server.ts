import { openClockScope } from './lib/clock.ts';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { catalogueEntries } from './modules/events/catalogue.ts';
import type { AppServices } from './context.ts';
import { requestIdFrom } from './context.ts';
import { schema } from './graphql/schema.ts';
import { attachWebSocket } from './graphql/websocket.ts';
import { createGraphQL, type Yoga } from './graphql/yoga.ts';
import { handleMpesaCallback, isMpesaCallbackPath } from './http/mpesa-callback.ts';
import { handleB2cResult, isB2cResultPath } from './http/b2c-result.ts';
import { handleSmsReport, isSmsReportPath } from './http/sms-delivery-report.ts';
import { handleToken } from './http/oauth.ts';
import { PAGES } from './http/pages/index.ts';
import { routeLabel } from './http/pages/metrics/route-label.ts';
import { answerConnect, unparsedRequestAnswerer } from './http/raw-socket.ts';
import { requestUrl } from './http/request-url.ts';
import { loggedPath, requestScope, sendJson, sendProblem } from './http/respond.ts';
import { API_PREFIX, createRestHandler, type RestHandler } from './http/rest.ts';
import { AppError, toProblemDocument } from './lib/problem.ts';
import { openReadScope } from './db/replicas.ts';

export interface HttpServer {
  server: http.Server;
  /** /healthz answers 503 until this is called (after migrations, seed and the credentials file). */
  markReady(): void;
  /** Stop accepting, let in-flight requests finish (up to the timeout), close WebSockets. */
  close(timeoutMs: number): Promise<void>;
}

interface Health {
  ready(): Promise<boolean>;
}

/** Shared by the routes and close(): the health checks answer from it, and a closing server says so on each answer. */
interface Lifecycle {
  ready: boolean;
  closing: boolean;
}

/** What the paths are served by, built once per server. */
interface Endpoints {
  app: AppServices;
  health: Health;
  lifecycle: Lifecycle;
  yoga: Yoga;
  rest: RestHandler;
  /** The OpenAPI document, serialised once. */
  openapi: string;
}

/** One HTTP server: /graphql (+ WebSocket), /api/v1, /healthz, /readyz. */
export function createHttpServer(app: AppServices, health: Health): HttpServer {
  const yoga = createGraphQL(app);
  const rest = createRestHandler(app, schema);
  const openapi = JSON.stringify(buildOpenApi(catalogueEntries()));
  const lifecycle: Lifecycle = { ready: false, closing: false };
  const endpoints: Endpoints = { app, health, lifecycle, yoga, rest, openapi };
  /** The newest response per connection, so a parse error in a pipelined request waits for the answers before it. */
  const pendingResponse = new WeakMap<Duplex, ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    beginResponse(app, req, res, requestId, pendingResponse);
    try {
      const url = requestUrl(req, app.config.publicBaseUrl);
      if (lifecycle.closing) res.setHeader('connection', 'close');
      await route(endpoints, req, res, requestId, url);
    } catch (e) {
      sendProblem(res, req, e, requestId, app.log);
    }
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
    // Node neither awaits nor catches a request listener: a rejection that got past `handle` would be unhandled and,
    // under `npm start`, end the process for every client. It costs this one request instead.
    // A clock scope per request, bound to the caller's organisation once known (lib/clock.ts, src/context.ts).
    requestScope
      .run({ requestId }, () => openClockScope(() => openReadScope(() => handle(req, res, requestId))))
      .catch((err: unknown) => answerOutsideHandler(app, res, err, requestId));
  };
  const server = createNodeServer(app, onRequest, pendingResponse);
  const wss = attachWebSocket(server, yoga, app);

  return {
    server,
    markReady: () => {
      lifecycle.ready = true;
    },
    close: (timeoutMs) => closeGracefully(server, wss, lifecycle, timeoutMs, app.config.shutdownDrainMs),
  };
}

/** Headers every answer carries, the connection's newest response, and the access-log line when it finishes. */
function beginResponse(
  app: AppServices,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  pendingResponse: WeakMap<Duplex, ServerResponse>,
): void {
  res.setHeader('x-request-id', requestId);
  // Browsers must take every answer (JSON, problem documents, GraphiQL) as the type it declares, never sniff one.
  res.setHeader('x-content-type-options', 'nosniff');
  pendingResponse.set(req.socket, res);
  res.once('close', () => {
    if (pendingResponse.get(req.socket) === res) pendingResponse.delete(req.socket);
  });
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    app.log.info(
      { request_id: requestId, method: req.method, path: loggedPath(req.url), status: res.statusCode, ms },
      'request',
    );
    const route = routeLabel(res, req.url);
    app.metrics.httpRequest({ method: req.method ?? '', route, status: res.statusCode, seconds: ms / 1000 });
  });
}

/** The path decides who answers; anything thrown becomes the caller's problem document. */
async function route(
  endpoints: Endpoints,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  url: URL,
): Promise<void> {
  const { app, lifecycle } = endpoints;
  if (url.pathname === '/healthz') {
    const up = lifecycle.ready && !lifecycle.closing;
    return sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'starting' });
  }
  if (url.pathname === '/readyz') {
    const ok = lifecycle.ready && !lifecycle.closing && (await endpoints.health.ready().catch(() => false));
    return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready' });
  }
  // `/graphql/` too (Yoga serves it); anything below it is the not_found problem below, not Yoga's empty 404.
  if (url.pathname === '/graphql' || url.pathname === '/graphql/') {
    await endpoints.yoga(req, res, { req, requestId });
    return;
  }
  if (url.pathname === `${API_PREFIX}/openapi.json`) {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=300',
    });
    res.end(endpoints.openapi);
    return;
  }
  if (url.pathname === `${API_PREFIX}/oauth/token`) {
    return await handleToken(app, req, res, req.socket.remoteAddress ?? 'unknown');
  }
  if (isMpesaCallbackPath(url.pathname)) return await handleMpesaCallback(app, req, res, url.pathname);
  if (isB2cResultPath(url.pathname)) return await handleB2cResult(app, req, res, url.pathname);
  if (isSmsReportPath(url.pathname)) return await handleSmsReport(app, req, res, url.pathname);
  if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
    return await endpoints.rest(req, res, requestId, url);
  }
  const page = PAGES.find((p) => p.matches(url.pathname));
  if (page) return await page.handle(app, req, res, { url, requestId, openapi: endpoints.openapi });
  throw new AppError('not_found', { detail: `No such path: ${url.pathname}` });
}

/** A rejection that got past `handle`'s own error handling: a bare 500, or a cut connection once headers are out. */
function answerOutsideHandler(app: AppServices, res: ServerResponse, err: unknown, requestId: string): void {
  app.log.error({ err, request_id: requestId }, 'request failed outside its error handler');
  try {
    if (res.headersSent) return void res.destroy();
    const body = JSON.stringify(toProblemDocument(new AppError('internal_error'), requestId));
    res
      .writeHead(500, {
        'content-type': 'application/problem+json; charset=utf-8',
        'x-request-id': requestId,
        connection: 'close',
      })
      .end(body);
  } catch {
    res.destroy();
  }
}

function createNodeServer(
  app: AppServices,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  pendingResponse: WeakMap<Duplex, ServerResponse>,
): http.Server {
  // Host is checked by requestUrl, which answers a missing one with a problem document rather than Node's bare 400.
  const server = http.createServer({ requireHostHeader: false }, onRequest);
  // Without a listener Node answers an unknown `Expect` with its own bare 417; the expectation is optional to honour.
  server.on('checkExpectation', onRequest);
  const answerUnparsed = unparsedRequestAnswerer(app.log, pendingResponse);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerUnparsed(err, socket));
  server.on('connect', (req: IncomingMessage, socket: Duplex) => answerConnect(req, socket));
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 60_000;
  return server;
}

/**
 * WebSockets first (told why), then HTTP, in three steps. For `drainMs` the server still accepts connections and
 * answers every request on them with `Connection: close` (and /readyz with 503): a request already sent when the stop
 * came, still in the kernel's accept queue or unread on an accepted connection, is answered rather than reset. Then it
 * stops listening; after `drainMs` more, connections without a request in progress are dropped (http.Server's close);
 * the rest when their request finishes or the timeout passes. Found by an outside check (2026-12-03): 30 requests
 * sent just before SIGTERM, 25 reset, because the server stopped listening and dropped every connection not yet
 * read at once.
 */
async function closeGracefully(
  server: http.Server,
  wss: WebSocketServer,
  lifecycle: Lifecycle,
  timeoutMs: number,
  drainMs: number,
): Promise<void> {
  lifecycle.closing = true;
  for (const client of wss.clients) client.close(1001, 'server shutting down');
  wss.close();
  const drain = Math.min(drainMs, timeoutMs / 2);
  if (drain > 0) await new Promise((resolve) => setTimeout(resolve, drain).unref());
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, timeoutMs - drain);
    timer.unref();
    // http.Server's close once the connections accepted have been read: drops the idle ones, stops its timeout checks.
    const idle = setTimeout(() => server.close(), drain);
    idle.unref();
    // Listening stops now; resolves once every connection has ended.
    net.Server.prototype.close.call(server, () => {
      clearTimeout(timer);
      clearTimeout(idle);
      resolve();
    });
  });
}
