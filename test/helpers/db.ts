import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { connToUrl, type ServerConn } from '../../src/db/embedded.ts';

export function dbServer(): ServerConn {
  return inject('dbServer');
}

/** A fresh database cloned from the migrated template (fast: a file copy on the server). */
export async function createTestDatabase(prefix = 't'): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const server = dbServer();
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: connToUrl({ ...server, database: server.database || 'postgres' }) });
  await admin.connect();
  try {
    // CREATE DATABASE … TEMPLATE needs the template to have no other sessions; retry briefly if a clone is in flight.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDb')}`);
        break;
      } catch (e) {
        if (attempt > 50 || !String((e as Error).message).includes('being accessed by other users')) throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: connToUrl({ ...server, database: name }),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: connToUrl({ ...server, database: server.database || 'postgres' }) });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
    },
  };
}
