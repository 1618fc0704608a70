import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/db.ts';
import { type Spawned, spawnServer, stopWith, waitHealthy } from './helpers/spawn.ts';

// The README's shell blocks, run as written against a started service (issue 29), so the tour cannot rot. Every
// ```sh block runs, in order, in one bash session, except one preceded by `<!-- not run by test/readme.test.ts: … -->`
// (installing and starting the service, which this test does itself, and the test command). The service is the real
// entrypoint with the demo seed, as `npm start` gives it; the shell's working directory stands for the checkout
// (`.data/demo-credentials.json` there), and only two things differ from a reader's terminal, both said here:
// - `localhost:3000` becomes the port the service chose (PORT=0);
// - `curl` fails on an HTTP error (`--fail-with-body`) and the shell stops at the first failing command, so a call
//   that answers 4xx fails the test with the answer, where a reader would see it printed.
// `npm` runs in the checkout with the service's DATABASE_URL, as the reader's `npm run admin` does.

const ROOT = path.resolve(import.meta.dirname, '..');
const execFileP = promisify(execFile);

interface Block {
  line: number;
  code: string;
}

/** The README's ```sh blocks the test runs, with the line each starts on. */
function runnableShellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```sh') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    if (end < 0) throw new Error(`README line ${i + 1}: a sh block that never closes`);
    const before =
      lines
        .slice(0, i)
        .reverse()
        .find((l) => l.trim() !== '') ?? '';
    if (!/^<!-- not run by test\/readme\.test\.ts: .+ -->$/.test(before.trim())) {
      blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    }
    i = end;
  }
  return blocks;
}

let dir: string;
let s: Spawned | undefined;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

beforeAll(async () => {
  await mkdir(path.join(ROOT, '.data'), { recursive: true });
  dir = await mkdtemp(path.join(ROOT, '.data', 'readme-test-'));
  await chmod(dir, 0o755);
  database = await createTestDatabase();
  s = spawnServer({ PORT: '0', DATA_DIR: path.join(dir, '.data'), DATABASE_URL: database.url, LOG_LEVEL: 'info' });
  await waitHealthy(s, 90_000);
}, 120_000);

afterAll(async () => {
  if (s && !s.hasExited()) await stopWith(s, 'SIGTERM', 30_000);
  await database?.drop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('the README', () => {
  it('says which of its shell blocks a reader runs, and this test runs every one of them', () => {
    const markdown = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const blocks = runnableShellBlocks(markdown);
    const all = markdown.split('\n').filter((l) => l.trim() === '```sh').length;
    // Try it, the tour, the sandbox clock: the blocks a reader pastes; only install/start, the test command and
    // webhooks listen with trigger (listen runs until Ctrl-C; test/admin-trigger.test.ts runs the pair) are not.
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(all - blocks.length).toBeLessThanOrEqual(3);
    for (const b of blocks) expect(b.code, `README line ${b.line}`).not.toMatch(/uuidgen|<[a-z_]+>/);
  });

  it('runs its shell blocks as written: token, quote, bind, STK push, an active policy with its certificate, the sandbox clock', async () => {
    const blocks = runnableShellBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    const host = new URL(s!.origin).host;
    const shim = path.join(dir, 'bin');
    await mkdir(shim, { recursive: true });
    const npm = (await execFileP('sh', ['-c', 'command -v npm'])).stdout.trim();
    await writeFile(path.join(shim, 'npm'), `#!/bin/sh\ncd '${ROOT}' && exec '${npm}' "$@"\n`, { mode: 0o755 });
    const script = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body "$@"; }',
      ...blocks.map((b) => `echo '### README line ${b.line}'\n${b.code.replaceAll('localhost:3000', host)}`),
    ].join('\n');
    let out: string;
    try {
      ({ stdout: out } = await execFileP('bash', ['-c', script], {
        cwd: dir,
        timeout: 240_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          PATH: `${shim}:${process.env.PATH}`,
          HOME: process.env.HOME ?? '/root',
          DATABASE_URL: database!.url,
          DATA_DIR: path.join(dir, '.data'),
          LOG_LEVEL: 'warn',
        },
      }));
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; code?: number };
      throw new Error(`the README's shell blocks failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`, {
        cause: e,
      });
    }
    expect(existsSync(path.join(dir, '.data', 'demo-credentials.json'))).toBe(true);
    // Try it: who the key is, and the GraphQL twin.
    expect(out).toContain('Savannah Insurance Brokers');
    // The tour: the cheapest option named, the policy bound then active, its certificate issued.
    expect(out).toMatch(/^MTR-\d{4}-\d{6} pending_payment: KES [\d.]+ due by \d{4}-\d{2}-\d{2}$/m);
    expect(out).toMatch(/^MTR-\d{4}-\d{6}: active$/m);
    expect(out).toMatch(/"certificate_no"|"number"/);
    // The sandbox clock: advanced by the API, then by the CLI.
    expect(out).toMatch(/"status":"advancing"/);
  }, 300_000);
});
