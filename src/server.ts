import http from 'node:http';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import type { AppServices } from './context.ts';
import { requestIdFrom } from './context.ts';
import { schema } from './graphql/schema.ts';
import { attachWebSocket } from './graphql/websocket.ts';
import { createGraphQL } from './graphql/yoga.ts';
import { handleMpesaCallback, isMpesaCallbackPath } from './http/mpesa-callback.ts';
import { handleToken } from './http/oauth.ts';
import { sendJson, sendProblem } from './http/respond.ts';
import { API_PREFIX, createRestHandler } from './http/rest.ts';
import { AppError } from './lib/problem.ts';

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

  const server = http.createServer(async (req, res) => {
    const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
    res.setHeader('x-request-id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      app.log.info(
        { request_id: requestId, method: req.method, path: req.url?.split('?')[0], status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 },
        'request',
      );
    });
    // Links in responses (links.next, links.policy) use the public origin when configured, else the request's Host.
    const url = new URL(req.url ?? '/', app.config.publicBaseUrl ?? `http://${req.headers.host ?? 'localhost'}`);
    try {
      if (closing) res.setHeader('connection', 'close');
      if (url.pathname === '/healthz') return sendJson(res, ready && !closing ? 200 : 503, { status: ready && !closing ? 'ok' : 'starting' });
      if (url.pathname === '/readyz') {
        const ok = ready && !closing && (await health.ready().catch(() => false));
        return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready' });
      }
      if (url.pathname === '/graphql' || url.pathname.startsWith('/graphql/')) {
        await yoga(req, res, { req, requestId });
        return;
      }
      if (url.pathname === `${API_PREFIX}/openapi.json`) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' });
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
  });
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 60_000;
  const wss = attachWebSocket(server, yoga, app);

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
