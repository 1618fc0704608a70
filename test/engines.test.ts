import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * The Node versions we support are exactly those CI runs (.ci/run: the machine's Node 20 and Node 24 LTS), and every
 * package the lockfile installs must say it runs on both, so `npm ci` prints no EBADENGINE warning on either.
 */
const SUPPORTED = '^20.19.0 || ^24.0.0';
/** The oldest release of each supported line: a package that admits it admits the line (ranges are `>=`-shaped). */
const OLDEST = ['20.19.0', '24.0.0'];

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('supported Node versions', () => {
  it('are stated once, in engines, as the two lines CI runs', () => {
    expect(pkg.engines.node).toBe(SUPPORTED);
    expect(semver.satisfies(process.version, SUPPORTED)).toBe(true);
    expect(readFileSync(new URL('README.md', root), 'utf8')).toContain(`\`engines\`: \`${SUPPORTED}\``);
  });

  it('are admitted by every package the lockfile installs', () => {
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || range === undefined) continue;
      for (const v of OLDEST) if (!semver.satisfies(v, range)) refused.push(`${path}@${entry.version}: node ${range}`);
    }
    expect(refused).toEqual([]);
  });
});
