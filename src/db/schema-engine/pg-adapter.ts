// The driver adapter Prisma's schema engine runs its SQL through: @prisma/adapter-pg, with the fixes it needs here.
import { randomUUID } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { ServerConn } from '../embedded.ts';

const CHAR_OID = 18;
const TEXT_OID = 25;

/**
 * Opens @prisma/adapter-pg connections for the engine, with three deviations from PrismaPg:
 * - shadow databases are created on the same server and reached with discrete connection fields (PrismaPg, given
 *   a connection string, would connect the "shadow" adapter to the main database);
 * - shadow databases are dropped only after their pool has ended, with FORCE, and any the engine did not release
 *   are dropped in close();
 * - see withFixes() for the per-connection fixes.
 */
export class PgAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  private readonly pools = new Set<pg.Pool>();
  private readonly shadowDbs = new Set<string>();

  constructor(private readonly conn: ServerConn) {}

  connect(): Promise<SqlDriverAdapter> {
    return this.open(this.conn);
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const database = `prisma_shadow_${randomUUID().replaceAll('-', '')}`;
    await this.admin(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
    this.shadowDbs.add(database);
    return this.open({ ...this.conn, database }, () => this.dropShadowDb(database));
  }

  /** Ends every pool still open (the engine never disposes its main connection) and drops leftover shadows. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pools].map((pool) => pool.end()));
    this.pools.clear();
    for (const database of this.shadowDbs) await this.dropShadowDb(database);
  }

  private async open(conn: ServerConn, afterEnd?: () => Promise<void>): Promise<SqlDriverAdapter> {
    const pool = new pg.Pool({ ...connFields(conn) });
    pool.on('connect', reportCharAsText);
    // An idle client's connection can die (a force-dropped shadow database, a restarted server); unhandled, that
    // 'error' event would crash the process.
    pool.on('error', () => {});
    this.pools.add(pool);
    const adapter = await new PrismaPg(pool).connect();
    return withFixes(adapter, async () => {
      await adapter.dispose();
      this.pools.delete(pool);
      await pool.end();
      await afterEnd?.();
    });
  }

  private async dropShadowDb(database: string): Promise<void> {
    if (!this.shadowDbs.delete(database)) return;
    await this.admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
  }

  private async admin(sql: string): Promise<void> {
    const client = new pg.Client(connFields(this.conn));
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}

function connFields(conn: ServerConn): pg.ClientConfig {
  return { host: conn.host, port: conn.port, user: conn.user, password: conn.password, database: conn.database };
}

/**
 * - executeScript: PrismaPg splits scripts on every `;`, which cuts DO blocks and function bodies apart; a
 *   parameterless query goes over the simple protocol, where Postgres itself splits the statements.
 * - dispose: replaced, so the pool is ended and the shadow database dropped in that order.
 */
function withFixes(adapter: SqlDriverAdapter, dispose: () => Promise<void>): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: async (query) => restoreCharColumns(await adapter.queryRaw(query)),
    executeRaw: (query) => adapter.executeRaw(query),
    startTransaction: async (isolationLevel) => {
      const tx = await adapter.startTransaction(isolationLevel);
      const queryRaw = tx.queryRaw.bind(tx);
      return Object.assign(tx, { queryRaw: async (query: SqlQuery) => restoreCharColumns(await queryRaw(query)) });
    },
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    executeScript: async (script) => {
      await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
    },
    dispose,
  };
}

// Postgres' internal "char" type (OID 18: pg_class.relkind, pg_constraint.contype...) is selected by the engine's
// describer, which reads it as a Rust char. PrismaPg has no mapping for the OID and rejects the whole result set, and
// no OID it does map yields ColumnType.Character. So the pg client relabels such fields as text (pg has already read
// the values as strings) and marks their names, and restoreCharColumns() turns the marked columns into Character.
const CHAR_MARK = '\u0000"char"';

function reportCharAsText(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const relabel = (result: unknown): unknown => {
    for (const r of Array.isArray(result) ? result : [result]) {
      for (const field of (r as Partial<pg.QueryResult> | undefined)?.fields ?? []) {
        if (field.dataTypeID !== CHAR_OID) continue;
        field.dataTypeID = TEXT_OID;
        field.name += CHAR_MARK;
      }
    }
    return result;
  };
  Object.assign(client, {
    query: (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        const done = callback as (err: unknown, result: unknown) => unknown;
        return query(...args.slice(0, -1), (err: unknown, result: unknown) =>
          done(err, err ? result : relabel(result)),
        );
      }
      const pending = query(...args);
      return pending instanceof Promise ? pending.then(relabel) : pending;
    },
  });
}

function restoreCharColumns(result: SqlResultSet): SqlResultSet {
  result.columnNames.forEach((name, i) => {
    if (!name.endsWith(CHAR_MARK)) return;
    result.columnNames[i] = name.slice(0, -CHAR_MARK.length);
    result.columnTypes[i] = ColumnTypeEnum.Character;
  });
  return result;
}
