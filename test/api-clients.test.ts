import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, useKit, type HttpResult } from './kit.ts';

const t = useKit();
const api = t.api;
// Generous per-token limit: this file makes well over 60 admin calls a minute on one token.
const [org, other] = t.useOrgs([
  { clientOverrides: { admin: { rateLimitPerMinute: 10_000 } }, tokens: ['admin'] },
  { tokens: [] },
]);
let admin: string;
beforeAll(() => (admin = org.tokens.admin));

const API_CLIENT_FIELDS = [
  'actor_user_id',
  'client_id',
  'created_at',
  'created_by_user_id',
  'name',
  'previous_secret_expires_at',
  'rate_limit_per_minute',
  'revoked_at',
  'scopes',
  'secret_rotated_at',
].sort();

const write = (method: 'POST' | 'PATCH', path: string, body?: unknown, token = admin) =>
  api.call(method, path, { token, idempotencyKey: randomUUID(), body });
const create = (body: Record<string, unknown>, token = admin) => write('POST', '/api-clients', body, token);

async function created(body: Record<string, unknown>) {
  const r = await create(body);
  expect(r.status, r.text).toBe(201);
  return { r, client: r.body.data as Record<string, any>, secret: r.body.data.client_secret as string };
}

const tokenStatus = async (clientId: string, secret: string) =>
  (await api.post('/oauth/token', { body: { client_id: clientId, client_secret: secret } })).status;

const audits = (entityId: string | number) =>
  t.db.tenant(org.id, (tx) => tx.auditLog.findMany({ where: { entityId: String(entityId) }, orderBy: { id: 'asc' } }));

/** The audit row of one write: right action, who did it, through which client, in which request; never a secret. */
async function expectAudit(r: HttpResult, entityId: string | number, action: string, secret?: string) {
  const row = (await audits(entityId)).at(-1)!;
  expect(row).toMatchObject({
    action,
    actorType: 'user',
    actorUserId: org.users.admin.id,
    apiClientId: org.clients.admin.id,
    requestId: r.headers.get('x-request-id'),
  });
  if (secret) expect(asText(row)).not.toContain(secret);
  return row;
}

const asText = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

/** Every text column of every row in the database, as PostgreSQL renders the row. */
async function databaseContains(needle: string): Promise<string[]> {
  return t.db.system(async (tx) => {
    const tables = await tx.$queryRaw<{ t: string }[]>`
      SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
    const hits: string[] = [];
    for (const { t: table } of tables) {
      const rows = await tx.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM "${table}" r WHERE strpos(r::text, $1) > 0`,
        needle,
      );
      if (rows[0].n > 0n) hits.push(table);
    }
    return hits;
  });
}

