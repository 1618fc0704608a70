import type { Asset } from './assets.ts';
import { FAVICON_LINK } from '../home.ts';

/**
 * The reference page's policy: scripts only from the service itself (no inline script, no eval), styles from the
 * service plus the inline styles Scalar's components set, requests (the spec, "Test request") only to the service.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page: a mount point, the bundle and the start script (both under /docs/assets/). */
export function docsHtml(scalar: Asset, start: Asset): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Bima Gateway API reference</title>
    ${FAVICON_LINK}
  </head>
  <body>
    <noscript>
      The API reference needs JavaScript. The OpenAPI document itself is at
      <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
    </noscript>
    <div id="app"></div>
    <script src="${scalar.path}"></script>
    <script src="${start.path}"></script>
  </body>
</html>
`;
}
