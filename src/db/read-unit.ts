import { AsyncSlot } from '../lib/async-slot.ts';
import type pg from 'pg';

/**
 * Read-only units of work without Prisma's interactive transactions.
 *
 * An interactive transaction (`prisma.$transaction(fn)`) costs Prisma about 0.5 ms of CPU of its own on top of the
 * statements it runs (measured on this project's machine: a one-row read 0.97–1.16 ms inside one against 0.42–0.56 ms
 * outside; a third of a client record's node CPU under load was Prisma's client, most of it the transaction: its
 * client built per transaction, its timers, its bookkeeping). A read needs none of that: it needs its statements on
 * one connection inside one `BEGIN READ ONLY` that carries the tenant. A read unit gives it exactly that:
 *
 * - the unit's statements are Prisma's ordinary statements (no transaction as far as Prisma knows), which its driver
 *   adapter sends with `pool.query`; a pool routed here (routeReadUnits) hands those of a unit to the unit's
 *   connection, checked out at the first statement and begun there with the BEGIN that carries the tenant
 *   (foldIntoBegin in client.ts: the caller runs the unit inside its tenant's `beginsAs`), one statement after
 *   another as a transaction's are;
 * - when the unit ends the transaction ends: its COMMIT is owed as any read's is (riding on the connection's next
 *   BEGIN), or it is rolled back if one of its statements failed, and the connection goes back to the pool.
 *
 * What PostgreSQL sees is what it saw before, statement for statement: the same BEGIN, the same statements, the same
 * COMMIT, on one connection held for the unit (the organisation's share of the pool counts it as before).
 *
 * One thing Prisma does outside a transaction that it does not inside one: it batches `findUnique` calls of one shape
 * made in the same tick into one statement, whichever unit of work (or organisation) made them, run on the first
 * caller's async path, that is, in the first caller's unit. A unit's client therefore never sends a findUnique:
 * readClient turns each into the equivalent findFirst, which Prisma never batches.
 */
export class ReadUnit {
  #conn: Promise<pg.PoolClient> | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #failed = false;
  #ended = false;

  /** The connection failed while the unit held it (its 'error' event). */
  #broken: Error | undefined;
  /**
   * A checked-out connection's 'error' event (its server gone, a replica killed) has no listener of pg's pool: one
   * unheard would be thrown as an uncaught exception, and stop the process. Heard here, it fails the unit, and the
   * connection is handed back as broken so the pool drops it.
   */
  readonly #onError = (err: Error) => {
    this.#failed = true;
    if (!this.#broken) this.onBroken?.(err);
    this.#broken ??= err;
  };

  /** Its statements go to one connection of `pool`; `onBroken` hears that connection fail (a replica's count). */
  constructor(
    readonly pool: pg.Pool,
    private readonly onBroken?: (err: Error) => void,
  ) {}

  /**
   * Checks the unit's connection out and begins its transaction: the plain BEGIN is sent on the caller's async path,
   * where foldIntoBegin (client.ts) turns it into the BEGIN READ ONLY carrying the caller's tenant.
   */
  async #open(): Promise<pg.PoolClient> {
    const conn = await this.pool.connect();
    conn.on('error', this.#onError);
    try {
      await conn.query({ text: 'BEGIN' });
    } catch (err) {
      conn.off('error', this.#onError);
      conn.release(err as Error);
      throw err;
    }
    return conn;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Runs `fn` with this unit current; ends the unit (and gives its connection back) once `fn` has settled. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      // Awaited inside the unit: Prisma's query is lazy, sent only when awaited, and `fn` may return it unawaited.
      return await units.run(this, async () => await fn());
    } finally {
      await this.#end();
    }
  }

