import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, useKit, type HttpResult, type TestTenant } from './kit.ts';

// Organisations without tokens: every token here is the test's own request.
const t = useKit();
const api = t.api;
const org = t.useOrg({ tokens: [] });

/** The spec's error contract at the token endpoint: status, problem+json, `code`, plus the OAuth `error` member. */

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const sorted = (scope: string) => scope.split(' ').sort();

function form(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return api.post('/oauth/token', {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

function expectToken(r: HttpResult, scopes: string[]) {
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(r.headers.get('x-request-id')).toBeTruthy();
  expect(r.body).toEqual({
    access_token: expect.any(String),
    token_type: 'Bearer',
    expires_in: 86400,
    scope: expect.any(String),
  });
  expect(r.body.access_token.length).toBeGreaterThan(20);
  expect(sorted(r.body.scope)).toEqual([...scopes].sort());
}

/** A token is only proven good by using it. */
async function expectWorkingToken(accessToken: string, clientId: string) {
  const me = await api.get('/me', { token: accessToken });
  expect(me.status, me.text).toBe(200);
  expect(me.body.data.client.id).toBe(clientId);
}

describe('POST /oauth/token: client authentication methods', () => {
  it('accepts a JSON body and grants every scope of the client when scope is omitted', async () => {
    const c = org.clients.staff;
    const r = await api.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.secret },
    });
    expectToken(r, ['read', 'quote', 'bind', 'crm', 'webhooks']);
    await expectWorkingToken(r.body.access_token, c.clientId);
  });

  it('defaults grant_type to client_credentials', async () => {
    const c = org.clients.readonly;
    const r = await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } });
    expectToken(r, ['read']);
  });

  it('accepts application/x-www-form-urlencoded', async () => {
    const c = org.clients.agent;
    const r = await form({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.secret });
    expectToken(r, ['read', 'quote', 'bind', 'crm']);
    await expectWorkingToken(r.body.access_token, c.clientId);
  });

  it('accepts a form declared ISO-8859-1, as Apache HttpClient sends every one (percent-encoded ASCII either way)', async () => {
    const c = org.clients.agent;
    const r = await form(
      { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.secret },
      { 'content-type': 'application/x-www-form-urlencoded; charset=ISO-8859-1' },
    );
    expectToken(r, ['read', 'quote', 'bind', 'crm']);
  });

  it('accepts HTTP Basic client authentication', async () => {
    const c = org.clients.admin;
    const r = await form({ grant_type: 'client_credentials' }, { authorization: basic(c.clientId, c.secret) });
    expectToken(r, ['read', 'admin']);
    await expectWorkingToken(r.body.access_token, c.clientId);

    const noBody = await api.post('/oauth/token', { headers: { authorization: basic(c.clientId, c.secret) } });
    expectToken(noBody, ['read', 'admin']);
  });

  it('accepts the legacy {key, passkey} body', async () => {
    const c = org.clients.staff;
    const r = await api.post('/oauth/token', { body: { key: c.clientId, passkey: c.secret } });
    expectToken(r, c.scopes);
    await expectWorkingToken(r.body.access_token, c.clientId);
  });

  it('issues a distinct token on every request', async () => {
    const c = org.clients.readonly;
    const [a, b] = await Promise.all([api.token(c.clientId, c.secret), api.token(c.clientId, c.secret)]);
    expect(a).not.toBe(b);
  });
});

describe('POST /oauth/token: scope', () => {
  it('grants exactly the requested subset, and the token carries only that', async () => {
    const c = org.clients.staff;
    const r = await api.post('/oauth/token', {
      body: { client_id: c.clientId, client_secret: c.secret, scope: 'quote  read' },
    });
    expectToken(r, ['read', 'quote']);
    const me = await api.get('/me', { token: r.body.access_token });
    expect(me.status).toBe(200);
    expect([...me.body.data.scopes].sort()).toEqual(['quote', 'read']);
  });

  it('a dropped scope is refused with insufficient_scope', async () => {
    const c = org.clients.admin;
    const full = await api.token(c.clientId, c.secret);
    expect((await api.get('/api-clients', { token: full })).status).toBe(200);

    const readOnly = await api.token(c.clientId, c.secret, 'read');
    const me = await api.get('/me', { token: readOnly });
    expect(me.body.data.scopes).toEqual(['read']);
    const r = await api.get('/api-clients', { token: readOnly });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('insufficient_scope');

    const adminOnly = await api.token(c.clientId, c.secret, 'admin');
    const meDenied = await api.get('/me', { token: adminOnly });
    expect(meDenied.status).toBe(403);
    expect(meDenied.body.code).toBe('insufficient_scope');
  });
});

