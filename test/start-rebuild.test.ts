import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStale, OUTFILE } from '../scripts/build.mjs';
import { Child } from './helpers/service-child.ts';
import { useDatabase } from './kit.ts';

// `npm start` on a checkout edited since its last build rebuilds dist/ first (scripts/start.mjs). The build ran in
// the service's own process once, and esbuild's service process (~170 MB resident) then lived beside the service for
// as long as it ran: the bench counted it in the service's memory. The rebuild now runs in a process of its own.

/** The pids and names of a process's children (from /proc: each process's parent is field 4 of its stat line). */
function childrenOf(pid: number): { pid: number; name: string }[] {
  const out: { pid: number; name: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(')');
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    if (ppid === pid) out.push({ pid: Number(entry), name: stat.slice(stat.indexOf('(') + 1, close) });
  }
  return out;
}

describe.skipIf(process.platform !== 'linux')('npm start on a checkout newer than its build', () => {
  const database = useDatabase({ poolSize: 2 });
  let dataDir: string;
  let child: Child | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'bima-rebuild-'));
  });
  afterAll(async () => {
    await child?.kill().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('rebuilds dist/ in a process that has ended before the service serves: nothing of the build lives beside it', async () => {
    // Older than every source: stale, as after an edit (the rebuild writes the same build again, renamed into place,
    // so a test starting the build meanwhile loads the old one or the new one, never half of one).
    await utimes(OUTFILE, new Date(0), new Date(0));
    expect(isStale()).toBe(true);
    child = await new Child(database.url, dataDir).start({ LOG_LEVEL: 'info' });
    expect(isStale()).toBe(false);
    // The service says so in its own log, at info, once.
    const said = child.s
      .output()
      .split('\n')
      .filter((l) => l.includes('rebuilt before this start'))
      .map((l) => JSON.parse(l) as { level: number; build_ms: number });
    expect(said).toHaveLength(1);
    expect(said[0].level).toBe(30);
    expect(said[0].build_ms).toBeGreaterThan(0);
    // On DATABASE_URL the service starts no PostgreSQL of its own: it has no child process at all.
    expect(childrenOf(child.s.child.pid!)).toEqual([]);
    expect((await fetch(`${child.origin}/healthz`)).status).toBe(200);
  }, 120_000);
});
