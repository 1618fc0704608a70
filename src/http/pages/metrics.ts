import type { IncomingMessage } from 'node:http';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { AppError } from '../../lib/problem.ts';
import { type Page, requireGetOrHead } from './page.ts';

/**
 * GET /metrics: the Prometheus text exposition of this process (src/http/pages/metrics/registry.ts). Off (404, as
 * for any unknown path) unless METRICS_TOKEN is set, in every environment; with it, only `Authorization: Bearer
 * <METRICS_TOKEN>` is answered, the token compared in constant time.
 */
export const metricsPage: Page = {
  matches: (pathname) => pathname === '/metrics' || pathname.startsWith('/metrics/'),
  async handle(app, req, res, { url }) {
    const token = app.config.metricsToken;
    if (!token || url.pathname !== '/metrics') {
      throw new AppError('not_found', { detail: `No such path: ${url.pathname}` });
    }
    if (!bearerMatches(req, token)) {
      throw new AppError('unauthenticated', {
        detail: 'Send Authorization: Bearer <METRICS_TOKEN>',
        headers: { 'www-authenticate': 'Bearer realm="metrics"' },
      });
    }
    requireGetOrHead(req);
    const { contentType, text } = await app.metrics.scrape();
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : text);
  },
};

function bearerMatches(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  return m !== null && constantTimeEqual(m[1], token);
}
