/**
 * Writes the committed, generated artifacts:
 * - schema/schema.graphql: the printed SDL, sorted;
 * - rest-compat/generated/operations.ts: the result and variables types and a typed document node of every REST
 *   operation (rest-compat/operations/*.graphql, with the shared fragments in operations/fragments/), by GraphQL Code
 *   Generator against that schema;
 * - schema/openapi.json: from the REST route table;
 * - sdk/generated/ and sdk/package.json's version: the TypeScript SDK's types (openapi-typescript) and keyed
 *   operations, and the package version (the document's info.version), from that document.
 * `--check` writes nothing and exits 1 when a committed file differs (CI drift check). The operations are written
 * before the route table is imported, since the table imports their documents.
 */
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typedDocumentNode from '@graphql-codegen/typed-document-node';
import * as typescript from '@graphql-codegen/typescript';
import * as typescriptOperations from '@graphql-codegen/typescript-operations';
import {
  type DocumentNode,
  Kind,
  NoUnusedFragmentsRule,
  parse,
  printSchema,
  Source,
  specifiedRules,
  validate,
} from 'graphql';
import { sortedSchema } from '../src/graphql/schema.ts';
import { sdkArtifacts } from './generate-sdk.ts';

const root = path.resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
let drift = false;

/** Compares (`--check`) or writes one artifact. */
async function emit(rel: string, content: string): Promise<void> {
  const file = path.join(root, rel);
  const current = existsSync(file) ? await readFile(file, 'utf8') : null;
  if (current === content) return;
  if (check) {
    drift = true;
    console.error(`${rel} is out of date: run \`npm run generate\` and commit the result`);
  } else {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    console.log(`wrote ${rel}`);
  }
}

const OPERATIONS = 'rest-compat/operations';

/**
 * Every operation file holds one operation named as the file; fragments/ holds fragments only, shared by name. They
 * are validated here together, so that an error names its file and line.
 */
async function operationDocuments() {
  const dir = path.join(root, OPERATIONS);
  const files = [...(await readdir(dir)), ...(await readdir(path.join(dir, 'fragments'))).map((f) => `fragments/${f}`)]
    .filter((f) => f.endsWith('.graphql'))
    .sort();
  const docs = await Promise.all(
    files.map(async (file) => {
      const location = `${OPERATIONS}/${file}`;
      const document = parse(new Source(await readFile(path.join(dir, file), 'utf8'), location));
      const defs = document.definitions;
      if (file.startsWith('fragments/')) {
        if (defs.some((d) => d.kind !== Kind.FRAGMENT_DEFINITION))
          throw new Error(`${location}: only fragments belong in operations/fragments`);
      } else if (
        defs.length !== 1 ||
        defs[0].kind !== Kind.OPERATION_DEFINITION ||
        defs[0].name?.value !== path.basename(file, '.graphql')
      ) {
        throw new Error(`${location}: one operation, named as the file (shared fragments go in operations/fragments)`);
      }
      return { location, document };
    }),
  );
  const all: DocumentNode = { kind: Kind.DOCUMENT, definitions: docs.flatMap((d) => d.document.definitions) };
  const errors = validate(
    sortedSchema,
    all,
    specifiedRules.filter((r) => r !== NoUnusedFragmentsRule),
  );
  if (errors.length)
    throw new Error(
      errors.map((e) => `${e.source?.name ?? OPERATIONS}:${e.locations?.[0]?.line ?? ''}: ${e.message}`).join('\n'),
    );
  return docs;
}

const sdl = printSchema(sortedSchema);

/**
 * Types of what the in-process execute() returns: scalars as serialised (src/graphql/scalars.ts: Date and DateTime
 * strings, Cents and Shillings JSON integers), every selected field present (null rather than absent), enums as string unions, no
 * `__typename` unless selected, and a spread fragment as its own named type (`PolicyRecordFragment`).
 */
const operationTypes = await codegen({
  schema: parse(sdl),
  documents: await operationDocuments(),
  filename: 'rest-compat/generated/operations.ts',
  config: {
    scalars: { Date: 'string', DateTime: 'string', Cents: 'number', Shillings: 'number', JSON: 'unknown' },
    strictScalars: true,
    enumsAsTypes: true,
    useTypeImports: true,
    skipTypename: true,
    avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
    inlineFragmentTypes: 'combine',
    arrayInputCoercion: false,
  },
  plugins: [{ typescript: { onlyOperationTypes: true } }, { typescriptOperations: {} }, { typedDocumentNode: {} }],
  pluginMap: { typescript, typescriptOperations, typedDocumentNode },
});

await emit('schema/schema.graphql', `${sdl}\n`);
await emit(
  'rest-compat/generated/operations.ts',
  `// Generated by scripts/generate-artifacts.ts (npm run generate) from ${OPERATIONS}/**/*.graphql: do not edit.\n${operationTypes}`,
);
const { buildOpenApi } = await import('../rest-compat/openapi.ts');
const { catalogueEntries } = await import('../src/modules/events/catalogue.ts');
const openApi = buildOpenApi(catalogueEntries());
await emit('schema/openapi.json', `${JSON.stringify(openApi, null, 2)}\n`);
for (const [rel, content] of await sdkArtifacts(openApi)) await emit(rel, content); // sdk/generated/ (generate-sdk.ts)

if (drift) process.exit(1);
if (check) console.log('generated artifacts are up to date');
