import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

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

/** Starts Scalar on #app with the document served at /api/v1/openapi.json; nothing is fetched from elsewhere. */
const START = `'use strict';
Scalar.createApiReference('#app', {
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
