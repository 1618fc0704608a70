import http from 'node:http';
import { sendJson } from '../http/respond.ts';
import type { HttpServer } from '../server.ts';

/**
 * The HTTP side of a process that serves no API (PROCESS_ROLE=jobs): `GET /healthz` (200 once started, 503 while
 * starting or stopping) and `GET /readyz` (200 while the database answers) on PORT, for the orchestrator's probes;
 * every other path is 404. Nothing of the API, GraphQL or the M-Pesa callback is reachable here.
 */
export function createHealthServer(health: { ready(): Promise<boolean> }): HttpServer {
  const lifecycle = { ready: false, closing: false };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const up = lifecycle.ready && !lifecycle.closing;
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { status: 'method_not_allowed' });
    if (path === '/healthz') return sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'starting', role: 'jobs' });
    if (path === '/readyz') {
      void (up ? health.ready().catch(() => false) : Promise.resolve(false)).then((ok) =>
        sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready', role: 'jobs' }),
      );
      return;
    }
    sendJson(res, 404, { status: 'not_found', detail: 'PROCESS_ROLE=jobs serves only /healthz and /readyz' });
  });
  server.keepAliveTimeout = 5_000;
  return {
    server,
    markReady: () => {
      lifecycle.ready = true;
    },
    // Probes only: nothing in flight worth waiting for, so every connection is closed at once.
    close: () => {
      lifecycle.closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
