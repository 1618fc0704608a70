import { PrismaPg } from '@prisma/adapter-pg';
import type { Duplex } from 'node:stream';
import pg from 'pg';
import { PrismaClient, Prisma } from '../generated/prisma/client.ts';
import { AsyncSlot } from '../lib/async-slot.ts';
import { clockScope, withOrgClock } from '../lib/clock.ts';
import { KeyedGate } from '../lib/keyed-gate.ts';
import { AppError } from '../lib/problem.ts';
import { OrgClocks } from './org-clocks.ts';
import { ReadUnit, readClient, routeReadUnits } from './read-unit.ts';
import {
  committingWriter,
  isConnectionFailure,
  lsnValue,
  markWrote,
  MemoryWriteMarks,
  type ReplicaHandle,
  ReplicaSet,
  type ReplicaState,
  replicaReader,
  type WriteMarks,
} from './replicas.ts';
import { APP_ROLE, needsAppRole, SYSTEM_ROLE } from './tenancy.ts';

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

const noop = () => undefined;

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

/** Each ORM client as a read unit hands it to its unit of work (read-unit.ts readClient). */
const readClients = new WeakMap<PrismaClient, Tx>();

/** The tenant a transaction being begun on this async path works for, and whether it only reads (Database.tenant). */
const beginsAs = new AsyncSlot<{ tenantId: number; readOnly: boolean }>();

/** The organisations whose share of the pool this async path already holds (Database.withTenantShare). */
const sharesHeld = new AsyncSlot<ReadonlySet<number>>();

export interface ConnectOptions {
  poolSize?: number;
  poolWaitMs?: number;
  /**
   * Connections one organisation's transactions may hold at once, so that no organisation can take the whole pool
   * and the others keep being served: the service passes DB_TENANT_SHARE (half its pool by default). Unset: the
   * whole pool (a command-line tool, a job-only process or a test's own connection has no one else to keep served).
   */
  tenantShare?: number;
  /**
   * `url` goes through a pooler in transaction mode (PgBouncer): consecutive transactions of one client connection
   * may run on different server connections, so no named prepared statements (PgBouncer 1.18 does not track them),
   * and the login role must itself be bound by row-level security (a pooler takes no `options` startup parameter to
   * switch roles with). Session needs go to directUrl.
   */
  pooled?: boolean;
  /** A direct connection to the primary for what needs a session (sessionClient). Default: url. */
  directUrl?: string;
  /** Streaming read replicas (src/db/replicas.ts). */
  replicas?: ReplicaOptions;
  /**
   * Read-only request transactions (Database.tenant with readOnly) run their prepared statements on PostgreSQL's
   * generic plans (`plan_cache_mode = force_generic_plan`, set on their BEGIN: no extra round trip) instead of
   * planning each call afresh for its values. A page of policies is one 16 KB statement whose planning took half
   * of PostgreSQL's time for it (docs/performance.md "Generic plans for reads"). Writes keep PostgreSQL's own choice.
   */
  genericReadPlans?: boolean;
}

export interface ReplicaOptions {
  urls: string[];
  poolSize: number;
  maxLagMs: number;
  waitMs: number;
  checkMs?: number;
  /** Where writers' commit positions are kept (RedisWriteMarks across processes); default: this process. */
  marks?: WriteMarks;
  onChange?: (state: ReplicaState) => void;
}

/** How long a read-only transaction's COMMIT may wait to ride on its connection's next BEGIN before it is sent alone. */
const OWED_COMMIT_MS = 2;
/** What pg answers a COMMIT with, as Prisma's adapter reads it (executeRaw: the row count). */
const COMMITTED = Object.freeze({ command: 'COMMIT', rowCount: 0, rows: [], fields: [] });
/** What pg answers a BEGIN with: answered at once for a BEGIN owed to the transaction's first statement. */
const BEGUN = Object.freeze({ command: 'BEGIN', rowCount: 0, rows: [], fields: [] });

/**
 * What a pool's connections also report (foldIntoBegin). With replicas, a write's COMMIT for a request's writer also
 * reads the primary's WAL position after the commit, in the same message (`COMMIT; SELECT pg_current_wal_lsn()`), and
 * hands it to `committed` before Prisma hears that the transaction committed: the writer's mark is set before the
 * answer leaves (src/db/replicas.ts).
 */
