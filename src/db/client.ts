import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient, Prisma } from '../generated/prisma/client.ts';
import { APP_ROLE, needsAppRole } from './tenancy.ts';

export { Prisma };
export type Tx = Prisma.TransactionClient;

export interface TxOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  /** Total time the transaction may take (ms). */
  timeout?: number;
  /** Time to wait for a pooled connection (ms). */
  maxWait?: number;
}

/**
 * The only way to reach tenant data. Row-level security (src/db/tenancy.ts) hides every tenant row unless the
 * transaction declared whose data it works on, so each unit of work is a transaction that first sets either
 * app.tenant_id or, for the few platform operations that must cross tenants, app.system.
 */
export class Database {
  private constructor(
    readonly prisma: PrismaClient,
    readonly pool: pg.Pool,
  ) {}

  static async connect(url: string, opts: { poolSize?: number } = {}): Promise<Database> {
    const switchRole = await Database.mustSwitchRole(url);
    // The role travels as a startup parameter, so a connection is never usable as the bypassing user, not even for
    // its first query.
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize ?? 20,
      idleTimeoutMillis: 30_000,
      ...(switchRole ? { options: `-c role=${APP_ROLE}` } : {}),
    });
    // pg re-emits a pooled connection's error (server shutdown, or PostgreSQL stopping while pool.end() is still
    // closing sockets) on the pool, and Prisma's adapter detaches its listener on $disconnect: an unhandled 'error'
    // event would kill the process. The pool drops the broken connection by itself.
    pool.on('error', () => undefined);
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    return new Database(prisma, pool);
  }

  private static async mustSwitchRole(url: string): Promise<boolean> {
    const probe = new pg.Client({ connectionString: url });
    await probe.connect();
    try {
      if (!(await needsAppRole(probe))) return false;
      const { rowCount } = await probe.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
      if (!rowCount) throw new Error(`connected as a superuser but role ${APP_ROLE} is missing: run migrations first`);
      return true;
    } finally {
      await probe.end();
    }
  }

  /** A unit of work on one tenant's data. */
  tenant<T>(tenantId: number, fn: (tx: Tx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('app.tenant_id', ${String(tenantId)}, true)`;
      return fn(tx);
    }, opts);
  }

  /** A platform operation that must cross tenants (token lookup, sweeps, seeding). Keep these few and obvious. */
  system<T>(fn: (tx: Tx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('app.system', 'on', true)`;
      return fn(tx);
    }, opts);
  }

  async close(): Promise<void> {
    await this.prisma.$disconnect();
    await this.pool.end().catch(() => undefined);
  }
}
