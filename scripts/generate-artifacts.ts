/**
 * Writes the committed, generated artifacts: schema/schema.graphql (printed SDL, sorted) and schema/openapi.json
 * (from the REST route table). `--check` writes nothing and exits 1 when the committed files differ (CI drift check).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { sortedSchema } from '../src/graphql/schema.ts';

const root = path.resolve(import.meta.dirname, '..');
const artifacts: Record<string, string> = {
  'schema/schema.graphql': `${printSchema(sortedSchema)}\n`,
  'schema/openapi.json': `${JSON.stringify(buildOpenApi(), null, 2)}\n`,
};

const check = process.argv.includes('--check');
let drift = false;
for (const [rel, content] of Object.entries(artifacts)) {
  const file = path.join(root, rel);
  const current = existsSync(file) ? await readFile(file, 'utf8') : null;
  if (current === content) continue;
  if (check) {
    drift = true;
    console.error(`${rel} is out of date: run \`npm run generate\` and commit the result`);
  } else {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    console.log(`wrote ${rel}`);
  }
}
if (drift) process.exit(1);
if (check) console.log('generated artifacts are up to date');
