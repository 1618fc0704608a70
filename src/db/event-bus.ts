import { EventEmitter } from 'node:events';
import pg from 'pg';
import { Repeater } from '@repeaterjs/repeater';
import { Prisma } from '../generated/prisma/client.ts';

const { join, sql } = Prisma;
import type { Tx } from './client.ts';

const CHANNEL = 'bima_events';
/** Cache invalidations, sent by triggers (migrations caches_and_replicas, directory_cache): `{"kind": "rating"|"principal"|"directory", "tenant": N}`. */
const CACHE_CHANNEL = 'bima_cache';
/** The LISTEN connection's application_name: how Caches.sync finds every listening process (pg_stat_activity). */
export const LISTENER_APPLICATION_NAME = 'bima_cache_listener';

export interface CacheMessage {
  kind: string;
  tenant: number;
  /** A sync marker's id (Caches.sync). */
  id?: string;
  /** An acknowledgement's sender: the backend pid of the listening connection that heard the marker. */
  pid?: number;
}

export interface BusMessage {
  topic: string;
  tenantId: number;
  payload: Record<string, unknown>;
}

/**
 * Live events for GraphQL subscriptions, fanned out through PostgreSQL LISTEN/NOTIFY so a change committed by any
 * server process reaches WebSockets held by every other one. Publishing happens inside the business transaction
 * (pg_notify is transactional): subscribers hear of a change only once it has committed, and never of a rollback.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private client: pg.Client | undefined;
  private closed = false;
  private reconnecting = false;
  /** The acknowledgements being answered on the LISTEN connection, one after another (acknowledge). */
  private acks: Promise<void> = Promise.resolve();
  private readonly cacheListeners: ((m: CacheMessage) => void)[] = [];
  private readonly listeningListeners: ((listening: boolean) => void)[] = [];
  /** True while the LISTEN connection is up: cache invalidations can be heard. */
  listening = false;
  /** The backend pid of the LISTEN connection while it is up. */
  listenerPid: number | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.emitter.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (msg.channel === CACHE_CHANNEL && msg.payload) return this.cacheMessage(msg.payload);
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        const m = JSON.parse(msg.payload) as BusMessage;
        this.emitter.emit(`${m.tenantId}:${m.topic}`, m.payload);
      } catch (e) {
        this.onError(e);
      }
    });
    // A lost connection (an error, or the server ending it) means notifications may be missed from now on.
    let lost = false;
    const onLost = (e?: unknown) => {
      if (e) this.onError(e);
      if (lost || this.closed) return;
      lost = true;
      this.setListening(false);
      void client.end().catch(() => undefined);
      this.reconnectSoon();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    await client.connect();
    const { rows } = await client.query<{ pid: number }>(
      `SELECT set_config('application_name', $1, false), pg_backend_pid() AS pid`,
      [LISTENER_APPLICATION_NAME],
    );
    await client.query(`LISTEN ${CHANNEL}`);
    await client.query(`LISTEN ${CACHE_CHANNEL}`);
    this.listenerPid = rows[0].pid;
    this.client = client;
    this.setListening(true);
  }

  /** Tries again every second until the LISTEN connection is back (or the bus is closed). */
  private reconnectSoon(): void {
    if (this.closed || this.reconnecting) return;
    this.reconnecting = true;
    setTimeout(() => {
      if (this.closed) return;
      this.start().then(
        () => (this.reconnecting = false),
        (err: unknown) => {
          this.onError(err);
          this.reconnecting = false;
          this.reconnectSoon();
        },
      );
    }, 1000).unref();
  }

  /** Invalidations from every process's commits (this one's included). */
  onCacheMessage(fn: (m: CacheMessage) => void): void {
    this.cacheListeners.push(fn);
  }

  /** Told when the LISTEN connection is lost (caches must stop serving) and when it is back (start again, empty). */
  onListening(fn: (listening: boolean) => void): void {
    this.listeningListeners.push(fn);
    fn(this.listening);
  }

  private setListening(listening: boolean): void {
    if (this.listening === listening) return;
    this.listening = listening;
    for (const fn of this.listeningListeners) fn(listening);
  }

  private cacheMessage(payload: string): void {
    try {
      const m = JSON.parse(payload) as CacheMessage;
      for (const fn of this.cacheListeners) fn(m);
    } catch (e) {
      this.onError(e);
    }
  }

  /**
   * Answers a sync marker on the LISTEN connection itself, once every notification delivered before the marker has
   * been handled (handlers run synchronously, in delivery order).
   */
  acknowledge(id: string): void {
    const client = this.client;
    if (!client || !this.listening) return;
    const ack: CacheMessage = { kind: 'ack', tenant: 0, id, pid: this.listenerPid };
    // One at a time on the connection (markers may arrive faster than acks are answered): pg 9 refuses a statement
    // handed to a busy connection.
    this.acks = this.acks
      .then(() => client.query('SELECT pg_notify($1, $2)', [CACHE_CHANNEL, JSON.stringify(ack)]))
      .then(
        () => undefined,
        (e: unknown) => this.onError(e),
      );
  }

  /** Queue an event to be announced when `tx` commits. Payloads stay small (ids and figures): NOTIFY caps at 8 kB. */
  async publish(tx: Tx, topic: string, tenantId: number, payload: Record<string, unknown>): Promise<void> {
    const message: BusMessage = { topic, tenantId, payload };
    await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${JSON.stringify(message)})`;
  }

  /**
   * Writes a row and announces it in one statement (one round trip, not the two of an insert then publish): `insert`
   * is an `INSERT … RETURNING id`, and the event's payload is `{id}`, the new row's id as text, as publish would send.
   */
  async publishInserted(tx: Tx, topic: string, tenantId: number, insert: Prisma.Sql): Promise<void> {
    await tx.$executeRaw`WITH inserted AS (${insert}) ${this.announce(topic, tenantId)}`;
  }

  /**
   * As publishInserted, with the write the row records in the same statement: `before` are that statement's own CTEs
   * (`name AS (…)`, which `insert` may read), and `answer` the columns the statement answers (scalar subqueries of
   * those CTEs). One row.
   */
  async publishInsertedWith<T>(
    tx: Tx,
    topic: string,
    tenantId: number,
    w: { before: Prisma.Sql[]; insert: Prisma.Sql; answer: Prisma.Sql },
  ): Promise<T> {
    const [row] = await tx.$queryRaw<T[]>`WITH ${join(w.before, ',\n')}, inserted AS (${w.insert}),
      announced AS (${this.announce(topic, tenantId)})
      SELECT ${w.answer} FROM (SELECT count(*) FROM announced) AS done`;
    return row;
  }

  /** The NOTIFY of each row of the CTE `inserted`, its payload `{id}`. */
  private announce(topic: string, tenantId: number): Prisma.Sql {
    return sql`SELECT pg_notify(${CHANNEL}, json_build_object(
        'topic', ${topic}::text, 'tenantId', ${tenantId}::int, 'payload', json_build_object('id', inserted.id::text))::text)
      FROM inserted`;
  }

  /** Events of one topic for one tenant, as an async iterator that ends when the subscriber goes away. */
  subscribe<T = Record<string, unknown>>(topic: string, tenantId: number): Repeater<T> {
    const key = `${tenantId}:${topic}`;
    return new Repeater<T>(async (push, stop) => {
      const listener = (payload: T) => void push(payload);
      this.emitter.on(key, listener);
      await stop;
      this.emitter.off(key, listener);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.setListening(false);
    await this.client?.end().catch(() => undefined);
  }
}

/**
 * `source`'s events passed through `step` (a filter that may also load or reshape: undefined drops the event), as an
 * iterator whose end reaches `source` at once. An `async function*` looping over `source` cannot end while it waits
 * for the next event: its `return()` is queued behind that wait, so a subscriber that went away (a socket closed
 * without completing its subscriptions) left the loop, its listener and its per-token slot held for good (an
 * outside check, 2026-12-03: a token was refused new subscriptions after a few reconnects).
 */
export function keepEvents<T, U>(
  source: Repeater<T>,
  step: (event: T) => U | undefined | Promise<U | undefined>,
): Repeater<U> {
  return new Repeater<U>(async (push, stop) => {
    void stop.then(() => source.return());
    for await (const event of source) {
      const out = await step(event);
      if (out !== undefined) await push(out);
    }
    stop();
  });
}
