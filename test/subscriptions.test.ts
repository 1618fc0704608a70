import { randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { emitEvent } from '../src/modules/events/event.service.ts';
import { paymentReceivedData } from './helpers/events.ts';
import { Live, startTestApp, useKit, wsClient, type Api } from './kit.ts';

const AUDIT_SUBSCRIPTION = 'subscription { auditLogged { action entityType entityId actorLabel } }';

interface AuditEvent {
  action: string;
  entityType: string;
  entityId: string;
  actorLabel: string;
}

/** One graphql-ws subscription whose events, errors and close are recorded for the test to wait on. */
class LiveSubscription {
  readonly events: AuditEvent[] = [];
  readonly errors: unknown[] = [];
  completed = false;
  private waiters: (() => void)[] = [];

  constructor(
    readonly client: Client,
    query = AUDIT_SUBSCRIPTION,
  ) {
    client.subscribe<{ auditLogged: AuditEvent }>(
      { query },
      {
        next: (r) => {
          if (r.errors) this.errors.push(...r.errors);
          if (r.data?.auditLogged) this.events.push(r.data.auditLogged);
          this.wake();
        },
        error: (e) => {
          this.errors.push(...(Array.isArray(e) ? e : [e]));
          this.wake();
        },
        complete: () => {
          this.completed = true;
          this.wake();
        },
      },
    );
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves true once `cond` holds, false when `ms` pass first. */
  async until(cond: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!cond()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }
}

const clients: Client[] = [];
function connect(origin: string, token: string): Client {
  const client = wsClient(origin, token);
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
});

const t = useKit();
const api = t.api;
const org = t.useOrg({ tokens: ['admin', 'staff'] });
let adminToken: string;
beforeAll(() => (adminToken = org.tokens.admin));

async function createApiClient(through: Api, token: string): Promise<string> {
  const r = await through.post('/api-clients', {
    token,
    idempotencyKey: randomUUID(),
    body: { name: `sub ${randomUUID().slice(0, 8)}`, scopes: ['read'] },
  });
  expect(r.status).toBe(201);
  return r.body.data.client_id;
}

/**
 * graphql-ws has no "subscribed" acknowledgement, so a write made right after subscribing can race the listener's
 * registration. Write until the subscriber has heard one of the writes, then the subscription is known to be live.
 */
async function primeWith(sub: LiveSubscription, write: () => Promise<string>): Promise<void> {
  const written: string[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    written.push(await write());
    if (await sub.until(() => sub.events.length > 0 || sub.errors.length > 0, 500)) break;
  }
  expect(sub.errors).toEqual([]);
  expect(sub.events.length).toBeGreaterThan(0);
  expect(written).toContain(sub.events[0].entityId);
}

/**
 * Proves a refused subscription heard nothing of `write`: on the same socket, a subscription the token may hold
 * (`events`) is made live, `write` is made, then an event that subscription hears is emitted and awaited. A socket
 * carries what commits in commit order, so anything of the earlier write would have arrived first.
 */
async function heardNothingOf(refused: LiveSubscription, write: () => Promise<unknown>): Promise<void> {
  const control = new Live<{ id: string }>(refused.client, 'subscription { events { id } }', 'events');
  // The factory's C-000001 is sold by agent1, the agent key's actor: staff and that agent both hear of it.
  const emit = async () =>
    (
      await t.db.tenant(org.id, (tx) =>
        emitEvent(t.app.services, tx, org.id, 'payment.received', paymentReceivedData('C-000001')),
      )
    ).id;
  for (let i = 0; i < 20 && control.events.length === 0; i++) {
    await emit();
    await control.until(() => control.events.length > 0, 500);
  }
  expect(control.errors).toEqual([]);
  expect(control.events.length).toBeGreaterThan(0);
  await write();
  const later = await emit();
  expect(await control.until(() => control.events.some((e) => e.id === later))).toBe(true);
  expect(refused.events).toEqual([]);
}

describe('auditLogged', () => {
  it('delivers an audit entry to an admin subscriber as the write commits', async () => {
    const sub = new LiveSubscription(connect(t.origin, adminToken));
    await primeWith(sub, () => createApiClient(api, adminToken));

    const seen = sub.events.length;
    const clientId = await createApiClient(api, adminToken);
    expect(await sub.until(() => sub.events.some((e) => e.entityId === clientId), 10_000)).toBe(true);
    const event = sub.events.slice(seen).find((e) => e.entityId === clientId)!;
    expect(event).toEqual({
      action: 'api_client.created',
      entityType: 'api_client',
      entityId: clientId,
      actorLabel: `user ${org.users.admin.name} via API client ${org.clients.admin.clientId}`,
    });
    expect(sub.errors).toEqual([]);
  });

  it("announces a bind's entries, each written by the statement that draws its number, naming the numbers drawn", async () => {
    const sub = new LiveSubscription(connect(t.origin, adminToken));
    await primeWith(sub, () => createApiClient(api, adminToken));
    const bound = await org.pendingPolicy();
    expect(await sub.until(() => sub.events.some((e) => e.entityId === bound.uuid), 10_000)).toBe(true);
    expect(
      sub.events
        .filter((e) => e.entityId === bound.client_no || e.entityId === bound.uuid)
        .map((e) => [e.action, e.entityType, e.entityId]),
    ).toEqual([
      ['client.created', 'client', bound.client_no],
      ['policy.bound', 'policy', bound.uuid],
    ]);
    expect(bound.client_no).toMatch(/^C-\d{6,}$/);
    expect(sub.errors).toEqual([]);
  });

  it("refuses a staff key without scope admin: the audit trail holds every client's personal data", async () => {
    const staffToken = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    const sub = new LiveSubscription(connect(t.origin, staffToken));
    expect(await sub.until(() => sub.errors.length > 0, 10_000)).toBe(true);
    expect((sub.errors[0] as { extensions?: { code?: string } }).extensions?.code).toBe('insufficient_scope');
    await heardNothingOf(sub, () => createApiClient(api, adminToken));
  });

  it('fans out through PostgreSQL to a WebSocket held by a second server over the same database', async () => {
    const second = await startTestApp({}, { databaseUrl: t.databaseUrl });
    try {
      const sub = new LiveSubscription(connect(second.origin, adminToken));
      // Every write goes through the first server; only NOTIFY can carry it to the second.
      await primeWith(sub, () => createApiClient(api, adminToken));
      const clientId = await createApiClient(api, adminToken);
      expect(await sub.until(() => sub.events.some((e) => e.entityId === clientId), 10_000)).toBe(true);
    } finally {
      await second.stop();
    }
  });

  it("never delivers one organisation's entries to another's subscriber", async () => {
    const other = await t.newOrg({ tokens: ['admin'] });
    const otherToken = other.tokens.admin;
    const theirs = new LiveSubscription(connect(t.origin, otherToken));
    const ours = new LiveSubscription(connect(t.origin, adminToken));
    // Both subscriptions proven live on their own organisation's writes first.
    await primeWith(theirs, () => createApiClient(api, otherToken));
    await primeWith(ours, () => createApiClient(api, adminToken));
    const theirsBefore = theirs.events.length;

    const clientId = await createApiClient(api, adminToken);
    expect(await ours.until(() => ours.events.some((e) => e.entityId === clientId), 10_000)).toBe(true);
    // Then a write of their own: entries reach a subscription in commit order, so once theirs has arrived, a misrouted
    // copy of ours would have arrived before it.
    const theirOwn = await createApiClient(api, otherToken);
    expect(await theirs.until(() => theirs.events.some((e) => e.entityId === theirOwn), 10_000)).toBe(true);
    expect(theirs.events.slice(theirsBefore).map((e) => e.entityId)).toEqual([theirOwn]);
    expect(theirs.events.every((e) => !e.actorLabel.includes(org.clients.admin.clientId))).toBe(true);
  });

  it('gives an agent token insufficient_scope', async () => {
    const agentToken = await api.token(org.clients.agent.clientId, org.clients.agent.secret);
    const sub = new LiveSubscription(connect(t.origin, agentToken));
    expect(await sub.until(() => sub.errors.length > 0, 10_000)).toBe(true);
    expect(sub.events).toEqual([]);
    expect((sub.errors[0] as { extensions?: { code?: string } }).extensions?.code).toBe('insufficient_scope');

    // Still nothing once a write has happened: the refusal is not just a slow start.
    await heardNothingOf(sub, () => createApiClient(api, adminToken));
  });

  it('refuses a connection with a bad token before anything is subscribed', async () => {
    const closes: number[] = [];
    const client = createClient({
      url: `${t.origin.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: 'Bearer not-a-real-token' },
      retryAttempts: 0,
      on: { closed: (e) => closes.push((e as { code: number }).code) },
    });
    clients.push(client);
    const sub = new LiveSubscription(client);
    expect(await sub.until(() => sub.errors.length > 0, 10_000)).toBe(true);
    expect(sub.events).toEqual([]);
    // An unknown token is REST's 401 invalid_token: the socket closes with 4401 (docs/api-conventions.md "Subscriptions: authorization and limits").
    expect(closes).toContain(4401);
    expect((sub.errors[0] as { code?: number }).code).toBe(4401);
    // The socket is closed: nothing can reach it any more, so there is nothing to wait out.
  });
});

// Outside check, 2026-11-30: Yoga also served subscriptions over HTTP as server-sent events, which nothing re-checks,
// and a token revoked mid-stream kept receiving events. Subscriptions run over WebSocket only.
describe('a subscription over HTTP', () => {
  it.each([
    ['server-sent events', 'text/event-stream'],
    ['plain JSON', 'application/json'],
  ])('(%s) is refused as invalid_request, naming WebSocket, and the stream ends', async (_what, accept) => {
    const r = await fetch(`${t.api.origin}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.tokens.staff}`, 'content-type': 'application/json', accept },
      body: JSON.stringify({ query: 'subscription { events { id name } }' }),
      // A stream left open would never end: the test fails on the timeout rather than hanging.
      signal: AbortSignal.timeout(10_000),
    });
    const text = await r.text();
    expect(text, `${r.status} ${text}`).toContain('invalid_request');
    expect(text).toContain('WebSocket');
    expect(text).not.toMatch(/"events"\s*:\s*\{/);
  });
});
