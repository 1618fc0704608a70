import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/lib/crypto.ts';
import { expectProblem, useKit, type TestTenant } from './kit.ts';

const t = useKit();
const api = t.api;
/** Shared, never mutated: tests that disable, suspend or revoke something make their own organisation. */
const org = t.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 77 } } });
let staffToken: string;
let agentToken: string;
let readonlyToken: string;
let adminToken: string;
beforeAll(() => ({ staff: staffToken, agent: agentToken, readonly: readonlyToken, admin: adminToken } = org.tokens));

const ME = '{ me { client { id } scopes actor { id role code ownRecordsOnly } } }';

/** GraphQL carries the same code; failures while building the context (token, agent headers) also set the HTTP status. */
async function expectGqlError(
  query: string,
  o: { token?: string; headers?: Record<string, string> },
  code: string,
  status?: number,
) {
  const r = await api.gql(query, {}, o);
  if (status !== undefined) expect(r.status).toBe(status);
  expect(r.body.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe(code);
  return r;
}

const agentHeaders = (a: { code: string; key: string }) => ({ 'x-agent-code': a.code, 'x-agent-key': a.key });

describe('bearer token', () => {
  it('401 unauthenticated without Authorization', async () => {
    expectProblem(await api.get('/me'), 401, 'unauthenticated');
    await expectGqlError(ME, {}, 'unauthenticated');
  });

  it('401 invalid_token for a malformed Authorization header', async () => {
    for (const authorization of [
      'Token abc',
      'Bearer',
      'Bearer two words',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
    ]) {
      expectProblem(await api.get('/me', { headers: { authorization } }), 401, 'invalid_token');
    }
    await expectGqlError(ME, { headers: { authorization: 'Token abc' } }, 'invalid_token', 401);
  });

  it('401 invalid_token for an unknown token', async () => {
    expectProblem(await api.get('/me', { token: 'bgt_not-a-real-token' }), 401, 'invalid_token');
    // A token is not its hash: sending the stored form must not authenticate.
    expectProblem(await api.get('/me', { token: sha256Hex(staffToken) }), 401, 'invalid_token');
    await expectGqlError(ME, { token: 'bgt_not-a-real-token' }, 'invalid_token', 401);
  });

  it('401 invalid_token for an expired token', async () => {
    const c = org.clients.readonly;
    const token = await api.token(c.clientId, c.secret);
    expect((await api.get('/me', { token })).status).toBe(200);
    await t.db.system((tx) =>
      tx.accessToken.update({
        where: { tokenHash: sha256Hex(token) },
        data: { expiresAt: new Date(Date.now() - 1000) },
      }),
    );
    await t.heard();
    expectProblem(await api.get('/me', { token }), 401, 'invalid_token');
    await expectGqlError(ME, { token }, 'invalid_token', 401);
    // Other tokens of the same client are unaffected.
    expect((await api.get('/me', { token: readonlyToken })).status).toBe(200);
  });

  it('401 invalid_token for a revoked token', async () => {
    const c = org.clients.readonly;
    const token = await api.token(c.clientId, c.secret);
    await t.db.system((tx) =>
      tx.accessToken.update({ where: { tokenHash: sha256Hex(token) }, data: { revokedAt: new Date() } }),
    );
    await t.heard();
    expectProblem(await api.get('/me', { token }), 401, 'invalid_token');
  });

  it('401 invalid_token for a token of a revoked client', async () => {
    const o = await t.newOrg({ tokens: ['staff'] });
    const token = o.tokens.staff;
    expect((await api.get('/me', { token })).status).toBe(200);
    await t.db.system((tx) =>
      tx.apiClient.update({ where: { id: o.clients.staff.id }, data: { revokedAt: new Date() } }),
    );
    await t.heard();
    expectProblem(await api.get('/me', { token }), 401, 'invalid_token');
    await expectGqlError(ME, { token }, 'invalid_token', 401);
  });

  it('401 tenant_inactive for a token issued before its organisation was suspended', async () => {
    const o = await t.newOrg({ tokens: ['staff'] });
    const token = o.tokens.staff;
    expect((await api.get('/me', { token })).status).toBe(200);
    await t.db.system((tx) => tx.tenant.update({ where: { id: o.id }, data: { status: 'suspended' } }));
    await t.heard();
    const r = await api.get('/me', { token });
    expectProblem(r, 401, 'tenant_inactive');
    expect(r.body.detail).toContain(o.code);
    await expectGqlError(ME, { token }, 'tenant_inactive', 401);
    // Everyone else's tokens still work.
    expect((await api.get('/me', { token: staffToken })).status).toBe(200);
  });

  it("401 actor_disabled for a token whose key's actor was disabled after issue", async () => {
    const o = await t.newOrg({ tokens: ['staff', 'readonly'] });
    const [token, other] = [o.tokens.staff, o.tokens.readonly];
    await t.db.system((tx) => tx.user.update({ where: { id: o.users.exec.id }, data: { disabled: true } }));
    await t.heard();
    expectProblem(await api.get('/me', { token }), 401, 'actor_disabled');
    await expectGqlError(ME, { token }, 'actor_disabled', 401);
    expect((await api.get('/me', { token: other })).status).toBe(200);
  });
});

describe('GET /me', () => {
  it('returns every field of the Identity table for a staff client', async () => {
    const r = await api.get('/me', { token: staffToken, headers: { 'x-request-id': 'trace-me-0001' } });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const { tenant, client, tok } = await t.db.system(async (tx) => ({
      tenant: await tx.tenant.findUniqueOrThrow({ where: { id: org.id } }),
      client: await tx.apiClient.findUniqueOrThrow({ where: { id: org.clients.staff.id } }),
      tok: await tx.accessToken.findUniqueOrThrow({ where: { tokenHash: sha256Hex(staffToken) } }),
    }));
    const d = r.body.data;
    expect(d).toEqual({
      client: { id: org.clients.staff.clientId, name: client.name, rate_limit_per_minute: 77 },
      tenant: { code: org.code, name: tenant.name, type: 'brokerage', paybill: tenant.paybill },
      scopes: ['bind', 'crm', 'quote', 'read', 'webhooks'],
      actor: {
        id: org.users.exec.id,
        name: org.users.exec.name,
        role: 'account_exec',
        code: null,
        own_records_only: false,
      },
      token: { expires_at: expect.any(String), expires_in: expect.any(Number) },
      request_id: 'trace-me-0001',
    });
    expect(r.headers.get('x-request-id')).toBe('trace-me-0001');
    expect(new Date(d.token.expires_at).getTime()).toBe(tok.expiresAt.getTime());
    expect(d.token.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    expect(Number.isInteger(d.token.expires_in)).toBe(true);
    expect(d.token.expires_in).toBeGreaterThan(0);
    expect(d.token.expires_in).toBeLessThanOrEqual(86400);
  });

  it('request_id equals the generated X-Request-Id when the caller sends none', async () => {
    const r = await api.get('/me', { token: staffToken });
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.body.data.request_id).toBe(r.headers.get('x-request-id'));
  });

  it('an agent client acts as its agent and sees only own records', async () => {
    const r = await api.get('/me', { token: agentToken });
    expect(r.status).toBe(200);
    expect(r.body.data.actor).toEqual({
      id: org.users.agent1.id,
      name: org.users.agent1.name,
      role: 'agent',
      code: org.users.agent1.agentCode,
      own_records_only: true,
    });
    expect(r.body.data.actor.code).toBe(org.agents[0].code);
  });

  it('GraphQL me reports the same identity', async () => {
    const r = await api.gql(ME, {}, { token: agentToken });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.me).toEqual({
      client: { id: org.clients.agent.clientId },
      scopes: ['bind', 'crm', 'quote', 'read'],
      actor: { id: org.users.agent1.id, role: 'agent', code: org.users.agent1.agentCode, ownRecordsOnly: true },
    });
  });
});