  /** One statement of the unit, after the ones before it, on the unit's connection. */
  query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    const result = this.#tail.then(async () => (await (this.#conn ??= this.#open())).query(config));
    this.#tail = result.then(noop, () => {
      this.#failed = true;
    });
    return result;
  }

  async #end(): Promise<void> {
    this.#ended = true;
    await this.#tail;
    if (!this.#conn) return;
    let conn: pg.PoolClient;
    try {
      conn = await this.#conn;
    } catch {
      return; // never checked out, or its BEGIN failed (#open released it)
    }
    const release = (err?: Error) => {
      conn.off('error', this.#onError);
      conn.release(err ?? this.#broken);
    };
    if (this.#broken) return release();
    // A read-only transaction's COMMIT is owed (answered at once, sent with the connection's next BEGIN); a failed
    // statement's transaction is rolled back. A connection failing either is dropped by the pool.
    await conn.query(this.#failed ? 'ROLLBACK' : 'COMMIT').then(
      () => release(),
      (err: Error) => release(err),
    );
  }
}

const units = new AsyncSlot<ReadUnit>();
const noop = () => undefined;

/**
 * Hands the statements Prisma's adapter sends outside a transaction on `pool` (pool.query with a single config in
 * `rowMode: 'array'`, which is how @prisma/adapter-pg sends every statement) to the current read unit of that pool,
 * if any. Anything else (our own pool.query calls, a unit that has ended, another pool's unit) goes to the pool as
 * before; a Prisma statement with no unit at all runs with no tenant, which row-level security answers with nothing.
 */
export function routeReadUnits(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const unit = units.getStore();
    const config = args[0] as pg.QueryConfig & { rowMode?: string };
    if (
      unit &&
      !unit.ended &&
      unit.pool === pool &&
      args.length === 1 &&
      typeof config === 'object' &&
      config !== null &&
      config.rowMode === 'array'
    )
      return unit.query(config);
    return query(...args);
  };
}

type Delegate = Record<string, (args?: unknown) => unknown>;

/**
 * `client` for a read unit: every model's findUnique and findUniqueOrThrow sent as findFirst and findFirstOrThrow
 * with the same arguments (a compound unique key, `tenantId_code: { tenantId, code }`, spread into its fields), so
 * Prisma never batches a unit's statement with another unit's (see ReadUnit). The answers are the same: a unique
 * key matches one row at most, and both OrThrow forms fail with P2025 when none matches.
 */
export function readClient<C extends object>(client: C): C {
  const delegates = new Map<string, Delegate>();
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || prop.startsWith('$') || prop.startsWith('_')) return value;
      if (!value || typeof value !== 'object' || typeof (value as Delegate).findFirst !== 'function') return value;
      let wrapped = delegates.get(prop);
      if (!wrapped) delegates.set(prop, (wrapped = unbatched(value as Delegate)));
      return wrapped;
    },
  });
}

function unbatched(delegate: Delegate): Delegate {
  const findUnique = (args?: unknown) => delegate.findFirst(spreadCompoundKeys(args));
  const findUniqueOrThrow = (args?: unknown) => delegate.findFirstOrThrow(spreadCompoundKeys(args));
  return new Proxy(delegate, {
    get(target, prop, receiver) {
      if (prop === 'findUnique') return findUnique;
      if (prop === 'findUniqueOrThrow') return findUniqueOrThrow;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** `{ where: { a_b: { a, b }, … } }` → `{ where: { a, b, … } }`: a compound unique input as the plain filter it means. */
export function spreadCompoundKeys(args: unknown): unknown {
  if (!args || typeof args !== 'object') return args;
  const where = (args as { where?: Record<string, unknown> }).where;
  if (!where || typeof where !== 'object') return args;
  const compounds: Record<string, unknown>[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(where)) {
    if (isCompoundKey(key, value)) compounds.push(value);
    else rest[key] = value;
  }
  if (!compounds.length) return args;
  // Fields named twice (an extended unique filter may name one again, or two keys share one): all must hold.
  const named = new Set(Object.keys(rest));
  const clash = compounds.some((c) => Object.keys(c).some((f) => named.has(f) || !named.add(f)));
  if (clash) return { ...args, where: { AND: [rest, ...compounds] } };
  for (const c of compounds) Object.assign(rest, c);
  return { ...args, where: rest };
}

/** A compound unique input: `a_b` whose value is an object with exactly the fields a and b. */
function isCompoundKey(key: string, value: unknown): value is Record<string, unknown> {
  if (!key.includes('_') || !value || typeof value !== 'object' || Array.isArray(value)) return false;
  const fields = key.split('_');
  const given = Object.keys(value);
  return given.length === fields.length && fields.every((f) => Object.hasOwn(value, f));
}
