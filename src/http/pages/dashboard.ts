import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../lib/problem.ts';
import { type Asset, builtAsset, SHELL } from './dashboard/assets.ts';
import { type Page, requireGetOrHead } from './page.ts';

/**
 * The page may load its own files and talk to this origin (HTTP and WebSocket: CSP 3's 'self' covers ws: and wss:
 * of the same host) and nothing else: no CDN, no inline script, no framing.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function send(req: IncomingMessage, res: ServerResponse, a: Asset, headers: Record<string, string> = {}): void {
  const fresh = req.headers['if-none-match'] === a.etag;
  res.writeHead(fresh ? 304 : 200, {
    ...headers,
    'content-type': a.type,
    etag: a.etag,
    'cache-control': 'no-cache',
    ...(fresh ? {} : { 'content-length': String(a.body.length) }),
  });
  res.end(fresh || req.method === 'HEAD' ? undefined : a.body);
}

/**
 * /dashboard (issue 17): the live operations dashboard. The server serves a shell and the browser bundle built by
 * scripts/build.mjs from dashboard/ (Preact, uPlot, graphql-ws); the page signs in with an API client of the
 * organisation and then uses the public API only (GraphQL over HTTP and graphql-ws), so what it shows is what that
 * key may see.
 */
export const dashboardPage: Page = {
  matches: (pathname) => pathname === '/dashboard' || pathname.startsWith('/dashboard/'),
  handle: async (_app, req, res, { url }) => {
    requireGetOrHead(req);
    const name = url.pathname.slice('/dashboard'.length).replace(/^\//, '');
    if (name === '') return send(req, res, SHELL, { 'content-security-policy': CSP, 'referrer-policy': 'no-referrer' });
    const a = builtAsset(name);
    if (a) return send(req, res, a);
    if (name === 'app.js' || name === 'app.css')
      throw new AppError('service_unavailable', { detail: 'The dashboard is not built: run npm run build' });
    throw new AppError('not_found', { detail: `No such path: ${url.pathname}` });
  },
};
