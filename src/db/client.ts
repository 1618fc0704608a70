import { PrismaPg } from '@prisma/adapter-pg';
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { PrismaClient, Prisma } from '../generated/prisma/client.ts';
import { clockScope, withOrgClock } from '../lib/clock.ts';
import { KeyedGate } from '../lib/keyed-gate.ts';
import { AppError } from '../lib/problem.ts';
import { OrgClocks } from './org-clocks.ts';
import { APP_ROLE, needsAppRole } from './tenancy.ts';

export { Prisma };
export type Tx = Prisma.TransactionClient;

export interface TxOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  /**
   * The work only reads: the transaction begins READ ONLY (PostgreSQL refuses any write in it) and its COMMIT rides
   * on the connection's next BEGIN (foldIntoBegin). Not with an isolation level.
   */
  readOnly?: boolean;
  /** Total time the transaction may take (ms). */
  timeout?: number;
  /** Time to wait for a pooled connection (ms). */
  maxWait?: number;
}

/**
 * Prisma's statements as named prepared statements, so PostgreSQL parses and plans each once per connection
 * rather than on every call. PostgreSQL shares the machine with the service, and this is its biggest saving per
 * request (measured: about 1 ms of its CPU per motor quote, which sends a dozen statements; ~0.1 ms per simple
 * read). A name stands for one SQL text everywhere, as pg requires. The set is capped because each name stays prepared
 * on every connection that used it: past the cap, new texts (an unusual IN-list length, say) run unnamed as before.
 * Transaction control (BEGIN, COMMIT, savepoints) stays unnamed: nothing to plan, and pg sends it as one message.
 */
const PREPARED_MAX = 500;
const TX_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i;
const preparedNames = new Map<string, string>();
/** undefined: unnamed (pg's default). The adapter's type wants a string, but it only hands the value on to pg. */
function preparedName(q: { sql: string }): string | undefined {
  if (TX_CONTROL.test(q.sql)) return undefined;
  let name = preparedNames.get(q.sql);
  if (name === undefined) {
    if (preparedNames.size >= PREPARED_MAX) return undefined;
    name = `prisma_${preparedNames.size + 1}`;
    preparedNames.set(q.sql, name);
  }
  return name;
}

/** The tenant a transaction being begun on this async path works for, and whether it only reads (Database.tenant). */
const beginsAs = new AsyncLocalStorage<{ tenantId: number; readOnly: boolean }>();

/** The organisations whose share of the pool this async path already holds (Database.withTenantShare). */
const sharesHeld = new AsyncLocalStorage<ReadonlySet<number>>();

export interface ConnectOptions {
  poolSize?: number;
  poolWaitMs?: number;
  /**
   * Connections one organisation's transactions may hold at once, so that no organisation can take the whole pool
   * and the others keep being served: the service passes DB_TENANT_SHARE (half its pool by default). Unset: the
   * whole pool (a command-line tool, a job-only process or a test's own connection has no one else to keep served).
   */
  tenantShare?: number;
}

/** How long a read-only transaction's COMMIT may wait to ride on its connection's next BEGIN before it is sent alone. */
const OWED_COMMIT_MS = 2;
/** What pg answers a COMMIT with, as Prisma's adapter reads it (executeRaw: the row count). */
const COMMITTED = Object.freeze({ command: 'COMMIT', rowCount: 0, rows: [], fields: [] });

/**
 * Saves round trips on every pooled connection, for transactions Prisma begins for Database.tenant:
 *
 * - BEGIN carries the tenant: Prisma's own plain `BEGIN` (no parameters, so pg sends it as a simple query, which may
 *   hold several statements) goes as `BEGIN; SELECT set_config('app.tenant_id', '<id>', true)`, one message instead
 *   of two, when a tenant id (a safe integer) is waiting for it on this async path.
 * - A read-only transaction's COMMIT rides on the next BEGIN: such a transaction begins `BEGIN READ ONLY` (PostgreSQL
 *   refuses any write in it), so its COMMIT can change nothing and fail for nothing but a dead connection. Prisma's
 *   COMMIT is answered at once and owed: the connection's next statement sends it first (pg runs a connection's
 *   statements in order), folded into the same message when that statement is a BEGIN, and a connection left idle
 *   sends it alone after OWED_COMMIT_MS. A read then costs two round trips: the BEGIN (with the tenant and the last
 *   read's COMMIT) and its statement. Under a transaction-mode pooler the connection stays pinned while the
 *   transaction is open, so this holds there too.
 */
