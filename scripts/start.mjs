// `npm start`: the compiled service (dist/main.mjs, built at install by scripts/build.mjs), rebuilt first if any
// source is newer than it. Node's own source maps stay off: with them on, the first stack trace formatted (one came at
// start) decoded the whole bundle's map into the heap for good, ~40 MB of small arrays that every full collection
// walks (docs/performance.md). A fault's logged stack trace still names the TypeScript file and line: the logger maps
// it (src/lib/stack-map.ts). NODE_OPTIONS=--enable-source-maps turns Node's on for every trace, at that price.
//
// The rebuild runs in a process of its own that has ended before the service loads: built here, esbuild's service
// process (~170 MB resident) lived beside the service for as long as it ran, and esbuild's code sat in its heap.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isStale, OUTFILE } from './build.mjs';

if (isStale()) {
  const began = Date.now();
  const built = spawnSync(process.execPath, [path.join(path.dirname(fileURLToPath(import.meta.url)), 'build.mjs')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) {
    process.stderr.write(
      `scripts/build.mjs failed (${built.error ?? built.signal ?? `exit ${built.status}`}): not starting\n`,
    );
    process.exit(built.status || 1);
  }
  // Said by the service, in its log's format and level (src/main.ts): a start slower than usual has its reason.
  process.env.BIMA_REBUILT_MS = String(Date.now() - began);
}
await import(pathToFileURL(OUTFILE).href);