describe('POST /oauth/token: errors', () => {
  it('400 invalid_request when the secret is missing', async () => {
    const r = await api.post('/oauth/token', { body: { client_id: org.clients.staff.clientId } });
    expectProblem(r, 400, 'invalid_request');
    expectProblem(
      await api.post('/oauth/token', { body: { client_secret: org.clients.staff.secret } }),
      400,
      'invalid_request',
    );
    expectProblem(await api.post('/oauth/token', {}), 400, 'invalid_request');
  });

  it('400 invalid_request for malformed JSON or a non-object body', async () => {
    const headers = { 'content-type': 'application/json' };
    expectProblem(await api.post('/oauth/token', { rawBody: '{"client_id": "x", ', headers }), 400, 'invalid_request');
    expectProblem(await api.post('/oauth/token', { rawBody: '["a"]', headers }), 400, 'invalid_request');
  });

  it('400 invalid_request for a body that is not UTF-8, or a form with malformed percent-encoding (it was read)', async () => {
    const c = org.clients.staff;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const r = await api.post('/oauth/token', {
      rawBody: `grant_type=client_credentials&client_id=${c.clientId}&client_secret=%FF`,
      headers: form,
    });
    expectProblem(r, 400, 'invalid_request');
    expect(r.body.detail).toBe('Malformed percent-encoding in the form body: the value of "client_secret"');
    const bytes = Buffer.concat([
      Buffer.from(`{"client_id":"${c.clientId}","client_secret":"`),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const raw = await fetch(`${api.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bytes,
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { code: string }).code).toBe('invalid_request');
  });

  it('400 invalid_scope for a scope the client does not hold, or an unknown scope word', async () => {
    const c = org.clients.staff;
    const notHeld = await api.post('/oauth/token', {
      body: { client_id: c.clientId, client_secret: c.secret, scope: 'read admin' },
    });
    expectProblem(notHeld, 400, 'invalid_scope');
    const unknown = await api.post('/oauth/token', {
      body: { client_id: c.clientId, client_secret: c.secret, scope: 'superpowers' },
    });
    expectProblem(unknown, 400, 'invalid_scope');
  });

  it('400 unsupported_grant_type for grant_type=password', async () => {
    const c = org.clients.staff;
    const r = await form({
      grant_type: 'password',
      client_id: c.clientId,
      client_secret: c.secret,
      username: 'u',
      password: 'p',
    });
    expectProblem(r, 400, 'unsupported_grant_type');
  });

  it('401 invalid_client for an unknown client id or a wrong secret', async () => {
    const c = org.clients.staff;
    expectProblem(
      await api.post('/oauth/token', { body: { client_id: 'bgc_doesnotexist', client_secret: c.secret } }),
      401,
      'invalid_client',
    );
    expectProblem(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: `${c.secret}x` } }),
      401,
      'invalid_client',
    );
    // A secret of another client of the same tenant must not open this one.
    expectProblem(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: org.clients.admin.secret } }),
      401,
      'invalid_client',
    );
  });

  it('401 invalid_client over HTTP Basic also challenges with WWW-Authenticate', async () => {
    const r = await api.post('/oauth/token', {
      headers: { authorization: basic(org.clients.staff.clientId, 'wrong') },
    });
    expectProblem(r, 401, 'invalid_client');
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('401 invalid_client for a revoked client', async () => {
    const other = await t.newOrg({ tokens: [] });
    const c = other.clients.staff;
    await api.token(c.clientId, c.secret);
    await t.db.system((tx) => tx.apiClient.update({ where: { id: c.id }, data: { revokedAt: new Date() } }));
    await t.heard();
    expectProblem(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } }),
      401,
      'invalid_client',
    );
  });

  it('403 tenant_inactive for a client of a suspended organisation or one in KYC review', async () => {
    for (const status of ['suspended', 'kyc_review'] as const) {
      const inactive = await t.newOrg({ status, tokens: [] });
      const c = inactive.clients.staff;
      const r = await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } });
      expectProblem(r, 403, 'tenant_inactive');
      expect(r.body.detail).toContain(inactive.code);
    }
  });

  it("401 actor_disabled when the client's actor user is disabled", async () => {
    const other = await t.newOrg({ tokens: [] });
    const c = other.clients.staff;
    await t.db.system((tx) => tx.user.update({ where: { id: other.users.exec.id }, data: { disabled: true } }));
    await t.heard();
    expectProblem(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } }),
      401,
      'actor_disabled',
    );
    // Only the key acting as that user is affected.
    expectToken(
      await api.post('/oauth/token', {
        body: { client_id: other.clients.admin.clientId, client_secret: other.clients.admin.secret },
      }),
      ['read', 'admin'],
    );
  });
});

describe('POST /oauth/token: secret rotation', () => {
  async function rotate(o: TestTenant, clientId: string, body: Record<string, unknown>) {
    const admin = await api.token(o.clients.admin.clientId, o.clients.admin.secret);
    const r = await api.post(`/api-clients/${clientId}/rotate-secret`, {
      token: admin,
      body,
      idempotencyKey: randomUUID(),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.client_id).toBe(clientId);
    expect(typeof r.body.data.client_secret).toBe('string');
    return r.body.data as {
      client_secret: string;
      previous_secret_expires_at: string | null;
      secret_rotated_at: string;
    };
  }

  it('keeps the old secret working during the grace period, alongside the new one', async () => {
    const o = await t.newOrg({ tokens: [] });
    const c = o.clients.staff;
    const rotated = await rotate(o, c.clientId, { grace_hours: 24 });
    expect(rotated.client_secret).not.toBe(c.secret);
    expect(new Date(rotated.previous_secret_expires_at!).getTime()).toBeGreaterThan(Date.now());

    const oldTok = await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } });
    expectToken(oldTok, c.scopes);
    await expectWorkingToken(oldTok.body.access_token, c.clientId);
    const newTok = await api.post('/oauth/token', {
      body: { client_id: c.clientId, client_secret: rotated.client_secret },
    });
    expectToken(newTok, c.scopes);
    await expectWorkingToken(newTok.body.access_token, c.clientId);
  });

  it('refuses the old secret at once with grace_hours 0', async () => {
    const o = await t.newOrg({ tokens: [] });
    const c = o.clients.readonly;
    const rotated = await rotate(o, c.clientId, { grace_hours: 0 });
    expect(rotated.previous_secret_expires_at).toBeNull();

    expectProblem(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } }),
      401,
      'invalid_client',
    );
    expectToken(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: rotated.client_secret } }),
      ['read'],
    );
  });

  it('refuses the old secret once its grace period has passed', async () => {
    const o = await t.newOrg({ tokens: [] });
    const c = o.clients.agent;
    const rotated = await rotate(o, c.clientId, {});
    await t.db.system((tx) =>
      tx.apiClient.update({ where: { id: c.id }, data: { previousSecretExpiresAt: new Date(Date.now() - 1000) } }),
    );
    await t.heard();
    expectProblem(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } }),
      401,
      'invalid_client',
    );
    expectToken(
      await api.post('/oauth/token', { body: { client_id: c.clientId, client_secret: rotated.client_secret } }),
      c.scopes,
    );
  });
});

describe('POST /oauth/token: rate limit per IP address', () => {
  // Own instance with the spec's real figure; in-process store so no other test's traffic counts.
  const limited = useKit({ tokenRateLimitPerMinute: 10, redisUrl: undefined });
  const lapi = limited.api;
  const lorg = limited.useOrg({ tokens: [] });

  it('answers 10 requests normally and refuses the 11th with 429 rate_limited and Retry-After', async () => {
    const c = lorg.clients.staff;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      // Failures count too: the limit protects secret guessing as much as token minting.
      const secret = i % 2 === 0 ? c.secret : 'wrong';
      const r = await lapi.post('/oauth/token', { body: { client_id: c.clientId, client_secret: secret } });
      statuses.push(r.status);
      expect(r.headers.get('ratelimit-limit')).toBe('10');
      expect(r.headers.get('ratelimit-remaining')).toBe(String(9 - i));
    }
    expect(statuses).toEqual([200, 401, 200, 401, 200, 401, 200, 401, 200, 401]);

    const r = await lapi.post('/oauth/token', { body: { client_id: c.clientId, client_secret: c.secret } });
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('rate_limited');
    const retryAfter = r.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('ratelimit-limit')).toBe('10');
    expect(r.headers.get('ratelimit-remaining')).toBe('0');
  });
});
