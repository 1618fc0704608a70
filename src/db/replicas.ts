import { AsyncSlot } from '../lib/async-slot.ts';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * Streaming read replicas (DATABASE_REPLICA_URLS; docs/operations.md "Pooler and read replicas").
 *
 * Which reads go to a replica: a read-only unit of work (Database.tenant with readOnly) begun for an HTTP request's
 * caller (REST or GraphQL over HTTP; bindReader in src/context.ts), outside any write's transaction, by a request
 * that has not written. Everything else stays on the primary: writes and whatever runs inside their transactions,
 * exactly-once paths, job workers (which read what another process has just committed), subscriptions (which load
 * what a NOTIFY from the primary has just announced), and principal and reference-data lookups.
 *
 * Lag: every REPLICA_CHECK_MS the monitor samples the primary's WAL position and each replica's replay position. A
 * replica's lag is how long ago the primary stood where the replica now stands (the newest sample at or before its
 * replay position); one further behind than REPLICA_MAX_LAG_MS, or not answering, or no longer a standby, takes no
 * reads until a later check finds it within the bound again.
 *
 * Read-your-writes: a write's COMMIT, for a request with a writer, also asks the primary for its WAL position after
 * the commit (in the same message, so no round trip more: foldIntoBegin in client.ts), and that position is kept as
 * the writer's mark (WriteMarks: in this process, and in Redis when REDIS_URL is set so every process sees it) for
 * REPLICA_MAX_LAG_MS. A later read by the same writer goes to a replica only once that replica has replayed the
 * mark, waiting at most REPLICA_WAIT_MS, else to the primary.
 */