function foldIntoBegin(client: pg.PoolClient, sent: { statements: number; owedCommits: number }): void {
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  const query = (...args: unknown[]) => {
    sent.statements += 1;
    return send(...args);
  };
  /** The open transaction was begun READ ONLY here. */
  let readOnlyOpen = false;
  /** A read-only transaction ended whose COMMIT is not sent yet. */
  let commitOwed = false;
  let timer: NodeJS.Timeout | undefined;
  const settle = () => {
    commitOwed = false;
    clearTimeout(timer);
  };
  const sendOwed = (alone: boolean) => {
    settle();
    if (alone) sent.owedCommits += 1;
    // Failing only with the connection, which then fails the next statement too and leaves the pool.
    (query('COMMIT') as Promise<unknown>).catch(() => undefined);
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const q = args[0] as { text?: string; values?: unknown[] } | string | undefined;
    const text = typeof q === 'string' ? q : q?.text;
    const begin = beginsAs.getStore();
    if (begin && q && typeof q === 'object' && text === 'BEGIN' && !q.values?.length) {
      const owed = commitOwed ? 'COMMIT; ' : '';
      settle();
      readOnlyOpen = begin.readOnly;
      args[0] = {
        ...q,
        text: `${owed}BEGIN${begin.readOnly ? ' READ ONLY' : ''}; SELECT set_config('app.tenant_id', '${begin.tenantId}', true)`,
      };
      return query(...args);
    }
    if (readOnlyOpen && text === 'COMMIT' && typeof args[args.length - 1] !== 'function') {
      readOnlyOpen = false;
      commitOwed = true;
      timer = setTimeout(() => commitOwed && sendOwed(true), OWED_COMMIT_MS);
      timer.unref();
      return Promise.resolve(COMMITTED);
    }
    if (text === 'COMMIT' || text === 'ROLLBACK') readOnlyOpen = false;
    if (commitOwed) sendOwed(false);
    return query(...args);
  };
}

/** A row of app_authenticate(): the key_user is the client's actor user, else its creator; agent_* only when asked. */
export interface AuthRow {
  token_id: number;
  token_scopes: string[];
  token_expires_at: Date;
  token_revoked_at: Date | null;
  tenant_id: number;
  tenant_code: string;
  tenant_name: string;
  tenant_type: string;
  tenant_paybill: string;
  tenant_status: string;
  client_pk: number;
  client_id: string;
  client_name: string;
  client_scopes: string[];
  client_rate_limit_per_minute: number | null;
  client_revoked_at: Date | null;
  key_user_is_actor: boolean;
  key_user_id: number | null;
  key_user_name: string | null;
  key_user_role: string | null;
  key_user_agent_code: string | null;
  key_user_branch_id: number | null;
  key_user_disabled: boolean | null;
  agent_id: number | null;
  agent_name: string | null;
  agent_role: string | null;
  agent_code: string | null;
  agent_branch_id: number | null;
  agent_disabled: boolean | null;
  agent_key_hash: string | null;
}

/**
 * The only way to reach tenant data. Row-level security (src/db/tenancy.ts) hides every tenant row unless the
 * transaction declared whose data it works on, so each unit of work is a transaction that first sets either
 * app.tenant_id or, for the few platform operations that must cross tenants, app.system.
 */
export class Database {
  /** Sandbox organisations' clocks (src/db/org-clocks.ts): kept current by the app once its event bus listens. */
  readonly clocks = new OrgClocks(() =>
    this.system((tx) =>
      tx.sandboxClock.findMany({ where: { offsetMs: { gt: 0 } }, select: { tenantId: true, offsetMs: true } }),
    ),
  );

  readonly #shares: KeyedGate<number>;

  private constructor(
    readonly prisma: PrismaClient,
    readonly pool: pg.Pool,
    tenantShare: number,
    private readonly poolWaitMs: number,
    /**
     * How many messages (statements, or statements folded into one) the pool's connections have sent PostgreSQL, each
     * a round trip, and how many of them were a read's owed COMMIT sent alone by a connection left idle (after the
     * answer, off the request's path: foldIntoBegin). For measuring (test/round-trips.test.ts), never for deciding.
     */
    readonly sent: { readonly statements: number; readonly owedCommits: number } = { statements: 0, owedCommits: 0 },
  ) {
    this.#shares = new KeyedGate<number>(tenantShare);
  }

