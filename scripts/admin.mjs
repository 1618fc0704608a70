// `npm run admin -- <group> <command> [options]`: the operator's CLI compiled (dist/admin.mjs, built at install by
// scripts/build.mjs with the server), rebuilt first if any source is newer, as `npm start` does: a command answers in
// well under a second instead of the ~5 s of transpiling TypeScript at every call. scripts/admin.ts is its source.
import { pathToFileURL } from 'node:url';
import { ADMIN_OUTFILE, build, isStale } from './build.mjs';

process.setSourceMapsEnabled(true);
if (isStale()) await build();
await import(pathToFileURL(ADMIN_OUTFILE).href);
