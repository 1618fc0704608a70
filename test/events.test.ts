import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/modules/events/catalogue.ts';
import { emitEvent } from '../src/modules/events/event.service.ts';
import { dispatchEvent, findStranded } from '../src/modules/webhooks/dispatch.service.ts';
import { paymentReceivedData } from './helpers/events.ts';
import { useKit, wsClient } from './kit.ts';

// No job runner here: dispatch is driven directly, so the outbox sweep can be observed step by step.
const t = useKit();
const api = t.api;
const org = t.useOrg({ tokens: ['staff'] });
const other = t.useOrg({ tokens: [] });
let token: string;
beforeAll(() => (token = org.tokens.staff));

const policyData = () => ({
  policy_no: 'MTR-2026-000001',
  policy_uuid: randomUUID(),
  client_no: 'C-000001',
  status: 'active',
  activated_at: new Date().toISOString(),
  cover_start: '2026-12-01',
  cover_end: '2027-11-30',
  insurer: 'Simba Assurance',
  premium: { amount: 45_243, amount_minor: 4_524_250 },
  receipt_no: 'RCT-000001',
  checkout_request_id: 'ws_CO_1',
});

describe('event catalogue', () => {
  it('lists every event with its JSON schema over REST (scope read)', async () => {
    const readonly = await api.token(org.clients.readonly.clientId, org.clients.readonly.secret);
    const r = await api.get('/events/catalogue', { token: readonly });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((e: any) => e.name)).toEqual([
      'payment.received',
      'payment.unmatched',
      'policy.activated',
      'policy.endorsed',
      'policy.cancelled',
      'policy.reinstated',
      'policy.expired',
      'policy.lapsed',
      'policy.not_taken_up',
      'policy.renewed',
      'policy.renewal_due',
      'certificate.issued',
      'certificate.failed',
      'certificate.cancelled',
      'client.phone_changed',
      'claim.registered',
      'claim.moved',
      'claim.approved',
      'claim.settled',
      'claim.sla_breached',
      'prospect.follow_up_due',
      'ipf.decided',
      'ipf.funded',
      'ipf.instalment_overdue',
      'ipf.defaulted',
      'ipf.settled',
      'sandbox.clock_ready',
    ]);
    for (const e of r.body.data) expect(e.schema.type, e.name).toBe('object');
    const payment = r.body.data[0];
    expect(payment.description).toMatch(/receipt/);
    expect(payment.schema.type).toBe('object');
    expect(payment.schema.required).toEqual(
      expect.arrayContaining([
        'amount',
        'amount_minor',
        'receipt_no',
        'checkout_request_id',
        'policy_no',
        'policy_uuid',
        'client_no',
      ]),
    );
    expect(r.body.data[1].schema.required).toEqual(
      expect.arrayContaining(['transaction_ref', 'amount_minor', 'phone', 'found_via', 'reason']),
    );
    expect(r.body.data[2].schema.required).toEqual(
      expect.arrayContaining(['policy_no', 'policy_uuid', 'client_no', 'premium']),
    );
    // ping is a test event, not part of the catalogue (spec).
    expect(r.text).not.toContain('"ping"');
  });

  it('is the same over GraphQL', async () => {
    const g = await api.gql('{ eventCatalogue { name description schema } }', {}, { token });
    expect(g.body.errors).toBeUndefined();
    const rest = await api.get('/events/catalogue', { token });
    expect(g.body.data!.eventCatalogue).toEqual(rest.body.data);
  });

  it('is in the OpenAPI document', async () => {
    const r = await api.get('/openapi.json');
    expect(r.body.paths['/events/catalogue'].get['x-scopes']).toEqual(['read']);
    for (const p of [
      '/webhooks/endpoints',
      '/webhooks/endpoints/{id}',
      '/webhooks/endpoints/{id}/rotate-secret',
      '/webhooks/endpoints/{id}/deliveries',
      '/webhooks/endpoints/{id}/test',
      '/webhooks/deliveries/{id}/retry',
    ]) {
      expect(
        Object.values(r.body.paths[p]).every((op: any) => op['x-scopes'][0] === 'webhooks'),
        p,
      ).toBe(true);
    }
  });
});