describe('create', () => {
  it('201 with the secret shown once; only an scrypt hash is kept', async () => {
    const { r, client, secret } = await created({ name: 'Partner portal', scopes: ['quote', 'read', 'quote'] });
    expect(Object.keys(client).sort()).toEqual([...API_CLIENT_FIELDS, 'client_secret'].sort());
    expect(client).toMatchObject({
      name: 'Partner portal',
      scopes: ['quote', 'read'],
      rate_limit_per_minute: 60,
      actor_user_id: null,
      created_by_user_id: org.users.admin.id,
      revoked_at: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    });
    expect(client.client_id).toMatch(/^bgc_[0-9a-f]+$/);
    expect(secret).toMatch(/^bgs_[A-Za-z0-9_-]{40,}$/);
    expect(new Date(client.created_at).toISOString()).toBe(client.created_at);

    const row = await t.db.tenant(org.id, (tx) =>
      tx.apiClient.findUniqueOrThrow({ where: { clientId: client.client_id } }),
    );
    expect(row.secretHash).toMatch(/^scrypt\$/);
    expect(Object.values(row)).not.toContain(secret);
    // The scan does find what is stored (the public id), so its empty answer for the secret means something.
    expect(await databaseContains(client.client_id)).toEqual(
      expect.arrayContaining(['api_clients', 'audit_logs', 'idempotency_keys']),
    );
    expect(await databaseContains(secret)).toEqual([]);

    // The secret works, and without an actor the key acts as its creator.
    const token = await api.token(client.client_id, secret);
    const me = await api.get('/me', { token });
    expect(me.body.data).toMatchObject({ scopes: ['quote', 'read'], actor: { id: org.users.admin.id, role: 'admin' } });

    const audit = await expectAudit(r, client.client_id, 'api_client.created', secret);
    expect(audit).toMatchObject({
      entityType: 'api_client',
      // Shown as the deployment's default (60 here), stored as no limit of its own: it follows the default.
      changes: { name: 'Partner portal', scopes: ['quote', 'read'], actor_user_id: null, rate_limit_per_minute: null },
    });
  });

  it('takes an acting user and a rate limit', async () => {
    const { client, secret } = await created({
      name: 'Agent app',
      scopes: ['read'],
      actor_user_id: org.users.agent1.id,
      rate_limit_per_minute: 7,
    });
    expect(client).toMatchObject({ actor_user_id: org.users.agent1.id, rate_limit_per_minute: 7 });
    const me = await api.get('/me', { token: await api.token(client.client_id, secret) });
    expect(me.body.data.actor).toMatchObject({ id: org.users.agent1.id, own_records_only: true });
    expect(me.body.data.client.rate_limit_per_minute).toBe(7);
  });

  it.each([
    ['an empty name', { name: '  ', scopes: ['read'] }, ['name']],
    ['an unknown scope', { name: 'x', scopes: ['read', 'superuser'] }, ['scopes.1']],
    ['no scopes', { name: 'x', scopes: [] }, ['scopes']],
    ['rate limit 0', { name: 'x', scopes: ['read'], rate_limit_per_minute: 0 }, ['rate_limit_per_minute']],
    ['a fractional rate limit', { name: 'x', scopes: ['read'], rate_limit_per_minute: 2.5 }, ['rate_limit_per_minute']],
    ['an unknown actor', { name: 'x', scopes: ['read'], actor_user_id: 2_000_000_000 }, ['actor_user_id']],
    ['nothing at all', {}, ['name', 'scopes']],
  ])('422 validation_failed with field errors for %s, and nothing created', async (_what, body, fields) => {
    const before = await t.db.tenant(org.id, (tx) => tx.apiClient.count());
    const r = await create(body);
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(fields);
    for (const e of r.body.errors) expect(e.message).toEqual(expect.any(String));
    expect(await t.db.tenant(org.id, (tx) => tx.apiClient.count())).toBe(before);
  });

  it("refuses another organisation's user as actor: it is not visible here", async () => {
    const r = await create({ name: 'Sneaky', scopes: ['read'], actor_user_id: other.users.exec.id });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual([{ field: 'actor_user_id', message: expect.stringMatching(/no active user/) }]);
  });

  it('needs scope admin (403 insufficient_scope) and an admin acting user (403 actor_forbidden)', async () => {
    const staff = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    expectProblem(await api.get('/api-clients', { token: staff }), 403, 'insufficient_scope');
    expectProblem(await create({ name: 'x', scopes: ['read'] }, staff), 403, 'insufficient_scope');

    // Scope admin but acting as an account executive: reads are scope business, writes are the actor's.
    const { client, secret } = await created({
      name: 'Exec with admin scope',
      scopes: ['read', 'admin'],
      actor_user_id: org.users.exec.id,
    });
    const execAdmin = await api.token(client.client_id, secret);
    expect((await api.get('/api-clients', { token: execAdmin })).status).toBe(200);
    expectProblem(await create({ name: 'x', scopes: ['read'] }, execAdmin), 403, 'actor_forbidden');
  });
});

