import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A logged fault's stack trace, its frames in the compiled build (dist/*.mjs) named by their TypeScript file, line
 * and column instead, from the build's own source map.
 *
 * `npm start` does not turn on Node's source maps (scripts/start.mjs). With them on, the first stack trace formatted
 * decoded the bundle's whole map into the heap for the life of the process (350,000 small arrays, ~40 MB that every
 * full collection then walks) and the first one came at start; under the bench's read load the service spent a
 * fifth more CPU per request and held 150 MB more (docs/performance.md). Here the map is decoded only when a fault is
 * logged, kept while faults keep coming, and dropped a minute after the last (`KEEP_MS`).
 *
 * Frames of other files (node's own, packages', a TypeScript file run by tsx) are left as they are, and so is a
 * stack when Node maps frames itself (NODE_OPTIONS=--enable-source-maps): its frames no longer name the build.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const KEEP_MS = 60_000;

/** `at fn (file:///…/dist/main.mjs:12:345)` or `at file:///…/dist/main.mjs:12:345`: the location's three parts. */
const FRAME = /((?:file:\/\/)?\/[^\s()]*\.m?js):(\d+):(\d+)(?=\)?$)/gm;

interface Loaded {
  map: SourceMap;
  dir: string;
}
const loaded = new Map<string, Loaded | null>();
let dropTimer: NodeJS.Timeout | undefined;

function mapFor(file: string): Loaded | null {
  const known = loaded.get(file);
  if (known !== undefined) return known;
  let entry: Loaded | null;
  const mapFile = `${file}.map`;
  try {
    entry = {
      map: new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload),
      dir: path.dirname(mapFile),
    };
  } catch {
    entry = null; // no map, or an unreadable or malformed one: the frames stay as they are
  }
  loaded.set(file, entry);
  return entry;
}

/**
 * `stack` with each frame that points into a compiled file of `dir` (this module's own directory by default: the
 * build it was bundled into) pointed at the TypeScript it came from. Anything it cannot map stays as it was.
 */
export function mapStack(stack: string, opts: { dir?: string } = {}): string {
  try {
    return mapped(stack, opts.dir ?? HERE);
  } catch {
    return stack; // a log line is never lost to its stack trace
  }
}

function mapped(stack: string, dir: string): string {
  let touched = false;
  const out = stack.replace(FRAME, (whole, loc: string, line: string, column: string) => {
    const file = loc.startsWith('file://') ? fileURLToPath(loc) : loc;
    if (path.dirname(file) !== dir) return whole;
    const found = mapFor(file);
    touched = true;
    if (!found) return whole;
    const e = found.map.findEntry(Number(line) - 1, Number(column) - 1) as Partial<{
      originalSource: string;
      originalLine: number;
      originalColumn: number;
    }>;
    if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) return whole;
    const source = e.originalSource.startsWith('file://')
      ? fileURLToPath(e.originalSource)
      : path.resolve(found.dir, e.originalSource);
    return `${source}:${e.originalLine + 1}:${e.originalColumn + 1}`;
  });
  if (touched) {
    clearTimeout(dropTimer);
    dropTimer = setTimeout(() => loaded.clear(), KEEP_MS).unref();
  }
  return out;
}