describe('scopes', () => {
  it('403 insufficient_scope for a read-only client on an admin endpoint', async () => {
    const r = await api.get('/api-clients', { token: readonlyToken });
    expectProblem(r, 403, 'insufficient_scope');
    expect(r.body.required_scopes).toEqual(['admin']);
    await expectGqlError('{ apiClients { clientId } }', { token: readonlyToken }, 'insufficient_scope');
    const ok = await api.gql('{ apiClients { clientId } }', {}, { token: adminToken });
    expect(ok.body.errors).toBeUndefined();
  });

  it('removing a scope from the key binds tokens already issued; adding one back does not widen them', async () => {
    const o = await t.newOrg({ tokens: ['admin', 'staff'] });
    const { admin, staff } = o.tokens;
    const patch = (scopes: string[]) =>
      api.patch(`/api-clients/${o.clients.staff.clientId}`, {
        token: admin,
        body: { scopes },
        idempotencyKey: randomUUID(),
      });

    let p = await patch(['read', 'quote']);
    expect(p.status, p.text).toBe(200);
    expect(p.body.data.scopes).toEqual(['quote', 'read']);
    expect((await api.get('/me', { token: staff })).body.data.scopes).toEqual(['quote', 'read']);

    p = await patch(['quote']);
    expect(p.status).toBe(200);
    expectProblem(await api.get('/me', { token: staff }), 403, 'insufficient_scope');
    await expectGqlError('{ me { scopes } }', { token: staff }, 'insufficient_scope');

    // The token was issued without admin: granting it to the key later must not reach the old token.
    p = await patch(['read', 'quote', 'admin']);
    expect(p.status).toBe(200);
    expect((await api.get('/me', { token: staff })).body.data.scopes).toEqual(['quote', 'read']);
    expectProblem(await api.get('/api-clients', { token: staff }), 403, 'insufficient_scope');
  });
});

