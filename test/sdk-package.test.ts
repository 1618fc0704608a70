import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTANT_RAIL, useKit } from './kit.ts';

// The SDK as an integrator gets it: sdk/ built (sdk/build.mjs) and packed (npm pack), the tarball installed into a
// scratch project of its own (type module, nothing of this repository on its module path), the example copied there
// importing `@bima/gateway-sdk`, typechecked strictly with no casts, and run by plain Node against the kit's server.
// Broken `exports`, declarations or `.js` specifiers fail here: the typecheck, or Node's import.
const t = useKit({ ...INSTANT_RAIL, tokenRateLimitPerMinute: 1_000 }, { jobs: true });
const o = t.useOrg({ fast: true, tokens: ['staff'] });

const ROOT = path.resolve(import.meta.dirname, '..');
const SDK = path.join(ROOT, 'sdk');
const EXAMPLE = path.join(SDK, 'examples', 'quote-bind-pay-claim.ts');
const run = promisify(execFile);
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

/** Casts and `any` in a TypeScript source (`as`, `<T>x`, `x!`, the `any` keyword), as `line: text`. */
function castsIn(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isAsExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isNonNullExpression(node) ||
      node.kind === ts.SyntaxKind.AnyKeyword
    ) {
      const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${line}: ${node.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Builds and packs sdk/, and installs the tarball into a scratch project of its own. */
async function buildPackInstall() {
  const work = await mkdtemp(path.join(tmpdir(), 'sdk-package-'));
  const scratch = path.join(work, 'scratch');
  await run(process.execPath, [path.join(SDK, 'build.mjs')], { cwd: SDK });
  // --ignore-scripts: the build just ran (the package's prepack would run it again).
  const pack = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: SDK });
  const [packed] = JSON.parse(pack.stdout) as { filename: string; version: string; files: { path: string }[] }[];
  await mkdir(scratch);
  await writeFile(
    path.join(scratch, 'package.json'),
    JSON.stringify({ name: 'sdk-scratch', version: '0.0.0', private: true, type: 'module' }),
  );
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', path.join(work, packed.filename)],
    { cwd: scratch, timeout: 90_000 },
  );
  return { work, scratch, packed };
}

// Started at once, beside the kit's own start-up (its hooks run first); awaited, and any failure reported, below.
const packing = buildPackInstall();
packing.catch(() => {});
let work: string | undefined;
let scratch: string;
let packed: Awaited<typeof packing>['packed'];

beforeAll(async () => {
  ({ work, scratch, packed } = await packing);
}, 120_000);

afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

describe('the packed package', () => {
  it('holds the build and its README only, at the document’s version, pinning the root’s openapi-fetch', async () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md']));
    expect(files).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/generated/schema.d.ts']),
    );
    expect(files.filter((f) => !['package.json', 'README.md'].includes(f) && !f.startsWith('dist/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);

    const doc = await readJson(path.join(ROOT, 'schema', 'openapi.json'));
    expect(packed.version).toBe((doc.info as { version: string }).version);
    const root = await readJson(path.join(ROOT, 'package.json'));
    const installed = await readJson(path.join(scratch, 'node_modules', '@bima', 'gateway-sdk', 'package.json'));
    expect(installed.dependencies).toEqual({
      'openapi-fetch': (root.dependencies as Record<string, string>)['openapi-fetch'],
    });
    expect(installed.devDependencies).toBeUndefined();
  });

  it('runs the quote → bind → pay → claim example, typechecked strictly without casts, with plain Node', async () => {
    const source = await readFile(EXAMPLE, 'utf8');
    expect(castsIn(EXAMPLE, source)).toEqual([]);
    const imports = source.match(/from '\.\.\/index\.ts'/g) ?? [];
    expect(imports).toHaveLength(1);
    await writeFile(path.join(scratch, 'example.ts'), source.replace("from '../index.ts'", "from '@bima/gateway-sdk'"));
    // The types are the document's, not `any`: these calls must be refused.
    await writeFile(
      path.join(scratch, 'typed.ts'),
      [
        "import { createBimaClient } from '@bima/gateway-sdk';",
        "const bima = createBimaClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'c', clientSecret: 's' });",
        '// @ts-expect-error the document has no such path',
        "void bima.GET('/no-such-path');",
        '// @ts-expect-error a motor quote needs the year of manufacture',
        "void bima.POST('/motor/quote', { body: { class: 'Motor', scope: 'TPO' } });",
        '',
      ].join('\n'),
    );
    // A Node project's settings: no DOM, Node's types (taken from this repository: nothing else to install).
    await writeFile(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['example.ts', 'typed.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', scratch, '--noEmit', '--strict'], {
      cwd: scratch,
      timeout: 90_000,
    }).catch((e: { stdout: string; stderr: string }) => e);
    expect(checked.stdout + checked.stderr).toBe('');

    // Types stripped (esbuild, as a compiler would), then plain Node: the package's `exports` and `.js` specifiers.
    const js = await transform(await readFile(path.join(scratch, 'example.ts'), 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
    });
    await writeFile(path.join(scratch, 'example.mjs'), js.code);
    const credentials = path.join(scratch, 'demo-credentials.json');
    const staff = { client_id: o.clients.staff.clientId, client_secret: o.clients.staff.secret };
    await writeFile(
      credentials,
      JSON.stringify({ base_url: t.base, tenants: { brokerage: { api_clients: { staff } } } }),
    );
    const out = await run(process.execPath, ['example.mjs', credentials], { cwd: scratch, timeout: 90_000 });
    const activated = /policy\.activated: (\S+) is active/.exec(out.stdout);
    expect(activated, out.stdout + out.stderr).not.toBeNull();
    const claimed = /claim\.registered: (CLM-\d{4}-\d{6}) \(registered\) on (\S+),/.exec(out.stdout);
    expect(claimed, out.stdout + out.stderr).not.toBeNull();
    expect(claimed![2]).toBe(activated![1]);
    const claim = await t.db.tenant(o.id, (tx) =>
      tx.claim.findFirstOrThrow({ where: { claimNo: claimed![1] }, include: { policy: true } }),
    );
    expect(claim.status).toBe('registered');
    expect(claim.policy.policyNo).toBe(activated![1]);
    expect(claim.policy.status).toBe('active');
  }, 120_000);
});