describe('list and get', () => {
  it("lists the organisation's clients newest first, without secrets; get returns the same record", async () => {
    const { client } = await created({ name: 'Listed client', scopes: ['read'] });
    const r = await api.get('/api-clients', { token: admin });
    expect(r.status).toBe(200);
    const rows = r.body.data;
    expect(rows[0]).toEqual((({ client_secret: _s, ...c }) => c)(client));
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(API_CLIENT_FIELDS);
    const ids = rows.map((c: any) => c.client_id);
    for (const c of Object.values(org.clients)) expect(ids).toContain(c.clientId);
    for (const c of Object.values(other.clients)) expect(ids).not.toContain(c.clientId);
    const times = rows.map((c: any) => Date.parse(c.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const one = await api.get(`/api-clients/${client.client_id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ data: rows[0] });
  });

  it("404 for an unknown id and for another organisation's client", async () => {
    expectProblem(await api.get('/api-clients/bgc_000000000000000000000000', { token: admin }), 404, 'not_found');
    expectProblem(await api.get(`/api-clients/${other.clients.staff.clientId}`, { token: admin }), 404, 'not_found');
  });
});

describe('update', () => {
  it('changes name, scopes, acting user and rate limit; the audit row holds {field: {from, to}}', async () => {
    const { client, secret } = await created({ name: 'Before', scopes: ['read', 'quote'] });
    const issued = await api.token(client.client_id, secret);
    const r = await write('PATCH', `/api-clients/${client.client_id}`, {
      name: 'After',
      scopes: ['read'],
      actor_user_id: org.users.exec.id,
      rate_limit_per_minute: 120,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      client_id: client.client_id,
      name: 'After',
      scopes: ['read'],
      actor_user_id: org.users.exec.id,
      rate_limit_per_minute: 120,
    });
    const audit = await expectAudit(r, client.client_id, 'api_client.updated');
    expect(audit.changes).toEqual({
      name: { from: 'Before', to: 'After' },
      scopes: { from: ['quote', 'read'], to: ['read'] },
      actor_user_id: { from: null, to: org.users.exec.id },
      rate_limit_per_minute: { from: null, to: 120 },
    });

    // A token issued before the change is bound by it at once.
    const me = await api.get('/me', { token: issued });
    expect(me.body.data).toMatchObject({
      scopes: ['read'],
      client: { name: 'After', rate_limit_per_minute: 120 },
      actor: { id: org.users.exec.id },
    });
  });

  it('a patch that changes nothing leaves no audit row', async () => {
    const { client } = await created({ name: 'Steady', scopes: ['read'] });
    const r = await write('PATCH', `/api-clients/${client.client_id}`, { name: 'Steady' });
    expect(r.status).toBe(200);
    expect((await audits(client.client_id)).map((a) => a.action)).toEqual(['api_client.created']);
  });

  it('404 for an unknown id; 422 for invalid values', async () => {
    expectProblem(await write('PATCH', '/api-clients/bgc_nope', { name: 'x' }), 404, 'not_found');
    const { client } = await created({ name: 'Valid', scopes: ['read'] });
    const r = await write('PATCH', `/api-clients/${client.client_id}`, { scopes: ['nope'], rate_limit_per_minute: 0 });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['rate_limit_per_minute', 'scopes.0']);
  });
});

describe('rotate-secret', () => {
  it('issues a new secret; the previous one works during the grace period', async () => {
    const { client, secret: first } = await created({ name: 'Rotating', scopes: ['read'] });
    const before = await api.token(client.client_id, first);
    const r = await write('POST', `/api-clients/${client.client_id}/rotate-secret`, { grace_hours: 2 });
    expect(r.status, r.text).toBe(200);
    const second = r.body.data.client_secret;
    expect(second).toMatch(/^bgs_/);
    expect(second).not.toBe(first);
    expect(r.body.data.secret_rotated_at).not.toBeNull();
    const graceMs = Date.parse(r.body.data.previous_secret_expires_at) - Date.parse(r.body.data.secret_rotated_at);
    expect(graceMs).toBe(2 * 3_600_000);

    expect(await tokenStatus(client.client_id, second)).toBe(200);
    expect(await tokenStatus(client.client_id, first)).toBe(200);
    expect((await api.get('/me', { token: before })).status).toBe(200);
    expect(await databaseContains(second)).toEqual([]);

    const audit = await expectAudit(r, client.client_id, 'api_client.secret_rotated', second);
    expect(audit.changes).toEqual({ previous_secret_valid_until: r.body.data.previous_secret_expires_at });
    expect(asText(audit)).not.toContain(first);
  });

  it('with grace_hours 0 the previous secret stops at once', async () => {
    const { client, secret: first } = await created({ name: 'Hard rotation', scopes: ['read'] });
    const r = await write('POST', `/api-clients/${client.client_id}/rotate-secret`, { grace_hours: 0 });
    expect(r.status).toBe(200);
    expect(r.body.data.previous_secret_expires_at).toBeNull();
    expect(await tokenStatus(client.client_id, first)).toBe(401);
    expect(await tokenStatus(client.client_id, r.body.data.client_secret)).toBe(200);
  });

  it('404 for an unknown id; 422 for grace_hours out of range', async () => {
    expectProblem(await write('POST', '/api-clients/bgc_nope/rotate-secret', {}), 404, 'not_found');
    const { client } = await created({ name: 'Grace', scopes: ['read'] });
    const r = await write('POST', `/api-clients/${client.client_id}/rotate-secret`, { grace_hours: 169 });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual([{ field: 'grace_hours', code: 'too_large', message: expect.any(String) }]);
  });
});

describe('revoke', () => {
  it("stops the client's tokens at once and refuses its secret", async () => {
    const { client, secret } = await created({ name: 'Doomed', scopes: ['read'] });
    const token = await api.token(client.client_id, secret);
    expect((await api.get('/me', { token })).status).toBe(200);

    const r = await write('POST', `/api-clients/${client.client_id}/revoke`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.revoked_at).toEqual(expect.any(String));
    expectProblem(await api.get('/me', { token }), 401, 'invalid_token');
    expect((await api.gql('{ me { scopes } }', {}, { token })).body.errors?.[0]?.extensions.code).toBe('invalid_token');
    expect(await tokenStatus(client.client_id, secret)).toBe(401);
    await expectAudit(r, client.client_id, 'api_client.revoked');

    // Revoking again changes nothing and is not audited twice.
    const again = await write('POST', `/api-clients/${client.client_id}/revoke`);
    expect(again.status).toBe(200);
    expect(again.body.data.revoked_at).toBe(r.body.data.revoked_at);
    expect((await audits(client.client_id)).filter((a) => a.action === 'api_client.revoked')).toHaveLength(1);
  });

  it('a client cannot revoke itself (422 domain_rule); unknown ids are 404', async () => {
    expectProblem(await write('POST', `/api-clients/${org.clients.admin.clientId}/revoke`), 422, 'domain_rule');
    expect((await api.get('/me', { token: admin })).status).toBe(200);
    expectProblem(await write('POST', '/api-clients/bgc_nope/revoke'), 404, 'not_found');
    expectProblem(await write('POST', `/api-clients/${other.clients.staff.clientId}/revoke`), 404, 'not_found');
  });
});

describe('agent keys', () => {
  it('issues a key that works in X-Agent-Key and replaces the old one', async () => {
    const agent = org.agents[1];
    const staff = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    const asAgent = (key: string) =>
      api.get('/me', { token: staff, headers: { 'x-agent-code': agent.code, 'x-agent-key': key } });
    expect((await asAgent(agent.key)).status).toBe(200);

    const r = await write('POST', `/sales-people/${agent.userId}/agent-key`);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toEqual({ user_id: agent.userId, code: agent.code, key: expect.stringMatching(/^bak_/) });
    const key = r.body.data.key;

    const me = await asAgent(key);
    expect(me.status).toBe(200);
    expect(me.body.data.actor).toMatchObject({
      id: agent.userId,
      code: agent.code,
      role: 'agent',
      own_records_only: true,
    });
    expectProblem(await asAgent(agent.key), 403, 'agent_denied');

    const audit = await expectAudit(r, agent.userId, 'agent.key_issued', key);
    expect(audit).toMatchObject({ entityType: 'user', changes: { agent_code: agent.code } });
    expect(await databaseContains(key)).toEqual([]);
  });

  it('422 domain_rule for a user who is not an agent; 404 for unknown or foreign users', async () => {
    expectProblem(await write('POST', `/sales-people/${org.users.exec.id}/agent-key`), 422, 'domain_rule');
    expectProblem(await write('POST', '/sales-people/2000000000/agent-key'), 404, 'not_found');
    // A path id not written as a whole number is refused on the path's own name (it was `user_id`).
    const padded = await write('POST', `/sales-people/00${org.users.exec.id}/agent-key`);
    expectProblem(padded, 422, 'validation_failed', 'id');
    expect(padded.body.errors).toContainEqual(expect.objectContaining({ field: 'id', code: 'not_a_whole_number' }));
    expectProblem(await write('POST', `/sales-people/${other.users.agent1.id}/agent-key`), 404, 'not_found');
  });
});

describe('GraphQL', () => {
  const CREATE = `mutation($input: CreateApiClientInput!) {
    createApiClient(input: $input) {
      __typename
      ... on ApiClientSecretPayload { clientSecret apiClient { clientId name scopes rateLimitPerMinute } }
      ... on ValidationProblem { code status fieldErrors { field message } }
    }
  }`;

  it('createApiClient returns ApiClientSecretPayload, audited with the GraphQL request id', async () => {
    const r = await api.gql(
      CREATE,
      { input: { name: 'Via GraphQL', scopes: ['read'], rateLimitPerMinute: 30 } },
      { token: admin },
    );
    const out = r.body.data.createApiClient;
    expect(out).toMatchObject({
      __typename: 'ApiClientSecretPayload',
      apiClient: { name: 'Via GraphQL', scopes: ['read'], rateLimitPerMinute: 30 },
    });
    expect(out.clientSecret).toMatch(/^bgs_/);
    expect(await tokenStatus(out.apiClient.clientId, out.clientSecret)).toBe(200);
    const [audit] = await audits(out.apiClient.clientId);
    expect(audit).toMatchObject({
      action: 'api_client.created',
      actorUserId: org.users.admin.id,
      requestId: r.headers.get('x-request-id'),
    });
  });

  it('a validation failure is a ValidationProblem result in GraphQL spelling', async () => {
    const r = await api.gql(CREATE, { input: { name: '', scopes: ['nope'], rateLimitPerMinute: 0 } }, { token: admin });
    expect(r.body.errors).toBeUndefined();
    const out = r.body.data.createApiClient;
    expect(out).toMatchObject({ __typename: 'ValidationProblem', code: 'validation_failed', status: 422 });
    expect(out.fieldErrors.map((e: { field: string }) => e.field).sort()).toEqual([
      'input.name',
      'input.rateLimitPerMinute',
      'input.scopes.0',
    ]);
  });

  it('auditLog lists entries newest first, for staff only', async () => {
    const { client } = await created({ name: 'Audited', scopes: ['read'] });
    await write('PATCH', `/api-clients/${client.client_id}`, { name: 'Audited twice' });
    await write('POST', `/api-clients/${client.client_id}/rotate-secret`, {});
    await write('POST', `/api-clients/${client.client_id}/revoke`);

    const q = `query($id: String) { auditLog(entityType: "api_client", entityId: $id, first: 10) {
      edges { node { action actorType actorUserId entityId requestId changes createdAt } } } }`;
    const r = await api.gql(q, { id: client.client_id }, { token: admin });
    expect(r.body.errors).toBeUndefined();
    const nodes = r.body.data.auditLog.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.action)).toEqual([
      'api_client.revoked',
      'api_client.secret_rotated',
      'api_client.updated',
      'api_client.created',
    ]);
    expect(nodes[2].changes).toEqual({ name: { from: 'Audited', to: 'Audited twice' } });
    for (const n of nodes)
      expect(n).toMatchObject({ actorType: 'user', actorUserId: org.users.admin.id, entityId: client.client_id });

    const all = await api.gql('{ auditLog(first: 50) { edges { node { id action } } } }', {}, { token: admin });
    const entries = all.body.data.auditLog.edges.map((e: any) => e.node);
    expect(entries[0].action).toBe('api_client.revoked');
    expect(entries.length).toBeGreaterThan(4);

    const agent = await api.token(org.clients.agent.clientId, org.clients.agent.secret);
    const refused = await api.gql('{ auditLog(first: 5) { edges { node { action } } } }', {}, { token: agent });
    expect(refused.body.data ?? null).toBeNull();
    expect(refused.body.errors?.[0]?.extensions.code).toBe('insufficient_scope');
  });
});
