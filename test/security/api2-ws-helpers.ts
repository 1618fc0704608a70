import { randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { Api } from '../kit.ts';

/** Real graphql-ws clients and raw sockets for the WebSocket half of test/security/api2-broken-authentication.test.ts. */

export const wsUrl = (origin: string) => `${origin.replace(/^http/, 'ws')}/graphql`;

export interface Closed {
  code: number;
  reason: string;
}

/** Resolves true once `cond` holds, false when `ms` pass first. */
export async function until(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** A graphql-ws client (no retries) whose acknowledgement and close are recorded. */
export class WsConnection {
  readonly client: Client;
  acknowledged = false;
  closed: Closed | undefined;

  constructor(origin: string, connectionParams?: Record<string, unknown>) {
    this.client = createClient({
      url: wsUrl(origin),
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: true,
      on: {
        connected: () => (this.acknowledged = true),
        closed: (e) => (this.closed ??= { code: (e as CloseEvent).code, reason: String((e as CloseEvent).reason) }),
      },
    });
  }

  subscribe<T = any>(query: string, field: string): LiveStream<T> {
    return new LiveStream<T>(this.client, query, field);
  }

  async whenClosed(ms = 10_000): Promise<Closed | undefined> {
    await until(() => this.closed !== undefined, ms);
    return this.closed;
  }
}

/** One subscription's payloads, errors and end. */
export class LiveStream<T> {
  readonly events: T[] = [];
  readonly errors: any[] = [];
  ended = false;
  readonly stop: () => void;

  constructor(client: Client, query: string, field: string) {
    this.stop = client.subscribe<Record<string, T>>(
      { query },
      {
        next: (r) => {
          if (r.errors) this.errors.push(...r.errors);
          if (r.data?.[field]) this.events.push(r.data[field]);
        },
        error: (e) => this.errors.push(...(Array.isArray(e) ? e : [e])),
        complete: () => (this.ended = true),
      },
    );
  }
}

/** A raw socket speaking graphql-transport-ws by hand, for what a well-behaved client never sends. */
export class RawSocket {
  readonly ws: WebSocket;
  readonly messages: any[] = [];
  closed: Closed | undefined;
  readonly opened: Promise<void>;

  constructor(origin: string) {
    this.ws = new WebSocket(wsUrl(origin), 'graphql-transport-ws');
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.ws.on('message', (d: Buffer) => this.messages.push(JSON.parse(d.toString('utf8'))));
    this.ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
    // An over-size send may make the server drop the TCP connection while we still write: that is the point.
    this.ws.on('error', () => undefined);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async init(token: string): Promise<boolean> {
    await this.opened;
    this.send({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } });
    await until(() => this.closed !== undefined || this.messages.some((m) => m.type === 'connection_ack'));
    return this.messages.some((m) => m.type === 'connection_ack');
  }

  async whenClosed(ms = 10_000): Promise<Closed | undefined> {
    await until(() => this.closed !== undefined, ms);
    return this.closed;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** An API client created over REST (rate limit out of the way), with its one-time secret. */
export async function newApiClient(through: Api, token: string, scopes: string[], actorUserId?: number) {
  const r = await through.post('/api-clients', {
    token,
    idempotencyKey: randomUUID(),
    body: {
      name: `api2 ${randomUUID().slice(0, 8)}`,
      scopes,
      rate_limit_per_minute: 10_000,
      ...(actorUserId ? { actor_user_id: actorUserId } : {}),
    },
  });
  expect(r.status, r.text).toBe(201);
  return { clientId: r.body.data.client_id as string, secret: r.body.data.client_secret as string };
}

/** graphql-ws does not acknowledge a subscription: write until every stream has heard one, then they are live. */
export async function prime(streams: LiveStream<unknown>[], write: () => Promise<string>) {
  for (let i = 0; i < 20 && streams.some((s) => s.events.length === 0 && s.errors.length === 0); i++) {
    await write();
    await until(() => streams.every((s) => s.events.length > 0 || s.errors.length > 0), 500);
  }
  for (const s of streams) {
    expect(s.errors).toEqual([]);
    expect(s.events.length).toBeGreaterThan(0);
  }
}