  static async connect(url: string, opts: ConnectOptions = {}): Promise<Database> {
    const switchRole = await Database.mustSwitchRole(url);
    // The role travels as a startup parameter, so a connection is never usable as the bypassing user, not even for
    // its first query.
    const poolSize = opts.poolSize ?? 20;
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      idleTimeoutMillis: 30_000,
      // A request waits this long for a connection, then is shed as 503 (lib/problem.ts overloadError), not queued
      // without bound behind a burst.
      connectionTimeoutMillis: opts.poolWaitMs ?? 0,
      ...(switchRole ? { options: `-c role=${APP_ROLE}` } : {}),
    });
    // pg re-emits a pooled connection's error (server shutdown, or PostgreSQL stopping while pool.end() is still
    // closing sockets) on the pool, and Prisma's adapter detaches its listener on $disconnect: an unhandled 'error'
    // event would kill the process. The pool drops the broken connection by itself.
    pool.on('error', () => undefined);
    const sent = { statements: 0, owedCommits: 0 };
    pool.on('connect', (client) => foldIntoBegin(client, sent));
    const prisma = new PrismaClient({
      adapter: new PrismaPg(pool, { statementNameGenerator: preparedName as (q: { sql: string }) => string }),
    });
    const share = Math.min(poolSize, Math.max(1, opts.tenantShare ?? poolSize));
    return new Database(prisma, pool, share, opts.poolWaitMs ?? 0, sent);
  }

  /** Connections one organisation may hold at once (ConnectOptions.tenantShare). */
  get tenantShare(): number {
    return this.#shares.perKey;
  }

  /**
   * Runs `fn`, which checks out one pooled connection for `tenantId`'s work, within that organisation's share of the
   * pool: over its share it waits behind its own organisation's work only, for as long as a request waits for a
   * connection (DB_POOL_WAIT_MS), then is refused 503 with Retry-After like an exhausted pool. Work nested inside
   * work already holding the organisation's share (a transaction opened inside another) takes no second place, so it
   * cannot wait on itself.
   */
  withTenantShare<T>(tenantId: number, fn: () => Promise<T>): Promise<T> {
    const held = sharesHeld.getStore();
    if (held?.has(tenantId)) return fn();
    const inside = new Set(held ?? []).add(tenantId);
    return this.#shares.run(tenantId, () => sharesHeld.run(inside, fn), this.poolWaitMs, tenantShareRefused);
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

  /**
   * A unit of work on one tenant's data: a transaction whose BEGIN also sets app.tenant_id (foldIntoBegin).
   * With an isolation level the setting is the transaction's first statement instead, through $queryRaw rather than
   * $executeRaw (Prisma 7 spends about 0.4 ms more CPU on an $executeRaw inside an interactive transaction).
   */
  tenant<T>(tenantId: number, fn: (tx: Tx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    if (!Number.isSafeInteger(tenantId)) throw new Error(`not a tenant id: ${String(tenantId)}`);
    // The work runs on the organisation's clock (lib/clock.ts): a sandbox organisation's, or the service clock. A
    // scope already pinned to this organisation (a request, or a sandbox clock's advance stepping through its days)
    // is kept.
    const offset = this.clocks.offsetFor(tenantId);
    const scope = clockScope();
    const run = () => this.withTenantShare(tenantId, () => this.#tenantTx(tenantId, fn, opts));
    if (scope?.tenantId !== tenantId && offset !== (scope?.offsetMs ?? 0)) return withOrgClock(tenantId, offset, run);
    return run();
  }

  #tenantTx<T>(tenantId: number, fn: (tx: Tx) => Promise<T>, opts: TxOptions): Promise<T> {
    // An isolation level must be set before the transaction's first query: no setting folded into BEGIN then.
    if (opts.isolationLevel) {
      if (opts.readOnly) throw new Error('a read-only unit of work takes no isolation level');
      // Not folded, even inside another unit of work whose tenant (and READ ONLY) is waiting on this async path.
      return beginsAs.exit(() =>
        this.prisma.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT set_config('app.tenant_id', ${String(tenantId)}, true)`;
          return fn(tx);
        }, opts),
      );
    }
    // The setting rides on the BEGIN (foldIntoBegin): one round trip fewer for every request that reads or
    // writes. Should it ever not apply, the transaction has no tenant and row-level security shows it nothing.
    const { readOnly = false, ...txOpts } = opts;
    return beginsAs.run({ tenantId, readOnly }, () => this.prisma.$transaction(fn, txOpts));
  }

  /**
   * The bearer token's row joined with its tenant, API client, acting user and (when `agentCode` is given) that
   * agent, or null. One statement, no transaction: app_authenticate() (migration auth_lookup) declares itself a
   * system lookup through its SET clause, which PostgreSQL undoes when the call returns, so the setting cannot leak
   * to the next statement on this pooled connection. Straight on the pool because every request pays for it and
   * going through Prisma's $queryRaw costs about four times the CPU (measured: 0.28 against 0.07 ms per lookup).
   */
  async authLookup(tokenHash: string, agentCode: string | null): Promise<AuthRow | null> {
    const { rows } = await this.pool.query<AuthRow>({
      name: 'app_authenticate',
      text: 'SELECT * FROM app_authenticate($1, $2)',
      values: [tokenHash, agentCode],
    });
    return rows[0] ?? null;
  }

  /** A platform operation that must cross tenants (the token endpoint's client lookup, sweeps, seeding). Keep these few and obvious. */
  system<T>(fn: (tx: Tx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    // Never folded into a tenant's BEGIN (nor READ ONLY), even when begun inside a tenant's unit of work.
    return beginsAs.exit(() =>
      this.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT set_config('app.system', 'on', true)`;
        return fn(tx);
      }, opts),
    );
  }

  async close(): Promise<void> {
    await this.prisma.$disconnect();
    await this.pool.end().catch(() => undefined);
  }
}

function tenantShareRefused(): AppError {
  return new AppError('service_unavailable', {
    detail: "This organisation is using its whole share of the service's database connections; retry shortly",
    headers: { 'Retry-After': '1' },
  });
}