interface CommitHooks {
  committed?: (writer: string, lsn: bigint) => Promise<void>;
  /** A statement failed with its connection (counts a replica's failures). */
  failed?: (err: unknown) => void;
}

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
 *   sends it alone after OWED_COMMIT_MS. Under a transaction-mode pooler the connection stays pinned while the
 *   transaction is open, so this holds there too.
 * - A read-only transaction's BEGIN rides with its first statement, on a connection in pg's pipeline mode (the pools
 *   Database opens): the BEGIN (with the tenant and the last read's COMMIT) is answered at once and owed, and the
 *   first statement goes with it in one write, without waiting for the BEGIN's answer (pipelinedWithBegin). A read
 *   then costs one round trip. The statement answers the BEGIN's failure when the BEGIN failed (it then ran outside
 *   any transaction, without the tenant: row-level security showed it nothing, and its answer is not used). A
 *   write's BEGIN is sent as it comes: a statement of a write must never run outside its transaction.
 * - With replicas, a write's COMMIT reports the primary's WAL position after it (CommitHooks.committed), and a
 *   replica's connections report connection-level failures (CommitHooks.failed).
 */
function foldIntoBegin(
  client: pg.PoolClient,
  sent: { statements: number; owedCommits: number },
  hooks: CommitHooks = {},
  genericReadPlans = false,
): void {
  const readPlans = genericReadPlans ? ", set_config('plan_cache_mode', 'force_generic_plan', true)" : '';
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  /**
   * Statements go to pg one at a time: each is handed on once the one before it has been answered. pg 8 queues a
   * statement sent while the connection is busy and warns that pg 9 will not; a transaction may be asked for two
   * things at once (a `Promise.all` inside `ctx.tx`, sibling GraphQL fields resolved on an idempotent write's one
   * transaction, an owed COMMIT before the next statement). pg sends a connection's statements in order and waits for
   * each answer anyway, so this costs no round trip. pg-pool's own `pool.query` (the token lookup) hands its statement
   * over with a callback: it waits its turn too, and the turn passes when the callback is called.
   */
  let tail: Promise<unknown> = Promise.resolve();
  const query = (...args: unknown[]) => {
    sent.statements += 1;
    const last = args[args.length - 1];
    // A submittable (a cursor, a stream) is left to pg's own queue: none is used on these pools.
    if (typeof (args[0] as { submit?: unknown } | undefined)?.submit === 'function') return send(...args);
    if (typeof last === 'function') {
      let passTurn: () => void = noop;
      const turn = new Promise<void>((resolve) => (passTurn = resolve));
      const answered = (...answer: unknown[]) => {
        passTurn();
        (last as (...a: unknown[]) => void)(...answer);
      };
      void tail.then(() => {
        try {
          send(...args.slice(0, -1), answered);
        } catch (err) {
          answered(err);
        }
      });
      tail = turn;
      return undefined;
    }
    const result = tail.then(() => send(...args) as Promise<unknown>);
    tail = result.then(noop, noop);
    return result;
  };
  /** The open transaction was begun READ ONLY here. */
  let readOnlyOpen = false;
  /**
   * A read-only BEGIN answered but not sent yet (its text): sent with whatever the connection is asked next, the
   * transaction's first statement (pipelinedWithBegin). Only on a pipelined connection.
   */
  let beginOwed: string | null = null;
  const pipelined = (client as unknown as { pipeline?: boolean }).pipeline === true;
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
  const oweCommit = () => {
    commitOwed = true;
    timer = setTimeout(() => commitOwed && sendOwed(true), OWED_COMMIT_MS);
    timer.unref();
  };
  /**
   * The owed BEGIN alone, before a statement that cannot go with it (one given a callback: pg-pool's own pool.query,
   * which never runs inside a transaction, so this is for safety, not for a path taken). A BEGIN failing here fails
   * the transaction's later statements on their own (no tenant, or the connection gone).
   */
  const sendOwedBegin = () => {
    const text = beginOwed!;
    beginOwed = null;
    (query(text) as Promise<unknown>).catch(() => undefined);
  };
  /**
   * The owed BEGIN and the statement `args` in one write, the statement sent without waiting for the BEGIN's answer
   * (pg's pipeline mode: each has its own Sync, answered in order). The statement's promise: its answer once the
   * BEGIN succeeded, else the BEGIN's error. One message on the count.
   */
  const pipelinedWithBegin = (args: unknown[]) => {
    const text = beginOwed!;
    beginOwed = null;
    sent.statements += 1;
    const result = tail.then(() => {
      const stream = (client as unknown as { connection: { stream: Duplex } }).connection.stream;
      stream.cork();
      let begun: Promise<unknown>;
      let answered: Promise<unknown>;
      try {
        begun = send(text) as Promise<unknown>;
        answered = send(...args) as Promise<unknown>;
      } finally {
        stream.uncork();
      }
      return begun.then(
        () => answered,
        (err: unknown) => {
          answered.catch(noop);
          throw err;
        },
      );
    });
    tail = result.then(noop, noop);
    return result;
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const q = args[0] as { text?: string; values?: unknown[] } | string | undefined;
    const text = typeof q === 'string' ? q : q?.text;
    const begin = beginsAs.getStore();
    const callback = typeof args[args.length - 1] === 'function';
    if (begin && q && typeof q === 'object' && text === 'BEGIN' && !q.values?.length) {
      if (beginOwed) sendOwedBegin();
      const owed = commitOwed ? 'COMMIT; ' : '';
      settle();
      readOnlyOpen = begin.readOnly;
      const begun = begin.readOnly
        ? `${owed}BEGIN READ ONLY; SELECT set_config('app.tenant_id', '${begin.tenantId}', true)${readPlans}`
        : `${owed}BEGIN; SELECT set_config('app.tenant_id', '${begin.tenantId}', true)`;
      if (begin.readOnly && pipelined && !callback) {
        beginOwed = begun;
        return Promise.resolve(BEGUN);
      }
      args[0] = { ...q, text: begun };
      return query(...args);
    }
    if (beginOwed) {
      if (text === 'COMMIT' || text === 'ROLLBACK') readOnlyOpen = false; // an empty transaction: both go together
      if (callback) sendOwedBegin();
      else return pipelinedWithBegin(args);
    }
    if (readOnlyOpen && text === 'COMMIT' && typeof args[args.length - 1] !== 'function') {
      readOnlyOpen = false;
      oweCommit();
      return Promise.resolve(COMMITTED);
    }
    if (text === 'COMMIT' || text === 'ROLLBACK') readOnlyOpen = false;
    if (commitOwed) sendOwed(false);
    const writer = hooks.committed && text === 'COMMIT' && q && typeof q === 'object' ? committingWriter() : null;
    if (writer && hooks.committed && typeof args[args.length - 1] !== 'function') {
      const committed = hooks.committed;
      args[0] = { ...(q as object), text: 'COMMIT; SELECT pg_current_wal_lsn()::text AS lsn' };
      return (query(...args) as Promise<pg.QueryResult[]>).then(async (results) => {
        const lsn = (results[1]?.rows[0] as unknown[] | undefined)?.[0];
        if (typeof lsn === 'string') await committed(writer, lsnValue(lsn));
        return results[0];
      });
    }
    if (!hooks.failed) return query(...args);
    const result = query(...args);
    if (result instanceof Promise)
      result.catch((err: unknown) => {
        if (isConnectionFailure(err)) hooks.failed?.(err);
      });
    return result;
  };
}

