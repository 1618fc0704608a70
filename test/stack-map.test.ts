import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_BUNDLE } from '../scripts/build.mjs';
import { mapStack } from '../src/lib/stack-map.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * `npm start` runs the compiled build without Node's source maps (scripts/start.mjs: decoded, the map held ~40 MB of
 * the heap for good); a logged fault's stack still names the TypeScript file and line, mapped by the logger from the
 * build's own map (src/lib/stack-map.ts). Here a fixture is compiled as scripts/build.mjs compiles the service (its
 * NODE_BUNDLE options) and run by plain node, as `npm start` runs it.
 */
describe('a logged fault in the compiled build', () => {
  let dir: string;
  let fixture: string;
  let out: string;
  const THROW_LINE = 5;

  beforeAll(async () => {
    // Inside node_modules so the bundle's external packages (pino) resolve as the service's do from dist/.
    dir = mkdtempSync(path.join(ROOT, 'node_modules', '.cache-stack-map-'));
    fixture = path.join(dir, 'fixture.ts');
    writeFileSync(
      fixture,
      [
        `import { createLogger } from ${JSON.stringify(path.join(ROOT, 'src/lib/logger.ts'))};`,
        'const log = createLogger("info", "json");',
        'function fault(n: number): never {',
        '  const why = `a fault ${n}`;',
        '  throw new Error(why);',
        '}',
        'try { fault(1); } catch (err) {',
        '  log.error({ err }, "unexpected");',
        '}',
      ].join('\n'),
    );
    out = path.join(dir, 'dist', 'main.mjs');
    await build({ ...NODE_BUNDLE, entryPoints: [fixture], outfile: out, logLevel: 'silent' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the TypeScript file and line in the log line's stack, and leaves other frames as they were", () => {
    const stdout = execFileSync(process.execPath, [out], { encoding: 'utf8' });
    const line = JSON.parse(stdout.trim().split('\n')[0]) as { err: { stack: string; message: string } };
    expect(line.err.message).toBe('a fault 1');
    const frames = line.err.stack.split('\n').slice(1);
    // The throwing frame and its caller name the fixture's TypeScript, not the bundle.
    expect(frames[0]).toContain(`fault (${fixture}:${THROW_LINE}:`);
    expect(frames[1]).toContain(`${fixture}:7:`);
    expect(line.err.stack).not.toContain('main.mjs');
    // Node's own frames stay as they were.
    expect(frames.some((f) => /\(node:internal\//.test(f))).toBe(true);
  });

  it('maps only frames of the build it is told of; without a map, or outside it, a frame stays as it was', () => {
    const other = `Error: x\n    at f (file:///elsewhere/dist/main.mjs:1:10)\n    at g (/elsewhere/dist/main.mjs:1:10)`;
    expect(mapStack(other, { dir: path.dirname(out) })).toBe(other);
    const badUrl = 'Error: x\n    at f (file:///a%2Fb/main.mjs:1:10)';
    expect(mapStack(badUrl)).toBe(badUrl); // never throws: a log line is never lost to its stack trace
    const noMap = `Error: x\n    at f (${path.join(dir, 'nomap.mjs')}:1:10)`;
    expect(mapStack(noMap, { dir })).toBe(noMap);
    const inBuild = `Error: x\n    at f (file://${out}:1:1)\n    at file://${out}:1:1`;
    const mapped = mapStack(inBuild, { dir: path.dirname(out) });
    expect(mapped).not.toContain('main.mjs');
    expect(mapped.split('\n')[1]).toMatch(/^ {4}at f \(\/.*\.ts:\d+:\d+\)$/);
    expect(mapped.split('\n')[2]).toMatch(/^ {4}at \/.*\.ts:\d+:\d+$/);
  });
});