describe('emitEvent (the outbox)', () => {
  it('refuses data that does not match the catalogue schema, and unknown names, writing nothing', async () => {
    const bad = { ...policyData(), premium: { amount: 1 } };
    await expect(
      t.db.tenant(org.id, (tx) => emitEvent(t.app.services, tx, org.id, 'policy.activated', bad)),
    ).rejects.toThrow();
    await expect(
      t.db.tenant(org.id, (tx) => emitEvent(t.app.services, tx, org.id, 'policy.exploded', {})),
    ).rejects.toThrow(/unknown event/);
    expect(CATALOGUE['policy.activated'].data.safeParse(policyData()).success).toBe(true);
  });

  it("writes the event in the caller's transaction: a rollback leaves no event", async () => {
    let id = '';
    await expect(
      t.db.tenant(org.id, async (tx) => {
        id = (await emitEvent(t.app.services, tx, org.id, 'policy.activated', policyData())).id;
        throw new Error('business rule failed later');
      }),
    ).rejects.toThrow('business rule');
    expect(await t.db.system((tx) => tx.event.findUnique({ where: { id } }))).toBeNull();
  });

  it('the sweep finds an event stranded before dispatch, and dispatching it is idempotent', async () => {
    const ep = await api.post('/webhooks/endpoints', {
      token,
      idempotencyKey: randomUUID(),
      body: { url: 'http://127.0.0.1:9/x', events: ['policy.activated'] },
    });
    expect(ep.status).toBe(201);
    // As if the process died right after the commit: nobody turned the event into deliveries.
    const ev = await t.db.tenant(org.id, (tx) =>
      emitEvent(t.app.services, tx, org.id, 'policy.activated', policyData()),
    );
    await t.db.system((tx) =>
      tx.event.update({ where: { id: ev.id }, data: { createdAt: new Date(Date.now() - 120_000) } }),
    );
    expect((await findStranded(t.app.services)).events).toContain(ev.id);
    // Written before the runner began to listen, it is unheard (the sweep's ordinary path, logged at info); written
    // after, it was announced and lost (logged at warn).
    const since = (ms: number) => new Date(Date.now() - ms);
    expect((await findStranded(t.app.services, new Date(), since(60_000))).unheard).toContain(ev.id);
    expect((await findStranded(t.app.services, new Date(), since(600_000))).unheard).not.toContain(ev.id);
    expect((await findStranded(t.app.services)).unheard).toEqual([]);
    const first = await dispatchEvent(t.app.services, ev.id);
    expect(first).toHaveLength(1);
    expect(await dispatchEvent(t.app.services, ev.id)).toEqual([]);
    expect((await findStranded(t.app.services)).events).not.toContain(ev.id);
    const rows = await t.db.system((tx) => tx.webhookDelivery.findMany({ where: { eventId: ev.id } }));
    expect(rows.map((r) => [r.id, r.endpointId, r.status])).toEqual([[first[0], ep.body.data.id, 'pending']]);
    // The delivery's job was lost too: once overdue, the sweep re-sends it.
    await t.db.system((tx) =>
      tx.webhookDelivery.update({ where: { id: first[0] }, data: { nextAttemptAt: new Date(Date.now() - 180_000) } }),
    );
    expect((await findStranded(t.app.services)).deliveries).toContain(first[0]);
  });
});

