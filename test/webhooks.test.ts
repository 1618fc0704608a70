import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret, masterKey } from '../src/lib/secret-box.ts';
import { expectProblem, useKit } from './kit.ts';

// Management only: no job runner, so nothing is sent (deliveries are covered by webhooks-delivery.test.ts).
const t = useKit();
const api = t.api;
const org = t.useOrg({ tokens: ['staff'] });
const other = t.useOrg({ tokens: ['staff'] });
let token: string;
let otherToken: string;
beforeAll(() => ([token, otherToken] = [org.tokens.staff, other.tokens.staff]));

const key = () => randomUUID();
async function create(body: Record<string, unknown>, tok = token) {
  return api.post('/webhooks/endpoints', { token: tok, idempotencyKey: key(), body });
}

describe('webhook endpoints over REST', () => {
  it('creates an endpoint, shows the whsec_ secret once, and stores it only encrypted', async () => {
    const r = await create({
      url: 'https://127.0.0.1:9/hooks',
      events: ['payment.received', 'payment.received'],
      description: 'ERP',
    });
    expect(r.status, r.text).toBe(201);
    const d = r.body.data;
    expect(d).toMatchObject({
      url: 'https://127.0.0.1:9/hooks',
      events: ['payment.received'],
      enabled: true,
      description: 'ERP',
      secret_rotated_at: null,
    });
    expect(d.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(d.id).toMatch(/^[0-9a-f-]{36}$/);

    const row = await t.db.tenant(org.id, (tx) => tx.webhookEndpoint.findUniqueOrThrow({ where: { id: d.id } }));
    expect(JSON.stringify(row)).not.toContain(d.secret);
    expect(JSON.stringify(row)).not.toContain(d.secret.slice(6));
    expect(decryptSecret(masterKey(t.app.services.config), row.secretEnc, d.id)).toBe(d.secret);
    // Bound to its row: the same ciphertext does not open under another id.
    expect(() => decryptSecret(masterKey(t.app.services.config), row.secretEnc, randomUUID())).toThrow();

    const read = await api.get(`/webhooks/endpoints/${d.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.data.secret).toBeUndefined();
    expect(read.text).not.toContain(d.secret);
    const list = await api.get('/webhooks/endpoints', { token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => e.id)).toContain(d.id);
    expect(list.text).not.toContain('whsec_');

    const audit = await t.db.tenant(org.id, (tx) =>
      tx.auditLog.findMany({ where: { entityType: 'webhook_endpoint', entityId: d.id } }),
    );
    expect(audit.map((a) => a.action)).toEqual(['webhook_endpoint.created']);
    expect(JSON.stringify(audit.map((a) => a.changes))).not.toContain('whsec_');
  });

  it('replays a create with the secret null and a replay note', async () => {
    const k = key();
    const body = { url: 'https://127.0.0.1:9/replay', events: ['*'] };
    const first = await api.post('/webhooks/endpoints', { token, idempotencyKey: k, body });
    const again = await api.post('/webhooks/endpoints', { token, idempotencyKey: k, body });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.secret).toBeNull();
    expect(again.body.replay_note).toMatch(/shown once/);
  });

  it('requires an Idempotency-Key on writes', async () => {
    const r = await api.post('/webhooks/endpoints', { token, body: { url: 'https://127.0.0.1/x', events: ['*'] } });
    expectProblem(r, 400, 'idempotency_key_required');
  });

  it('refuses invalid input with field errors', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: 'https://u:p@127.0.0.1/x', events: ['*'] }, 'url'],
      [{ url: 'https://127.0.0.1/x', events: [] }, 'events'],
      [{ url: 'https://127.0.0.1/x', events: ['payment.recieved'] }, 'events.0'],
      [{ url: 'https://127.0.0.1/x', events: ['ping'] }, 'events.0'],
      [{ events: ['*'] }, 'url'],
      [{ url: 'https://127.0.0.1/x', events: ['*'], description: 'x'.repeat(501) }, 'description'],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      expectProblem(r, 422, 'validation_failed');
      expect(
        r.body.errors.map((e: any) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
  });

  it('updates url, events, enabled and description, auditing the changes', async () => {
    const c = await create({ url: 'https://127.0.0.1:9/a', events: ['*'] });
    const id = c.body.data.id;
    const r = await api.patch(`/webhooks/endpoints/${id}`, {
      token,
      idempotencyKey: key(),
      body: { url: 'https://127.0.0.1:9/b', events: ['policy.activated'], enabled: false, description: 'paused' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      id,
      url: 'https://127.0.0.1:9/b',
      events: ['policy.activated'],
      enabled: false,
      description: 'paused',
    });
    const audit = await t.db.tenant(org.id, (tx) =>
      tx.auditLog.findFirstOrThrow({ where: { entityId: id, action: 'webhook_endpoint.updated' } }),
    );
    expect(audit.changes).toMatchObject({
      url: { from: 'https://127.0.0.1:9/a', to: 'https://127.0.0.1:9/b' },
      enabled: { from: true, to: false },
    });

    const bad = await api.patch(`/webhooks/endpoints/${id}`, {
      token,
      idempotencyKey: key(),
      body: { events: ['nope'] },
    });
    expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors[0].field).toBe('events.0');
  });

  it('deletes an endpoint (then 404)', async () => {
    const c = await create({ url: 'https://127.0.0.1:9/del', events: ['*'] });
    const id = c.body.data.id;
    const r = await api.call('DELETE', `/webhooks/endpoints/${id}`, { token, idempotencyKey: key() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.id).toBe(id);
    expectProblem(await api.get(`/webhooks/endpoints/${id}`, { token }), 404, 'not_found');
    const audit = await t.db.tenant(org.id, (tx) =>
      tx.auditLog.findMany({ where: { entityId: id, action: 'webhook_endpoint.deleted' } }),
    );
    expect(audit).toHaveLength(1);
  });

  it('rotates the secret: a new secret shown once, the previous one kept for the grace period', async () => {
    const c = await create({ url: 'https://127.0.0.1:9/rot', events: ['*'] });
    const id = c.body.data.id;
    const r = await api.post(`/webhooks/endpoints/${id}/rotate-secret`, {
      token,
      idempotencyKey: key(),
      body: { grace_hours: 2 },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.secret).toMatch(/^whsec_/);
    expect(r.body.data.secret).not.toBe(c.body.data.secret);
    const until = Date.parse(r.body.data.previous_secret_expires_at) - Date.parse(r.body.data.secret_rotated_at);
    expect(until).toBe(2 * 3_600_000);
    const row = await t.db.tenant(org.id, (tx) => tx.webhookEndpoint.findUniqueOrThrow({ where: { id } }));
    const k = masterKey(t.app.services.config);
    expect(decryptSecret(k, row.secretEnc, id)).toBe(r.body.data.secret);
    expect(decryptSecret(k, row.previousSecretEnc!, id)).toBe(c.body.data.secret);

    const bad = await api.post(`/webhooks/endpoints/${id}/rotate-secret`, {
      token,
      idempotencyKey: key(),
      body: { grace_hours: 500 },
    });
    expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors[0].field).toBe('grace_hours');
  });

  it("answers 404 for another organisation's endpoint on every path, and for junk ids", async () => {
    const c = await create({ url: 'https://127.0.0.1:9/mine', events: ['*'] });
    const id = c.body.data.id;
    const calls = [
      () => api.get(`/webhooks/endpoints/${id}`, { token: otherToken }),
      () =>
        api.patch(`/webhooks/endpoints/${id}`, { token: otherToken, idempotencyKey: key(), body: { enabled: false } }),
      () => api.call('DELETE', `/webhooks/endpoints/${id}`, { token: otherToken, idempotencyKey: key() }),
      () => api.post(`/webhooks/endpoints/${id}/rotate-secret`, { token: otherToken, idempotencyKey: key(), body: {} }),
      () => api.post(`/webhooks/endpoints/${id}/test`, { token: otherToken, idempotencyKey: key(), body: {} }),
      () => api.get(`/webhooks/endpoints/${id}/deliveries`, { token: otherToken }),
      () => api.get('/webhooks/endpoints/not-a-uuid', { token }),
      () => api.post(`/webhooks/deliveries/${randomUUID()}/retry`, { token, idempotencyKey: key() }),
    ];
    for (const call of calls) expectProblem(await call(), 404, 'not_found');
    const list = await api.get('/webhooks/endpoints', { token: otherToken });
    expect(list.body.data.map((e: any) => e.id)).not.toContain(id);
    // Still there and unchanged for its owner.
    expect((await api.get(`/webhooks/endpoints/${id}`, { token })).body.data.enabled).toBe(true);
  });

  it('requires the webhooks scope', async () => {
    const agentToken = await api.token(org.clients.agent.clientId, org.clients.agent.secret);
    expectProblem(await api.get('/webhooks/endpoints', { token: agentToken }), 403, 'insufficient_scope');
    expectProblem(await create({ url: 'https://127.0.0.1/x', events: ['*'] }, agentToken), 403, 'insufficient_scope');
    const g = await api.gql('{ webhookEndpoints { id } }', {}, { token: agentToken });
    expect(g.body.errors?.[0]?.extensions?.code).toBe('insufficient_scope');
  });

  it('queues a test ping as a delivery of a ping event, and lists it in the delivery log', async () => {
    const c = await create({ url: 'https://127.0.0.1:9/test', events: ['policy.activated'] });
    const id = c.body.data.id;
    const r = await api.post(`/webhooks/endpoints/${id}/test`, { token, idempotencyKey: key(), body: {} });
    expect(r.status, r.text).toBe(202);
    expect(r.body.data).toMatchObject({
      endpoint_id: id,
      event: 'ping',
      status: 'pending',
      attempt_count: 0,
      attempts: [],
    });
    const event = await t.db.tenant(org.id, (tx) =>
      tx.event.findUniqueOrThrow({ where: { id: r.body.data.event_id } }),
    );
    expect(event.data).toEqual({ message: 'Test event from Bima Gateway', sent_by: org.users.exec.name });
    const log = await api.get(`/webhooks/endpoints/${id}/deliveries`, { token });
    expect(log.status).toBe(200);
    expect(log.body.data.map((d: any) => d.id)).toEqual([r.body.data.id]);
    expectProblem(await api.get(`/webhooks/endpoints/${id}/deliveries?limit=0`, { token }), 422, 'validation_failed');
    // Only a failed delivery can be retried.
    expectProblem(
      await api.post(`/webhooks/deliveries/${r.body.data.id}/retry`, { token, idempotencyKey: key() }),
      422,
      'domain_rule',
    );
  });
});

describe('webhook endpoints over GraphQL', () => {
  it('creates, reads, updates, rotates, tests and deletes', async () => {
    const created = await api.gql(
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) {
        __typename ... on WebhookEndpointSecretPayload { secret endpoint { id url events enabled } }
        ... on ValidationProblem { fieldErrors { field message } } } }`,
      { input: { url: 'https://127.0.0.1:9/gql', events: ['*'] } },
      { token },
    );
    const p = created.body.data!.createWebhookEndpoint;
    expect(p.__typename).toBe('WebhookEndpointSecretPayload');
    expect(p.secret).toMatch(/^whsec_/);
    const id = p.endpoint.id;

    const invalid = await api.gql(
      `mutation { createWebhookEndpoint(input: {url: "gopher://x", events: ["*"]}) { __typename ... on ValidationProblem { code fieldErrors { field } } } }`,
      {},
      { token },
    );
    expect(invalid.body.data!.createWebhookEndpoint).toEqual({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.url' }],
    });

    const read = await api.gql(
      'query($id: ID!) { webhookEndpoint(id: $id) { url } webhookEndpoints { id } }',
      { id },
      { token },
    );
    expect(read.body.data!.webhookEndpoint.url).toBe('https://127.0.0.1:9/gql');
    expect(read.body.data!.webhookEndpoints.map((e: any) => e.id)).toContain(id);

    const upd = await api.gql(
      'mutation($input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $input) { ... on WebhookEndpoint { events enabled } } }',
      { input: { id, events: ['payment.received'], enabled: false } },
      { token },
    );
    expect(upd.body.data!.updateWebhookEndpoint).toEqual({ events: ['payment.received'], enabled: false });

    const rot = await api.gql(
      'mutation($id: ID!) { rotateWebhookSecret(id: $id) { ... on WebhookEndpointSecretPayload { secret } } }',
      { id },
      { token },
    );
    expect(rot.body.data!.rotateWebhookSecret.secret).toMatch(/^whsec_/);

    const test = await api.gql(
      'mutation($id: ID!) { sendTestWebhook(id: $id, message: "hi") { ... on WebhookDelivery { status event { name data } } } }',
      { id },
      { token },
    );
    expect(test.body.data!.sendTestWebhook).toMatchObject({
      status: 'pending',
      event: { name: 'ping', data: { message: 'hi' } },
    });
    const deliveries = await api.gql(
      'query($id: ID!) { webhookEndpoint(id: $id) { deliveries { id eventId status } } }',
      { id },
      { token },
    );
    const [only] = deliveries.body.data!.webhookEndpoint.deliveries;
    expect(only.status).toBe('pending');
    const early = await api.gql(
      'mutation($id: ID!) { retryWebhookDelivery(id: $id) { id } }',
      { id: only.id },
      { token },
    );
    expect(early.body.errors?.[0]?.extensions?.code).toBe('domain_rule');

    const foreign = await api.gql('query($id: ID!) { webhookEndpoint(id: $id) { id } }', { id }, { token: otherToken });
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('not_found');

    const del = await api.gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }', { id }, { token });
    expect(del.body.data!.deleteWebhookEndpoint.id).toBe(id);
    const gone = await api.gql('query($id: ID!) { webhookEndpoint(id: $id) { id } }', { id }, { token });
    expect(gone.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});
