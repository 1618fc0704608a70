// `npm start`: the compiled service (dist/main.mjs, built at install by scripts/build.mjs), rebuilt first if any
// source is newer than it. Source maps are on, so a stack trace names the TypeScript file and line.
import { pathToFileURL } from 'node:url';
import { build, isStale, OUTFILE } from './build.mjs';

process.setSourceMapsEnabled(true);
if (isStale()) await build();
await import(pathToFileURL(OUTFILE).href);
