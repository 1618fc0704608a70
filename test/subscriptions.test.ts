import { randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestTenant, type TestTenant } from './factories/tenant.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { Api } from './helpers/http.ts';

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
  const client = createClient({
    url: `${origin.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

let t: TestApp;
let api: Api;
let org: TestTenant;
let adminToken: string;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t.origin);
  org = await createTestTenant(t.db);
  adminToken = await api.token(org.clients.admin.clientId, org.clients.admin.secret);
});
afterAll(() => t?.stop());

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

  it("refuses a staff key without scope admin: the audit trail holds every client's personal data", async () => {
    const staffToken = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    const sub = new LiveSubscription(connect(t.origin, staffToken));
    expect(await sub.until(() => sub.errors.length > 0, 10_000)).toBe(true);
    expect((sub.errors[0] as { extensions?: { code?: string } }).extensions?.code).toBe('insufficient_scope');
    await createApiClient(api, adminToken);
    await sub.until(() => sub.events.length > 0, 500);
    expect(sub.events).toEqual([]);
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
    const other = await createTestTenant(t.db);
    const otherToken = await api.token(other.clients.admin.clientId, other.clients.admin.secret);
    const theirs = new LiveSubscription(connect(t.origin, otherToken));
    const ours = new LiveSubscription(connect(t.origin, adminToken));
    // Both subscriptions proven live on their own organisation's writes first.
    await primeWith(theirs, () => createApiClient(api, otherToken));
    await primeWith(ours, () => createApiClient(api, adminToken));
    const theirsBefore = theirs.events.length;

    const clientId = await createApiClient(api, adminToken);
    expect(await ours.until(() => ours.events.some((e) => e.entityId === clientId), 10_000)).toBe(true);
    // The positive control has arrived; give a misrouted copy a bounded chance to arrive as well.
    await theirs.until(() => theirs.events.length > theirsBefore, 1_000);
    expect(theirs.events.slice(theirsBefore)).toEqual([]);
    expect(theirs.events.every((e) => !e.actorLabel.includes(org.clients.admin.clientId))).toBe(true);
  });

  it('gives an agent token insufficient_scope', async () => {
    const agentToken = await api.token(org.clients.agent.clientId, org.clients.agent.secret);
    const sub = new LiveSubscription(connect(t.origin, agentToken));
    expect(await sub.until(() => sub.errors.length > 0, 10_000)).toBe(true);
    expect(sub.events).toEqual([]);
    expect((sub.errors[0] as { extensions?: { code?: string } }).extensions?.code).toBe('insufficient_scope');

    // Still nothing once a write has happened: the refusal is not just a slow start.
    await createApiClient(api, adminToken);
    await sub.until(() => sub.events.length > 0, 500);
    expect(sub.events).toEqual([]);
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
    // An unknown token is REST's 401 invalid_token: the socket closes with 4401 (README "Subscriptions: authorization and limits").
    expect(closes).toContain(4401);
    expect((sub.errors[0] as { code?: number }).code).toBe(4401);

    await createApiClient(api, adminToken);
    await sub.until(() => sub.events.length > 0, 500);
    expect(sub.events).toEqual([]);
  });
});
