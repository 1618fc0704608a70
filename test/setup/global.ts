import path from 'node:path';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import {
  connToUrl,
  startEmbeddedPostgres,
  urlToConn,
  type EmbeddedPostgres,
  type ServerConn,
} from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';

export const TEMPLATE_DB = 'bima_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    dbServer: ServerConn;
    templateDb: string;
  }
}

let embedded: EmbeddedPostgres | undefined;

/**
 * One PostgreSQL for the run: DATABASE_URL's server when set, otherwise an embedded cluster (fsync off) in a
 * throwaway folder. The template database is migrated once; every test file clones it.
 */
export async function setup(project: TestProject): Promise<void> {
  let server: ServerConn;
  if (process.env.DATABASE_URL) {
    server = urlToConn(process.env.DATABASE_URL);
  } else {
    const dataDir = path.resolve('.data', `test-pg-${process.pid}`);
    await rm(dataDir, { recursive: true, force: true });
    embedded = await startEmbeddedPostgres({ dataDir, fast: true, database: 'postgres' });
    server = embedded.conn;
  }
  const admin = new pg.Client({ connectionString: connToUrl({ ...server, database: server.database || 'postgres' }) });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  await migrate(connToUrl({ ...server, database: TEMPLATE_DB }));
  project.provide('dbServer', server);
  project.provide('templateDb', TEMPLATE_DB);
}

export async function teardown(): Promise<void> {
  if (embedded) {
    const dir = path.resolve('.data', `test-pg-${process.pid}`);
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}.credentials.json`, { force: true });
  }
}