describe('events subscription', () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
  });
  function subscribe(tok: string, query: string) {
    const client = wsClient(t.origin, tok);
    clients.push(client);
    const got: any[] = [];
    const errors: unknown[] = [];
    client.subscribe(
      { query },
      {
        next: (r) => (r.errors ? errors.push(...r.errors) : got.push((r.data as any).events)),
        error: (e) => errors.push(e),
        complete: () => undefined,
      },
    );
    return { got, errors };
  }
  async function until(cond: () => boolean, ms = 10_000) {
    const deadline = Date.now() + ms;
    while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return cond();
  }
  const emitIn = async (tenantId: number, name: string, data: Record<string, unknown>) =>
    (await t.db.tenant(tenantId, (tx) => emitEvent(t.app.services, tx, tenantId, name, data))).id;
  /** graphql-ws has no "subscribed" acknowledgement: emit until the subscriber hears one, then it is live. */
  async function prime(s: { got: any[]; errors: unknown[] }, emit: () => Promise<string>) {
    const emitted: string[] = [];
    for (let i = 0; i < 20 && s.got.length === 0; i++) {
      emitted.push(await emit());
      await until(() => s.got.length > 0, 500);
    }
    expect(s.errors).toEqual([]);
    expect(emitted).toContain(s.got[0].id);
  }
  const paymentFor = paymentReceivedData;

  it('delivers an emitted event live, filtered by name and never to another organisation', async () => {
    const all = subscribe(token, 'subscription { events { id name data createdAt } }');
    const onlyPayments = subscribe(token, 'subscription { events(names: ["payment.received"]) { id name } }');
    const otherToken = await api.token(other.clients.staff.clientId, other.clients.staff.secret);
    const foreign = subscribe(otherToken, 'subscription { events { id } }');
    // Each subscriber proven live on something it may hear, before anything it must not.
    await prime(all, () => emitIn(org.id, 'policy.activated', policyData()));
    await prime(onlyPayments, () => emitIn(org.id, 'payment.received', paymentFor('C-000001')));
    await prime(foreign, () => emitIn(other.id, 'policy.activated', policyData()));
    expect(all.got[0]).toMatchObject({
      name: 'policy.activated',
      data: { status: 'active', premium: { amount: 45_243, amount_minor: 4_524_250 } },
    });

    // One event neither of the others may hear, then one each of them may: events reach a subscription in commit
    // order, so once the later one has arrived, the first was held back (no waiting out a timer).
    const activated = await emitIn(org.id, 'policy.activated', policyData());
    const payment = await emitIn(org.id, 'payment.received', paymentFor('C-000001'));
    const theirs = await emitIn(other.id, 'policy.activated', policyData());
    expect(await until(() => all.got.some((e) => e.id === payment))).toBe(true);
    expect(all.got.map((e) => e.id)).toContain(activated);
    expect(await until(() => onlyPayments.got.some((e) => e.id === payment))).toBe(true);
    expect(onlyPayments.got.map((e) => e.name)).toEqual(onlyPayments.got.map(() => 'payment.received'));
    expect(await until(() => foreign.got.some((e) => e.id === theirs))).toBe(true);
    expect(foreign.got.map((e) => e.id)).not.toContain(activated);
    expect(foreign.got.map((e) => e.id)).not.toContain(payment);
    expect(foreign.errors).toEqual([]);
  });

  it('tells an agent only of events about records it may see', async () => {
    // In the factory's organisation C-000001 is sold by agent1 (the agent client's actor) and C-000002 by agent2.
    const emit = (clientNo: string) => emitIn(org.id, 'payment.received', paymentFor(clientNo));
    const agentToken = await api.token(org.clients.agent.clientId, org.clients.agent.secret);
    const s = subscribe(agentToken, 'subscription { events { id name } }');
    await prime(s, () => emit('C-000001'));
    // Events reach a subscriber in commit order: once the later visible one has arrived, the hidden one was skipped.
    const hidden = await emit('C-000002');
    const later = await emit('C-000001');
    expect(await until(() => s.got.some((e) => e.id === later))).toBe(true);
    expect(s.got.map((e) => e.id)).not.toContain(hidden);
    // A policy event about a policy the agent cannot see is skipped too.
    const foreignPolicy = await emitIn(org.id, 'policy.activated', policyData());
    const last = await emit('C-000001');
    expect(await until(() => s.got.some((e) => e.id === last))).toBe(true);
    expect(s.got.map((e) => e.id)).not.toContain(foreignPolicy);
  });
});
