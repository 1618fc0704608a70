import { type Page, requireGetOrHead, sendBody } from './page.ts';

/** The service's mark: a shield with a tick, in the dashboard's green. Served as /favicon.svg and /favicon.ico. */
export const FAVICON_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<path d="M16 2 4 6v9c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V6z" fill="#0f7b5f"/>' +
    '<path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>' +
    '</svg>',
);

/** The `<link>` the service's pages carry, so a browser asks for the mark rather than a missing /favicon.ico. */
export const FAVICON_LINK = '<link rel="icon" type="image/svg+xml" href="/favicon.svg">';

const CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What the service serves and where, relative to its origin: the landing page's list and the ready line's. */
export const PLACES = [
  {
    key: 'docs',
    path: '/docs',
    what: 'API reference: the OpenAPI document rendered, examples, problems, webhook events',
  },
  { key: 'openapi', path: '/api/v1/openapi.json', what: 'OpenAPI 3.1 document' },
  { key: 'graphql', path: '/graphql', what: 'GraphQL (GraphiQL in a browser where enabled)' },
  { key: 'dashboard', path: '/dashboard', what: 'Live operations dashboard (sign in with an API client)' },
  { key: 'metrics', path: '/metrics', what: 'Prometheus metrics (bearer METRICS_TOKEN)' },
  { key: 'health', path: '/healthz', what: 'Health: 200 once ready' },
] as const;

/** The GraphQL subscriptions' WebSocket URL (graphql-ws) of a service at `origin`. */
export const websocketUrl = (origin: string) => `${origin.replace(/^http/, 'ws')}/graphql`;

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function homeHtml(origin: string): string {
  const rows = PLACES.map((p) => `<li><a href="${p.path}">${p.path}</a> <span>${escape(p.what)}</span></li>`).join(
    '\n',
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bima Gateway</title>
${FAVICON_LINK}
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 46rem; padding: 1.5rem; color: #1c2b27; }
h1 { font-size: 1.5rem; display: flex; align-items: center; gap: .5rem; }
h1 img { width: 2rem; height: 2rem; }
ul { list-style: none; padding: 0; }
li { padding: .4rem 0; border-bottom: 1px solid #e3ebe8; overflow-wrap: anywhere; }
a { color: #0f7b5f; font-family: ui-monospace, monospace; font-weight: 600; margin-right: .5rem; }
span { color: #4a5d57; }
code { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
</style>
</head>
<body>
<h1><img src="/favicon.svg" alt="">Bima Gateway</h1>
<p>A multi-tenant API for Kenyan insurance intermediaries: price, bind, collect, certify and service covers.</p>
<ul>
${rows}
<li><code>${escape(origin)}/api/v1</code> <span>REST API base URL (the wire contract; legacy spellings accepted)</span></li>
<li><code>${escape(websocketUrl(origin))}</code> <span>GraphQL subscriptions over WebSocket (graphql-ws)</span></li>
</ul>
</body>
</html>
`;
}

/** `/`: a small page leading to everything the service serves; `/favicon.svg` and `/favicon.ico`: its mark. */
export const homePage: Page = {
  matches: (pathname) => pathname === '/' || pathname === '/favicon.ico' || pathname === '/favicon.svg',
  async handle(_app, req, res, { url }) {
    requireGetOrHead(req);
    if (url.pathname === '/') {
      return sendBody(req, res, Buffer.from(homeHtml(`${url.protocol}//${url.host}`)), {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': CSP,
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      });
    }
    return sendBody(req, res, FAVICON_SVG, {
      'content-type': 'image/svg+xml',
      'cache-control': 'public, max-age=86400',
    });
  },
};
