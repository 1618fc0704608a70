import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import type { AppServices } from './context.ts';
import { requestIdFrom } from './context.ts';
import { schema } from './graphql/schema.ts';
import { attachWebSocket } from './graphql/websocket.ts';
import { createGraphQL } from './graphql/yoga.ts';
import { handleMpesaCallback, isMpesaCallbackPath } from './http/mpesa-callback.ts';
import { handleToken } from './http/oauth.ts';
import { loggedPath, rawProblemResponse, requestScope, sendJson, sendProblem } from './http/respond.ts';
import { API_PREFIX, createRestHandler } from './http/rest.ts';
import { AppError, toProblemDocument } from './lib/problem.ts';

export interface HttpServer {
  server: http.Server;
  /** /healthz answers 503 until this is called (after migrations, seed and the credentials file). */
  markReady(): void;
  /** Stop accepting, let in-flight requests finish (up to the timeout), close WebSockets. */
  close(timeoutMs: number): Promise<void>;
}

/** One HTTP server: /graphql (+ WebSocket), /api/v1, /healthz, /readyz. */
export function createHttpServer(app: AppServices, health: { ready(): Promise<boolean> }): HttpServer {
  const yoga = createGraphQL(app);
  const rest = createRestHandler(app, schema);
  const openapi = JSON.stringify(buildOpenApi());
  let closing = false;
  let ready = false;
  /** The newest response per connection, so a parse error in a pipelined request waits for the answers before it. */
  const pendingResponse = new WeakMap<Duplex, ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    res.setHeader('x-request-id', requestId);
    // Browsers must take every answer (JSON, problem documents, GraphiQL) as the type it declares, never sniff one.
    res.setHeader('x-content-type-options', 'nosniff');
    pendingResponse.set(req.socket, res);
    res.once('close', () => {
      if (pendingResponse.get(req.socket) === res) pendingResponse.delete(req.socket);
    });
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      app.log.info(
        {
          request_id: requestId,
          method: req.method,
          path: loggedPath(req.url),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    try {
      const url = requestUrl(req, app.config.publicBaseUrl);
      if (closing) res.setHeader('connection', 'close');
      if (url.pathname === '/healthz')
        return sendJson(res, ready && !closing ? 200 : 503, { status: ready && !closing ? 'ok' : 'starting' });
      if (url.pathname === '/readyz') {
        const ok = ready && !closing && (await health.ready().catch(() => false));
        return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready' });
      }
      if (url.pathname === '/graphql' || url.pathname.startsWith('/graphql/')) {
        await yoga(req, res, { req, requestId });
        return;
      }
      if (url.pathname === `${API_PREFIX}/openapi.json`) {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'public, max-age=300',
        });
        res.end(openapi);
        return;
      }
      if (url.pathname === `${API_PREFIX}/oauth/token`) {
        return await handleToken(app, req, res, req.socket.remoteAddress ?? 'unknown');
      }
      if (isMpesaCallbackPath(url.pathname)) return await handleMpesaCallback(app, req, res, url.pathname);
      if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
        return await rest(req, res, requestId, url);
      }
      throw new AppError('not_found', { detail: `No such path: ${url.pathname}` });
    } catch (e) {
      sendProblem(res, req, e, requestId, app.log);
    }
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
    // Node neither awaits nor catches a request listener: a rejection that got past `handle` would be unhandled and,
    // under `npm start`, end the process for every client. It costs this one request instead.
    requestScope
      .run({ requestId }, () => handle(req, res, requestId))
      .catch((err: unknown) => {
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
      });
  };
  // Host is checked by requestUrl, which answers a missing one with a problem document rather than Node's bare 400.
  const server = http.createServer({ requireHostHeader: false }, onRequest);
  // Without a listener Node answers an unknown `Expect` with its own bare 417; the expectation is optional to honour.
  server.on('checkExpectation', onRequest);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerUnparsed(err, socket));
  // CONNECT is not a request Node routes to the listener: without this the connection is dropped without an answer.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.resume(); // drain what the client sends after the request line: nothing here reads it
    const err = new AppError('method_not_allowed', {
      detail: 'This server is not a proxy',
      headers: { allow: 'GET, POST, PATCH, DELETE' },
    });
    socket.end(rawProblemResponse(err, requestIdFrom(req.headers['x-request-id'] as string | undefined)));
    setTimeout(() => socket.destroy(), 2_000).unref();
  });
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 60_000;
  const wss = attachWebSocket(server, yoga, app);

  const answered = new WeakSet<Duplex>();
  /** Bytes Node's parser rejected (bad request line, header overflow, header timeout): a problem on the raw socket. */
  function answerUnparsed(err: NodeJS.ErrnoException, socket: Duplex): void {
    if (answered.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = requestIdFrom(undefined);
    const problem =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('headers_too_large', {
            detail: `Request line and headers are limited to ${http.maxHeaderSize} bytes`,
          })
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('request_timeout', { detail: 'The request was not received in time' })
          : new AppError('invalid_request', { detail: 'The request could not be parsed as HTTP/1.1' });
    app.log.warn({ request_id: requestId, reason: err.code, status: problem.status }, 'unparseable request');
    const send = () => {
      if (!socket.writable) return void socket.destroy();
      // Half-close and keep reading for a moment rather than destroy: closing with the client's bytes unread (the rest
      // of an oversized header) makes the kernel send a reset, which can discard this answer before it is read.
      socket.end(rawProblemResponse(problem, requestId));
      setTimeout(() => socket.destroy(), 2_000).unref();
    };
    const pending = pendingResponse.get(socket);
    if (pending && !pending.writableFinished) pending.once('close', send);
    else send();
  }

  return {
    server,
    markReady: () => {
      ready = true;
    },
    async close(timeoutMs) {
      closing = true;
      for (const client of wss.clients) client.close(1001, 'server shutting down');
      wss.close();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

/** A Host header as RFC 9110 allows it (reg-name or IP literal, optional port); URL parsing then checks the rest. */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request as a URL, or 400 invalid_request. Node passes the request-target and Host through unchecked:
 * `//a:b/x` resolved against a base reads as a scheme-relative URL with a bad port, and Host can hold anything. Links
 * in responses (links.next, links.policy) use the public origin when configured, else the request's Host.
 */
function requestUrl(req: IncomingMessage, publicBaseUrl: string | undefined): URL {
  const bad = (detail: string) => new AppError('invalid_request', { detail });
  const host = req.headers.host;
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400; HTTP/1.0 clients may omit it.
  if (host === undefined && req.httpVersion !== '1.0') throw bad('HTTP/1.1 requests need a Host header');
  if (host !== undefined && !HOST.test(host)) throw bad('Malformed Host header');
  const target = req.url ?? '';
  let pathAndQuery: string;
  if (target.startsWith('/')) pathAndQuery = target;
  else if (/^https?:\/\//i.test(target)) {
    // Absolute-form (RFC 9112 §3.2.2), as proxies send it: routed by its path. GraphQL's adapter rebuilds the URL
    // from req.url and Host, so it gets the origin-form too.
    try {
      const abs = new URL(target);
      pathAndQuery = `${abs.pathname}${abs.search}`;
    } catch {
      throw bad('Malformed request target');
    }
    req.url = pathAndQuery;
  } else throw bad('The request target must be a path such as /api/v1/…');
  try {
    const origin = new URL(publicBaseUrl ?? `http://${host ?? 'localhost'}`).origin;
    // Concatenated, not resolved: resolving `//a:b/x` against a base would read it as another host.
    return new URL(`${origin}${pathAndQuery}`);
  } catch {
    throw bad(host === undefined ? 'Malformed request target' : 'Malformed request target or Host header');
  }
}