describe('agent headers', () => {
  it('the staff client with X-Agent-Code and X-Agent-Key acts as that agent', async () => {
    const a = org.agents[1];
    const r = await api.get('/me', { token: staffToken, headers: agentHeaders(a) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.actor).toEqual({
      id: a.userId,
      name: org.users.agent2.name,
      role: 'agent',
      code: a.code,
      own_records_only: true,
    });
    // The client is still the staff key; only the acting user changed.
    expect(r.body.data.client.id).toBe(org.clients.staff.clientId);
  });

  it('403 agent_denied for a wrong key, a code without a key, a key without a code, or an unknown code', async () => {
    const [a1, a2] = org.agents as [TestTenant['agents'][0], TestTenant['agents'][0]];
    const cases: Record<string, string>[] = [
      { 'x-agent-code': a1.code, 'x-agent-key': `${a1.key}x` },
      { 'x-agent-code': a1.code, 'x-agent-key': a2.key },
      { 'x-agent-code': a1.code },
      { 'x-agent-key': a1.key },
      { 'x-agent-code': 'AG-9999', 'x-agent-key': a1.key },
    ];
    for (const headers of cases)
      expectProblem(await api.get('/me', { token: staffToken, headers }), 403, 'agent_denied');
    await expectGqlError(
      ME,
      { token: staffToken, headers: { 'x-agent-code': a1.code, 'x-agent-key': 'nope' } },
      'agent_denied',
      403,
    );
  });

  it("a non-agent user's code is refused even with an agent key", async () => {
    // The admin and execs have no agent code; an empty code must not match a user with none.
    const r = await api.get('/me', {
      token: staffToken,
      headers: { 'x-agent-code': 'null', 'x-agent-key': org.agents[0].key },
    });
    expectProblem(r, 403, 'agent_denied');
  });

  it("another organisation's agent credentials are refused", async () => {
    const o = await t.newOrg({ tokens: [] });
    // Same code (the factory reuses the demo codes) but that tenant's key: lookup must stay inside the caller's tenant.
    expect(o.agents[0].code).toBe(org.agents[0].code);
    expectProblem(await api.get('/me', { token: staffToken, headers: agentHeaders(o.agents[0]) }), 403, 'agent_denied');
  });

  it('401 actor_disabled for a disabled agent', async () => {
    const o = await t.newOrg({ tokens: ['staff'] });
    const staff = o.tokens.staff;
    await t.db.system((tx) => tx.user.update({ where: { id: o.agents[1].userId }, data: { disabled: true } }));
    await t.heard();
    expectProblem(await api.get('/me', { token: staff, headers: agentHeaders(o.agents[1]) }), 401, 'actor_disabled');
    await expectGqlError(ME, { token: staff, headers: agentHeaders(o.agents[1]) }, 'actor_disabled', 401);
    // Without the headers the key's own actor still works.
    expect((await api.get('/me', { token: staff })).status).toBe(200);
  });

  it('an agent client may not act as another agent', async () => {
    expectProblem(
      await api.get('/me', { token: agentToken, headers: agentHeaders(org.agents[1]) }),
      403,
      'agent_denied',
    );
    // Its own credentials are accepted.
    const own = await api.get('/me', { token: agentToken, headers: agentHeaders(org.agents[0]) });
    expect(own.status).toBe(200);
    expect(own.body.data.actor.id).toBe(org.agents[0].userId);
  });
});

describe('403 actor_forbidden', () => {
  it('an admin-scoped key whose actor is an account executive may not manage API clients', async () => {
    const created = await api.post('/api-clients', {
      token: adminToken,
      idempotencyKey: randomUUID(),
      body: { name: 'exec with admin scope', scopes: ['read', 'admin'], actor_user_id: org.users.exec.id },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.actor_user_id).toBe(org.users.exec.id);
    const token = await api.token(created.body.data.client_id, created.body.data.client_secret);

    // Reads are governed by scope; the write is refused by the actor's role.
    expect((await api.get('/api-clients', { token })).status).toBe(200);
    const r = await api.post('/api-clients', {
      token,
      idempotencyKey: randomUUID(),
      body: { name: 'sneaky', scopes: ['read', 'admin'] },
    });
    expectProblem(r, 403, 'actor_forbidden');
    await expectGqlError(
      `mutation { issueAgentKey(userId: ${org.users.agent1.id}) { agentKey } }`,
      { token },
      'actor_forbidden',
    );
    const count = await t.db.system((tx) => tx.apiClient.count({ where: { tenantId: org.id, name: 'sneaky' } }));
    expect(count).toBe(0);
  });

  it('the admin client acting through agent headers may not issue agent keys', async () => {
    const o = await t.newOrg({ tokens: ['admin'] });
    const admin = o.tokens.admin;
    const path = `/sales-people/${o.users.agent2.id}/agent-key`;

    const r = await api.post(path, {
      token: admin,
      idempotencyKey: randomUUID(),
      body: {},
      headers: agentHeaders(o.agents[0]),
    });
    expectProblem(r, 403, 'actor_forbidden');
    // The old key still works: nothing was replaced.
    expect((await api.get('/me', { token: admin, headers: agentHeaders(o.agents[1]) })).status).toBe(200);

    // Without the headers the admin actor may, which is what makes the refusal about the actor.
    const ok = await api.post(path, { token: admin, idempotencyKey: randomUUID(), body: {} });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data).toMatchObject({
      user_id: o.users.agent2.id,
      code: o.agents[1].code,
      key: expect.any(String),
    });
  });
});
