// `npm start`: the compiled service (dist/main.mjs, built at install by scripts/build.mjs), rebuilt first if any
// source is newer than it. Node's own source maps stay off: with them on, the first stack trace formatted (one came at
// start) decoded the whole bundle's map into the heap for good, ~40 MB of small arrays that every full collection
// walks (docs/performance.md). A fault's logged stack trace still names the TypeScript file and line: the logger maps
// it (src/lib/stack-map.ts). NODE_OPTIONS=--enable-source-maps turns Node's on for every trace, at that price.
import { pathToFileURL } from 'node:url';
import { build, isStale, OUTFILE } from './build.mjs';

if (isStale()) await build();
await import(pathToFileURL(OUTFILE).href);
