import { EventEmitter } from 'node:events';
import pg from 'pg';
import { Repeater } from 'graphql-yoga';
import type { Tx } from './client.ts';

const CHANNEL = 'bima_events';

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

  constructor(
    private readonly databaseUrl: string,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.emitter.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        const m = JSON.parse(msg.payload) as BusMessage;
        this.emitter.emit(`${m.tenantId}:${m.topic}`, m.payload);
      } catch (e) {
        this.onError(e);
      }
    });
    client.on('error', (e) => {
      this.onError(e);
      if (!this.closed) setTimeout(() => void this.start().catch(this.onError), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
  }

  /** Queue an event to be announced when `tx` commits. Payloads stay small (ids and figures): NOTIFY caps at 8 kB. */
  async publish(tx: Tx, topic: string, tenantId: number, payload: Record<string, unknown>): Promise<void> {
    const message: BusMessage = { topic, tenantId, payload };
    await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${JSON.stringify(message)})`;
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
    await this.client?.end().catch(() => undefined);
  }
}