/** The statement-name generator for a pool: none behind a transaction-mode pooler. */
const statementNames = (pooled: boolean) =>
  pooled ? {} : { statementNameGenerator: preparedName as (q: { sql: string }) => string };

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
 * app.tenant_id or, for the few platform operations that must cross tenants, takes the role bima_system.
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
    /** Behind a transaction-mode pooler (ConnectOptions.pooled). */
    readonly pooled = false,
    /** Where sessionClient connects: the primary, directly. */
    private readonly directUrl = '',
    /** The read replicas, when DATABASE_REPLICA_URLS names any. */
    readonly replicas?: ReplicaSet<PrismaClient>,
  ) {
    this.#shares = new KeyedGate<number>(tenantShare);
  }

  static async connect(url: string, opts: ConnectOptions = {}): Promise<Database> {
    const pooled = opts.pooled ?? false;
    const switchRole = await Database.mustSwitchRole(url);
    if (switchRole && pooled) {
      throw new Error(
        'DATABASE_URL goes through a pooler (DATABASE_DIRECT_URL is set) but logs in as a superuser or BYPASSRLS ' +
          `role, which a pooler cannot switch to ${APP_ROLE}: log in as a role bound by row-level security ` +
          `(${APP_ROLE} itself with LOGIN, or a login role granted it; docs/operations.md "Pooler and read replicas")`,
      );
    }
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
      // A read's BEGIN goes with its statement (foldIntoBegin); every other statement still waits for the one before.
      pipeline: true,
      ...(switchRole ? { options: `-c role=${APP_ROLE}` } : {}),
    });
    // pg re-emits a pooled connection's error (server shutdown, or PostgreSQL stopping while pool.end() is still
    // closing sockets) on the pool, and Prisma's adapter detaches its listener on $disconnect: an unhandled 'error'
    // event would kill the process. The pool drops the broken connection by itself.
    pool.on('error', () => undefined);
    const sent = { statements: 0, owedCommits: 0 };
    const replicas = opts.replicas?.urls.length ? await Database.openReplicas(pool, opts.replicas, opts) : undefined;
    const hooks: CommitHooks = replicas ? { committed: (writer, lsn) => replicas.wrote(writer, lsn) } : {};
    pool.on('connect', (client) => foldIntoBegin(client, sent, hooks, opts.genericReadPlans));
    routeReadUnits(pool);
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool, statementNames(pooled)) });
    const share = Math.min(poolSize, Math.max(1, opts.tenantShare ?? poolSize));
    const db = new Database(prisma, pool, share, opts.poolWaitMs ?? 0, sent, pooled, opts.directUrl ?? url, replicas);
    await replicas?.start();
    return db;
  }

  /** A pool and an ORM client per replica, each connection switched to the application role when needed. */
  private static async openReplicas(
    primary: pg.Pool,
    r: ReplicaOptions,
    opts: ConnectOptions,
  ): Promise<ReplicaSet<PrismaClient>> {
    const handles: ReplicaHandle<PrismaClient>[] = [];
    for (const url of r.urls) {
      // A replica that does not answer at start is still taken: the monitor lets it in once it does.
      const switchRole = await Database.mustSwitchRole(url).catch(() => true);
      const pool = new pg.Pool({
        connectionString: url,
        max: r.poolSize,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: Math.min(opts.poolWaitMs || 1_000, 1_000),
        ...(switchRole ? { options: `-c role=${APP_ROLE}` } : {}),
      });
      const handle: ReplicaHandle<PrismaClient> = {
        state: { url, healthy: false, replayLsn: 0n, lagMs: null, lastError: null },
        pool,
        client: undefined as unknown as PrismaClient,
        failures: 0,
      };
      const failed = () => void (handle.failures += 1);
      pool.on('error', failed);
      pool.on('connect', (client) =>
        foldIntoBegin(client, { statements: 0, owedCommits: 0 }, { failed }, opts.genericReadPlans),
      );
      // A connection the replica refuses is a failure too (PrismaPg opens a transaction with pool.connect), but not
      // the pool's own wait running out (a busy replica, not a dead one: that read goes to the primary, the replica
      // stays in). pg's own pool.query connects with a callback; PrismaPg with a promise.
      const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, ...rest: unknown[]) => void) => unknown;
      (pool as unknown as { connect: typeof connect }).connect = (cb) =>
        cb
          ? connect((err, ...rest) => {
              if (isConnectionFailure(err)) failed();
              cb(err, ...rest);
            })
          : (connect() as Promise<pg.PoolClient>).catch((err: unknown) => {
              if (isConnectionFailure(err)) failed();
              throw err;
            });
      routeReadUnits(pool);
      handle.client = new PrismaClient({
        adapter: new PrismaPg(pool, { ...statementNames(false), onConnectionError: failed }),
      });
      handles.push(handle);
    }
    return new ReplicaSet<PrismaClient>(primary, handles, r.marks ?? new MemoryWriteMarks(), {
      maxLagMs: r.maxLagMs,
      waitMs: r.waitMs,
      checkMs: r.checkMs,
      onChange: r.onChange,
    });
  }

  /**
   * A connection of its own, straight to the primary (DATABASE_DIRECT_URL, else DATABASE_URL), for what needs a
   * session: session advisory locks. The caller ends it.
   */
  async sessionClient(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.directUrl });
    client.on('error', () => undefined);
    await client.connect();
    return client;
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

  /**
   * Whether `url` reaches PostgreSQL itself, with a session of its own, rather than a pooler: a setting passed in the
   * `options` startup parameter must come back. PgBouncer refuses the parameter (SQLSTATE 08P01, "unsupported startup
   * parameter"), or drops it when told to ignore it; either way the setting does not come back. Used at start for the
   * URL that session locks and LISTEN go to (DATABASE_DIRECT_URL, else DATABASE_URL).
   */
  static async reachesSession(url: string): Promise<boolean> {
    const probe = new pg.Client({ connectionString: url, options: '-c bima.session_probe=on' });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
    } catch (err) {
      if ((err as { code?: unknown }).code === '08P01') return false;
      throw err;
    }
    try {
      const { rows } = await probe.query<{ v: string | null }>(
        "SELECT current_setting('bima.session_probe', true) AS v",
      );
      return rows[0]?.v === 'on';
    } finally {
      await probe.end().catch(() => undefined);
    }
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
    if (this.replicas && opts.readOnly && !opts.isolationLevel && !beginsAs.getStore()) {
      const reader = replicaReader();
      if (reader) return this.#onReplica(reader, tenantId, fn, opts);
    }
    // Reads after a write in the same request stay on the primary (src/db/replicas.ts).
    if (!opts.readOnly) markWrote();
    return this.#primaryTx(tenantId, fn, opts);
  }

  /**
   * A read on a replica that has replayed the reader's last write (ReplicaSet.choose), else on the primary. A read
   * that fails on the replica for anything but a refusal of ours (AppError) runs again on the primary: it only reads,
   * so running it twice changes nothing, and a replica dying under it costs the caller no error. The replica is taken
   * out when the failure was its connection's (a connection-level SQLSTATE or socket error, or its pool saw one).
   */
  async #onReplica<T>(reader: string, tenantId: number, fn: (tx: Tx) => Promise<T>, opts: TxOptions): Promise<T> {
    const replicas = this.replicas!;
    const r = await replicas.choose(reader);
    if (!r) return this.#primaryTx(tenantId, fn, opts);
    const before = r.failures;
    try {
      return await this.#readUnit(r.pool, r.client, tenantId, fn, () => void (r.failures += 1));
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (r.failures !== before || isConnectionFailure(err) || isConnectionFailure((err as { cause?: unknown }).cause))
        replicas.failed(r, err);
      return this.#primaryTx(tenantId, fn, opts);
    }
  }

  #primaryTx<T>(tenantId: number, fn: (tx: Tx) => Promise<T>, opts: TxOptions): Promise<T> {
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
    if (readOnly) return this.#readUnit(this.pool, this.prisma, tenantId, fn);
    return beginsAs.run({ tenantId, readOnly }, () => this.prisma.$transaction(fn, txOpts));
  }

  /**
   * A read-only unit of work run as a read unit (read-unit.ts) rather than in Prisma's interactive transaction: the
   * same BEGIN READ ONLY with the tenant, the same statements on one connection, the same owed COMMIT, without the
   * half millisecond of CPU Prisma spends on a transaction of its own.
   */
  #readUnit<T>(
    pool: pg.Pool,
    client: PrismaClient,
    tenantId: number,
    fn: (tx: Tx) => Promise<T>,
    onBroken?: () => void,
  ): Promise<T> {
    const unit = new ReadUnit(pool, onBroken);
    let tx = readClients.get(client);
    if (!tx) readClients.set(client, (tx = readClient(client) as unknown as Tx));
    // The unit's BEGIN is sent on this async path: foldIntoBegin makes it BEGIN READ ONLY with the tenant.
    return beginsAs.run({ tenantId, readOnly: true }, () => unit.run(() => fn(tx)));
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
      // A named statement outlives the transaction: not behind a pooler (ConnectOptions.pooled).
      name: this.pooled ? undefined : 'app_authenticate',
      text: 'SELECT * FROM app_authenticate($1, $2)',
      values: [tokenHash, agentCode],
    });
    return rows[0] ?? null;
  }

  /** A platform operation that must cross tenants (the token endpoint's client lookup, sweeps, seeding). Keep these few and obvious. */
  system<T>(fn: (tx: Tx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    markWrote();
    // Never folded into a tenant's BEGIN (nor READ ONLY), even when begun inside a tenant's unit of work.
    return beginsAs.exit(() =>
      this.prisma.$transaction(async (tx) => {
        // Transaction-scoped: the connection is back to its own role at COMMIT (src/db/tenancy.ts SYSTEM_ROLE).
        await tx.$executeRawUnsafe(`SET LOCAL ROLE ${SYSTEM_ROLE}`);
        return fn(tx);
      }, opts),
    );
  }

  async close(): Promise<void> {
    for (const r of this.replicas?.replicas ?? []) await r.client.$disconnect().catch(() => undefined);
    await this.replicas?.close();
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
