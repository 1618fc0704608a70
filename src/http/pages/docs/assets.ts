import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { IDEMPOTENCY_KEY_EXAMPLE } from '../../../../rest-compat/examples/apply.ts';

/**
 * The files the reference page loads, all served by the service itself (no CDN): Scalar's self-contained browser
 * bundle from node_modules, read once and kept, and the small script that starts it. Each is served under a name
 * carrying a hash of its content, so browsers may keep it for a year: a new bundle is a new name.
 */
export interface Asset {
  /** Path under /docs/, e.g. `/docs/assets/scalar.3f1c2b9e8a4d.js`. */
  path: string;
  contentType: string;
  body: Buffer;
}

const JS = 'text/javascript; charset=utf-8';

const hashed = (name: string, body: Buffer): Asset => {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/docs/assets/${name}.${hash}.js`, contentType: JS, body };
};

/**
 * Starts Scalar on #app with the document served at /api/v1/openapi.json; nothing is fetched from elsewhere. "Test
 * request" authenticates with the OAuth 2.0 client-credentials flow (a sandbox API client's id and secret, from
 * .data/demo-credentials.json on a demo start: the token comes from POST /api/v1/oauth/token), and every write goes
 * out with a fresh Idempotency-Key: the document's example key (or none) is replaced before the request is sent, a
 * key typed in by hand is kept (to try a replay).
 */
const START = `'use strict';
var EXAMPLE_KEY = ${JSON.stringify(IDEMPOTENCY_KEY_EXAMPLE)};
function freshKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  var b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 15) | 64;
  b[8] = (b[8] & 63) | 128;
  var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}
Scalar.createApiReference('#app', {
  authentication: { preferredSecurityScheme: 'oauth2' },
  onBeforeRequest: function (ctx) {
    var r = ctx.request;
    if (r.method === 'GET' || r.method === 'HEAD') return;
    var key = r.headers.get('Idempotency-Key');
    if (!key || key === EXAMPLE_KEY) r.headers.set('Idempotency-Key', freshKey());
  },
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showOperationId: true,
  showToolbar: 'never',
  showDeveloperTools: 'never',
  defaultOpenAllTags: true,
  documentDownloadType: 'json',
  hideClientButton: false,
  metaData: { title: 'Bima Gateway API reference' },
});
`;

let loading: Promise<{ scalar: Asset; start: Asset }> | undefined;

/** The bundle and the start script, read and hashed on first use. */
export function docsAssets(): Promise<{ scalar: Asset; start: Asset }> {
  loading ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
    return { scalar: hashed('scalar', await readFile(file)), start: hashed('start', Buffer.from(START)) };
  })();
  // A failed read (package missing) is tried again on the next request rather than kept.
  loading.catch(() => (loading = undefined));
  return loading;
}
