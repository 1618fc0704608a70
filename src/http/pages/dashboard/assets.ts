import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAVICON_LINK } from '../home.ts';

/** One file of the page, as sent: bytes, type and a strong validator. */
export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** The checkout's root: the first directory up from this module (src/… or the compiled dist/main.mjs) with package.json. */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Where scripts/build.mjs writes the browser bundle (DASHBOARD_DIR there). */
const BUILT = path.join(projectRoot(), 'dist', 'dashboard');

const TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const cache = new Map<string, Asset>();

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/**
 * A built file of the dashboard (app.js, app.css), read once and kept; null when the name is not one of them or the
 * bundle has not been built (a missing file is not remembered, so a build made later is found).
 */
export function builtAsset(name: string): Asset | null {
  const type = TYPES[name];
  if (!type) return null;
  const hit = cache.get(name);
  if (hit) return hit;
  const file = path.join(BUILT, name);
  if (!existsSync(file)) return null;
  const a = asset(readFileSync(file), type);
  cache.set(name, a);
  return a;
}

/** The page itself: a shell that loads the bundle; everything else is drawn by dashboard/main.tsx. */
export const SHELL = asset(
  Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bima Gateway · operations</title>
${FAVICON_LINK}
<link rel="stylesheet" href="/dashboard/app.css">
<script defer src="/dashboard/app.js"></script>
</head>
<body><div id="app"></div><noscript>The dashboard needs JavaScript.</noscript></body>
</html>
`),
  'text/html; charset=utf-8',
);
