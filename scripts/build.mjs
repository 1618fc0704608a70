// Compiles the service to one ES module, dist/main.mjs (esbuild: TypeScript stripped, our modules bundled, packages
// left in node_modules), so `npm start` runs JavaScript instead of transpiling TypeScript on every start: measured
// here, loading the service went from ~3 s and ~290 MB resident under tsx to ~0.2 s and ~170 MB (README
// "Start-up and memory"). Runs at install (postinstall) and again from scripts/start.mjs whenever a source file is
// newer than the build, so an edited checkout never starts stale code.
//
//   node scripts/build.mjs            build dist/main.mjs
//   node scripts/build.mjs --if-stale build only when a source is newer than dist/main.mjs
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUTFILE = path.join(ROOT, 'dist', 'main.mjs');
/** The admin CLI (scripts/admin.ts), compiled the same way: `npm run admin` answers in well under a second. */
export const ADMIN_OUTFILE = path.join(ROOT, 'dist', 'admin.mjs');
/** What the build reads: a change to any of these makes dist/main.mjs stale. */
const INPUTS = [
  'src',
  'rest-compat',
  'jobs',
  'dashboard',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts/build.mjs',
];
/** The /dashboard page's browser bundle (dashboard/, Preact and uPlot): app.js and app.css, served by src/http/pages/dashboard.ts. */
export const DASHBOARD_DIR = path.join(ROOT, 'dist', 'dashboard');

function newestMtime(p) {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const m = statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs;
    if (m > newest) newest = m;
  }
  return newest;
}

export function isStale() {
  if (!existsSync(OUTFILE) || !existsSync(ADMIN_OUTFILE)) return true;
  const built = Math.min(statSync(OUTFILE).mtimeMs, statSync(ADMIN_OUTFILE).mtimeMs);
  return INPUTS.some((i) => newestMtime(path.join(ROOT, i)) > built);
}

/** How the service and the admin CLI are compiled (test/stack-map.test.ts compiles its fixture the same way). */
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  // A logged stack trace is named by TypeScript file and line from the mappings alone (src/lib/stack-map.ts); with
  // Node's own source maps on (NODE_OPTIONS=--enable-source-maps), the sources' text would sit in the heap.
  sourcesContent: false,
  // No comments or indentation in the build: its text is held in the heap for the life of the process (V8 keeps a
  // module's source), and one non-Latin-1 character in a comment made all of it two bytes a character (7.5 MB, now
  // 3.4 MB of ASCII). Names are kept; the map points each position back into the TypeScript.
  minifyWhitespace: true,
  logLevel: 'warning',
};

export async function build() {
  const { build: esbuild } = await import('esbuild');
  // Written aside and renamed: a process starting meanwhile sees the old build or the new one, never half of one.
  const dist = path.dirname(OUTFILE);
  const tmpDir = mkdtempSync(path.join(ROOT, '.build-'));
  const tmp = path.join(tmpDir, path.basename(OUTFILE));
  const tmpAdmin = path.join(tmpDir, path.basename(ADMIN_OUTFILE));
  await esbuild({ ...NODE_BUNDLE, entryPoints: [path.join(ROOT, 'src', 'main.ts')], outfile: tmp });
  await esbuild({ ...NODE_BUNDLE, entryPoints: [path.join(ROOT, 'scripts', 'admin.ts')], outfile: tmpAdmin });
  await esbuild({
    entryPoints: { app: path.join(ROOT, 'dashboard', 'main.tsx') },
    outdir: path.join(tmpDir, 'dashboard'),
    tsconfig: path.join(ROOT, 'dashboard', 'tsconfig.json'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
  });
  mkdirSync(DASHBOARD_DIR, { recursive: true });
  for (const f of ['app.js', 'app.css']) renameSync(path.join(tmpDir, 'dashboard', f), path.join(DASHBOARD_DIR, f));
  mkdirSync(dist, { recursive: true });
  renameSync(`${tmpAdmin}.map`, `${ADMIN_OUTFILE}.map`);
  renameSync(tmpAdmin, ADMIN_OUTFILE);
  renameSync(`${tmp}.map`, `${OUTFILE}.map`);
  renameSync(tmp, OUTFILE);
  rmSync(tmpDir, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || isStale()) await build();
}