/** A WAL position (pg_lsn) as a number: `16/B374D848` is 0x16 << 32 | 0xB374D848. */
export function lsnValue(text: string): bigint {
  const [hi, lo] = text.split('/');
  if (hi === undefined || lo === undefined) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

/** What the request in hand reads as: its writer (tenant and API client), and whether it has written. */
interface ReadScope {
  writer: string | null;
  wrote: boolean;
  /** The writer's mark as first looked up in this request (one lookup per request, however many reads it makes). */
  mark?: Promise<bigint | undefined>;
}

const readScopes = new AsyncSlot<ReadScope>();

/** Opens a request's read scope (src/server.ts), bound to its caller by bindReader once known. */
export function openReadScope<T>(fn: () => T): T {
  return readScopes.run({ writer: null, wrote: false }, fn);
}

/** Names the request's writer (`<tenant id>:<API client id>`): its reads may go to a replica (src/context.ts). */
export function bindReader(writer: string): void {
  const s = readScopes.getStore();
  if (s && s.writer === null) s.writer = writer;
}

/** The writer whose reads may go to a replica on this async path, or null (a job, a subscription, a request that wrote). */
export function replicaReader(): string | null {
  const s = readScopes.getStore();
  return s && !s.wrote ? s.writer : null;
}

/** The writer a commit on this async path belongs to, or null (no request: a job, the start). */
export function committingWriter(): string | null {
  return readScopes.getStore()?.writer ?? null;
}

/** Records that the request in hand wrote: its later reads stay on the primary. */
export function markWrote(): void {
  const s = readScopes.getStore();
  if (s) s.wrote = true;
}

/** Writers' last commit positions, shared by every process that reads for them. */
export interface WriteMarks {
  get(writer: string): Promise<bigint | undefined>;
  /** Raises the writer's mark to `lsn` (never lowers it), for `ttlMs`. */
  set(writer: string, lsn: bigint, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/** One process's marks (a single process, or the fallback when Redis cannot be reached). */
export class MemoryWriteMarks implements WriteMarks {
  readonly #marks = new Map<string, { lsn: bigint; until: number }>();

  get(writer: string): Promise<bigint | undefined> {
    const m = this.#marks.get(writer);
    if (m && m.until < Date.now()) {
      this.#marks.delete(writer);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(m?.lsn);
  }

  set(writer: string, lsn: bigint, ttlMs: number): Promise<void> {
    const m = this.#marks.get(writer);
    const until = Date.now() + ttlMs;
    if (this.#marks.size > 100_000) this.#sweep();
    this.#marks.set(writer, { lsn: m && m.until >= Date.now() && m.lsn > lsn ? m.lsn : lsn, until });
    return Promise.resolve();
  }

  #sweep(): void {
    const now = Date.now();
    for (const [k, m] of this.#marks) if (m.until < now) this.#marks.delete(k);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Raises a mark (16 hex digits, so string order is number order) and renews its expiry, in one atomic call. */
const RAISE_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if cur and cur >= ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/**
 * Marks in Redis (REDIS_URL), so a writer's next read is answered consistently by whichever process takes it. Kept in
 * this process too: should Redis fail, this process still honours its own writers' marks.
 */
export class RedisWriteMarks implements WriteMarks {
  readonly #local = new MemoryWriteMarks();
  readonly #redis: import('ioredis').Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.#redis = new Client(url, { maxRetriesPerRequest: 1, commandTimeout: 500 });
    this.#redis.on('error', () => undefined); // a failed command rejects; the local marks stand in
  }

  async get(writer: string): Promise<bigint | undefined> {
    const local = await this.#local.get(writer);
    const shared = await this.#redis.get(this.prefix + writer).catch(() => null);
    const v = shared ? BigInt(`0x${shared}`) : undefined;
    return v === undefined || (local !== undefined && local > v) ? local : v;
  }

  async set(writer: string, lsn: bigint, ttlMs: number): Promise<void> {
    await this.#local.set(writer, lsn, ttlMs);
    await this.#redis
      .eval(RAISE_SCRIPT, 1, this.prefix + writer, lsn.toString(16).padStart(16, '0'), String(ttlMs))
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/** A replica's state, as the last check found it. */
export interface ReplicaState {
  url: string;
  healthy: boolean;
  /** Replay position at the last check (0 before any). */
  replayLsn: bigint;
  /** How far behind the primary it was at the last check (ms), or null when it did not answer. */
  lagMs: number | null;
  lastError: string | null;
}

/** One replica: its own pool, and the ORM client over it (made by Database). */
export interface ReplicaHandle<C> {
  state: ReplicaState;
  pool: pg.Pool;
  client: C;
  /** Connection-level failures seen on this replica's connections (a dead replica fails its reads; they go again to the primary). */
  failures: number;
}

/** Connection-level failure codes: the connection or the server went away, or a standby cancelled the statement. */
export function isConnectionFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    /^08/.test(code) || // connection_exception
    /^57P0[1-4]$/.test(code) || // admin_shutdown, crash_shutdown, cannot_connect_now, database_dropped
    code === '40001' || // a hot standby's recovery conflict cancels the query as a serialization failure
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT'
  );
}

export interface ReplicaSetOptions {
  maxLagMs: number;
  waitMs: number;
  /** How often the monitor checks (ms). */
  checkMs?: number;
  onChange?: (state: ReplicaState) => void;
}

/** The replicas, their health, and the choice of one for a read. */
export class ReplicaSet<C> {
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  /** The primary's WAL position at recent checks, oldest first. */
  readonly #samples: { lsn: bigint; at: number }[] = [];
  readonly checkMs: number;

  constructor(
    private readonly primary: Pick<pg.Pool, 'query'>,
    readonly replicas: ReplicaHandle<C>[],
    readonly marks: WriteMarks,
    private readonly opts: ReplicaSetOptions,
  ) {
    // Lag is known to within one check: a quarter of the bound keeps it enforced.
    this.checkMs = opts.checkMs ?? Math.min(250, Math.max(25, Math.floor(opts.maxLagMs / 4)));
  }

  get maxLagMs(): number {
    return this.opts.maxLagMs;
  }

  /** Checks once (so the first reads can use a healthy replica), then every checkMs. */
  async start(): Promise<void> {
    await this.check();
    // A replica that is not usable from the start is said once (later, only changes are).
    for (const r of this.replicas) if (!r.state.healthy) this.opts.onChange?.({ ...r.state });
    this.#timer = setInterval(() => void this.check(), this.checkMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One check of the primary's position and every replica's (one at a time: a slow check is not piled on). */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #check(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      this.#samples.push({ lsn: lsnValue(rows[0].lsn), at });
    } catch {
      // The primary not answering is the primary's pool's problem; the replicas are judged by older samples.
    }
    const keepFrom = at - 2 * this.opts.maxLagMs - this.checkMs;
    while (this.#samples.length > 2 && this.#samples[0].at < keepFrom) this.#samples.shift();
    await Promise.all(this.replicas.map((r) => this.#checkReplica(r)));
  }

  async #checkReplica(r: ReplicaHandle<C>): Promise<void> {
    const before = r.state.healthy;
    try {
      const { rows } = await r.pool.query<{ lsn: string | null; standby: boolean }>({
        text: 'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS standby',
        query_timeout: Math.max(1_000, this.checkMs * 4),
      } as pg.QueryConfig);
      const row = rows[0];
      if (!row.standby || row.lsn === null) throw new Error('not a standby in recovery');
      const replay = lsnValue(row.lsn);
      r.state.replayLsn = replay;
      r.state.lagMs = this.#lagOf(replay);
      r.state.healthy = r.state.lagMs <= this.opts.maxLagMs;
      r.state.lastError = r.state.healthy ? null : `${r.state.lagMs} ms behind the primary`;
    } catch (err) {
      r.state.healthy = false;
      r.state.lagMs = null;
      r.state.lastError = err instanceof Error ? err.message : String(err);
    }
    if (before !== r.state.healthy) this.opts.onChange?.({ ...r.state });
  }

  /**
   * How stale the replica may be: the time since the newest sample it has replayed (everything the primary had then
   * is visible there). An upper bound, never an underestimate: what came after that sample may be unreplayed.
   */
  #lagOf(replay: bigint): number {
    const now = Date.now();
    for (let i = this.#samples.length - 1; i >= 0; i--) {
      const s = this.#samples[i];
      if (s.lsn <= replay) return now - s.at;
    }
    const oldest = this.#samples[0];
    return oldest ? now - oldest.at + this.checkMs : Number.POSITIVE_INFINITY;
  }

  /**
   * A replica for a read by `writer`: a healthy one (round robin) that has replayed the writer's mark, waiting up to
   * waitMs for it to; undefined sends the read to the primary.
   */
  async choose(writer: string): Promise<ReplicaHandle<C> | undefined> {
    const healthy = this.replicas.filter((r) => r.state.healthy);
    if (healthy.length === 0) return undefined;
    const r = healthy[this.#next++ % healthy.length];
    const scope = readScopes.getStore();
    const lookup = () => this.marks.get(writer).catch(() => undefined);
    const mark = await (scope?.writer === writer ? (scope.mark ??= lookup()) : lookup());
    if (mark === undefined || r.state.replayLsn >= mark) return r;
    return (await this.#replayed(r, mark)) ? r : undefined;
  }

  /** Waits (bounded) until `r` has replayed `mark`. */
  async #replayed(r: ReplicaHandle<C>, mark: bigint): Promise<boolean> {
    const until = Date.now() + this.opts.waitMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 10)) {
      try {
        const { rows } = await r.pool.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
        const lsn = rows[0]?.lsn;
        if (lsn) {
          const replay = lsnValue(lsn);
          if (replay > r.state.replayLsn) r.state.replayLsn = replay;
          if (replay >= mark) return true;
        }
      } catch {
        return false;
      }
      if (Date.now() + pause > until) return false;
      await sleep(pause);
    }
  }

  /** A read on `r` failed with its connection: out until a check finds it well again. */
  failed(r: ReplicaHandle<C>, err: unknown): void {
    r.failures += 1;
    if (r.state.healthy) {
      r.state.healthy = false;
      r.state.lastError = err instanceof Error ? err.message : String(err);
      this.opts.onChange?.({ ...r.state });
    }
  }

  /** Records a writer's commit position (see the module's comment). */
  async wrote(writer: string, lsn: bigint): Promise<void> {
    await this.marks.set(writer, lsn, this.opts.maxLagMs + this.checkMs * 4);
  }

  async close(): Promise<void> {
    this.stop();
    await this.marks.close();
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => undefined)));
  }
}
