// Builds the SDK package (sdk/package.json, `@bima/gateway-sdk`) into sdk/dist/: ES modules and their declarations,
// one file per source file, by the TypeScript compiler of the repository (sdk/tsconfig.build.json, which rewrites the
// source's `.ts` import specifiers to `.js`), plus the generated schema.d.ts copied beside them. Runs from the root as
// `npm run build:sdk`, and by itself before `npm pack` in sdk/ (the package's `prepack`): nothing of it is needed to
// install the package. Refuses to build when the package's version is not the OpenAPI document's (info.version; the
// generator keeps them equal: scripts/generate-sdk.ts).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(SDK, 'dist');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const fail = (message) => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const { version } = readJson(path.join(SDK, 'package.json'));
const documentVersion = readJson(path.join(SDK, '..', 'schema', 'openapi.json')).info.version;
if (version !== documentVersion) {
  fail(`sdk/package.json version ${version} is not the document's ${documentVersion}: run \`npm run generate\``);
}

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(SDK, 'tsconfig.build.json')], { stdio: 'inherit' });
mkdirSync(path.join(DIST, 'generated'), { recursive: true });
copyFileSync(path.join(SDK, 'generated', 'schema.d.ts'), path.join(DIST, 'generated', 'schema.d.ts'));

/** A relative module specifier (`from '…'`, `import('…')`, `import '…'`): the keyword, the quote, the path. */
const RELATIVE = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\2/g;
const files = readdirSync(DIST, { recursive: true }).map(String);

// The compiler rewrites `.ts` specifiers in the JavaScript only; the declarations keep them as written. A consumer's
// compiler reads a declaration's `./retry.js` as ./retry.d.ts: rewrite them the same way.
for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
  const target = path.join(DIST, file);
  const source = readFileSync(target, 'utf8');
  writeFileSync(
    target,
    source.replace(RELATIVE, (_, head, q, spec) => `${head}${q}${spec.replace(/\.ts$/, '.js')}${q}`),
  );
}

// Every relative specifier of the output must name a file that is there (a `.ts` left behind would not resolve).
for (const file of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
  const source = readFileSync(path.join(DIST, file), 'utf8');
  for (const [, , , spec] of source.matchAll(RELATIVE)) {
    const target = path.join(path.dirname(file), spec);
    const resolved = file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target;
    if (!files.includes(resolved)) {
      fail(`sdk/dist/${file} imports ${spec}, which is not in the build`);
    }
  }
}
process.stdout.write(`built sdk/dist (${files.length} files) for @bima/gateway-sdk ${version}\n`);
