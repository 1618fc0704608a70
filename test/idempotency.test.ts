import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, useKit, type HttpResult } from './kit.ts';

const t = useKit();
const api = t.api;
// The concurrency test alone sends 25 requests on one token; keep the per-token limit out of the way.
const org = t.useOrg({ clientOverrides: { admin: { rateLimitPerMinute: 10_000 } }, tokens: ['admin'] });
let admin: string;
beforeAll(() => (admin = org.tokens.admin));

const uniqueName = (what: string) => `${what} ${randomUUID().slice(0, 8)}`;
const create = (body: unknown, o: { key?: string; token?: string; rawBody?: string } = {}) =>
  api.post('/api-clients', {
    token: o.token ?? admin,
    idempotencyKey: o.key,
    body: o.rawBody ? undefined : body,
    rawBody: o.rawBody,
    headers: o.rawBody ? { 'content-type': 'application/json' } : undefined,
  });
const countNamed = (name: string) => t.db.tenant(org.id, (tx) => tx.apiClient.count({ where: { name } }));
const storedKeys = (key: string) => t.db.tenant(org.id, (tx) => tx.idempotencyKey.count({ where: { key } }));
const replayed = (r: HttpResult) => r.headers.get('idempotent-replayed') === 'true';

describe('the Idempotency-Key header', () => {
  it('is required on a write: 400 idempotency_key_required, nothing created', async () => {
    const name = uniqueName('No key');
    expectProblem(await create({ name, scopes: ['read'] }), 400, 'idempotency_key_required');
    expect(await countNamed(name)).toBe(0);
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['blank', ' '],
    ['inner spaces', 'two words'],
  ])('refuses a key that is %s: 400 idempotency_key_invalid, nothing created or stored', async (_what, key) => {
    const name = uniqueName('Bad key');
    expectProblem(await create({ name, scopes: ['read'] }, { key }), 400, 'idempotency_key_invalid');
    expect(await countNamed(name)).toBe(0);
    expect(await storedKeys(key)).toBe(0);
  });

  it('accepts a key of exactly 255 visible characters', async () => {
    const key = `${randomUUID()}~!#`.padEnd(255, 'z');
    const name = uniqueName('Long key');
    const r = await create({ name, scopes: ['read'] }, { key });
    expect(r.status, r.text).toBe(201);
    expect(await countNamed(name)).toBe(1);
    expect(await storedKeys(key)).toBe(1);
  });

  it('is not needed on a read', async () => {
    expect((await api.get('/api-clients', { token: admin })).status).toBe(200);
  });
});

describe('replays', () => {
  it('same key and body: same status and body, except the secret shown once', async () => {
    const key = randomUUID();
    const name = uniqueName('Replayed');
    const first = await create({ name, scopes: ['read'] }, { key });
    expect(first.status, first.text).toBe(201);
    expect(replayed(first)).toBe(false);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const secret = first.body.data.client_secret;
    expect(secret).toMatch(/^bgs_/);

    const again = await create({ name, scopes: ['read'] }, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body.data.client_secret).toBeNull();
    expect(again.body.replay_note).toEqual(expect.any(String));
    // Byte for byte: the first body with the secret nulled and the note appended.
    const expected = {
      ...first.body,
      data: { ...first.body.data, client_secret: null },
      replay_note: again.body.replay_note,
    };
    expect(again.text).toBe(JSON.stringify(expected));
    expect(again.text).not.toContain(secret);

    expect(await countNamed(name)).toBe(1);
    const token = await api.post('/oauth/token', {
      body: { client_id: first.body.data.client_id, client_secret: secret },
    });
    expect(token.status).toBe(200);
  });

  it('the key order in the JSON body does not matter', async () => {
    const key = randomUUID();
    const name = uniqueName('Reordered');
    const first = await create(undefined, {
      key,
      rawBody: `{"name":${JSON.stringify(name)},"scopes":["read"],"rate_limit_per_minute":9}`,
    });
    expect(first.status).toBe(201);
    const again = await create(undefined, {
      key,
      rawBody: `{ "rate_limit_per_minute": 9, "scopes": ["read"], "name": ${JSON.stringify(name)} }`,
    });
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe(true);
    expect(again.body.data.client_id).toBe(first.body.data.client_id);
    expect(await countNamed(name)).toBe(1);
  });

  it('same key, different body or path: 422 idempotency_key_reused, nothing run', async () => {
    const key = randomUUID();
    const name = uniqueName('Original');
    const first = await create({ name, scopes: ['read'] }, { key });
    expect(first.status).toBe(201);

    const changed = uniqueName('Changed');
    expectProblem(await create({ name: changed, scopes: ['read'] }, { key }), 422, 'idempotency_key_reused');
    expectProblem(await create({ name, scopes: ['read', 'quote'] }, { key }), 422, 'idempotency_key_reused');
    expect(await countNamed(changed)).toBe(0);

    const rotate = await api.post(`/api-clients/${first.body.data.client_id}/rotate-secret`, {
      token: admin,
      idempotencyKey: key,
      body: {},
    });
    expectProblem(rotate, 422, 'idempotency_key_reused');
    const row = await t.db.tenant(org.id, (tx) =>
      tx.apiClient.findUniqueOrThrow({ where: { clientId: first.body.data.client_id } }),
    );
    expect(row.secretRotatedAt).toBeNull();

    // The stored answer is untouched by the refusals.
    const again = await create({ name, scopes: ['read'] }, { key });
    expect(replayed(again)).toBe(true);
    expect(again.body.data.client_id).toBe(first.body.data.client_id);
  });

  it('keys are scoped per API client: another client reusing the key gets its own result', async () => {
    const made = await create({ name: uniqueName('Second admin'), scopes: ['read', 'admin'] }, { key: randomUUID() });
    expect(made.status).toBe(201);
    const secondAdmin = await api.token(made.body.data.client_id, made.body.data.client_secret);

    const key = randomUUID();
    const name = uniqueName('Shared key');
    const mine = await create({ name, scopes: ['read'] }, { key });
    const theirs = await create({ name, scopes: ['read'] }, { key, token: secondAdmin });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(replayed(theirs)).toBe(false);
    expect(theirs.body.data.client_secret).toMatch(/^bgs_/);
    expect(theirs.body.data.client_id).not.toBe(mine.body.data.client_id);
    expect(await countNamed(name)).toBe(2);
    expect(await storedKeys(key)).toBe(2);
  });

  it('a failed write stores nothing: the same key with a corrected body succeeds', async () => {
    const key = randomUUID();
    const name = uniqueName('Corrected');
    expectProblem(await create({ name, scopes: ['nope'] }, { key }), 422, 'validation_failed');
    expect(await storedKeys(key)).toBe(0);

    const fixed = await create({ name, scopes: ['read'] }, { key });
    expect(fixed.status, fixed.text).toBe(201);
    expect(replayed(fixed)).toBe(false);
    expect(fixed.body.data.client_secret).toMatch(/^bgs_/);
    expect(await countNamed(name)).toBe(1);
  });

  it('an expired key is forgotten: the request runs again', async () => {
    const key = randomUUID();
    const name = uniqueName('Expiring');
    expect((await create({ name, scopes: ['read'] }, { key })).status).toBe(201);
    await t.db.tenant(org.id, (tx) =>
      tx.idempotencyKey.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1000) } }),
    );

    const again = await create({ name, scopes: ['read'] }, { key });
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe(false);
    expect(await countNamed(name)).toBe(2);
    expect(await storedKeys(key)).toBe(1);
  });

  it('25 concurrent requests with one key create exactly one client; the rest are replays', async () => {
    const key = randomUUID();
    const name = uniqueName('Concurrent');
    const answers = await Promise.all(Array.from({ length: 25 }, () => create({ name, scopes: ['read'] }, { key })));
    expect(answers.map((r) => r.status)).toEqual(Array(25).fill(201));
    const originals = answers.filter((r) => !replayed(r));
    expect(originals).toHaveLength(1);
    expect(answers.filter(replayed)).toHaveLength(24);
    expect(await countNamed(name)).toBe(1);
    const clientId = originals[0].body.data.client_id;
    for (const r of answers) expect(r.body.data.client_id).toBe(clientId);
    expect(answers.filter((r) => r.body.data.client_secret !== null)).toHaveLength(1);
  });

  it('a replayed PATCH is byte-for-byte the first response, even after the record changed again', async () => {
    const made = await create({ name: uniqueName('Patched'), scopes: ['read'] }, { key: randomUUID() });
    const path = `/api-clients/${made.body.data.client_id}`;
    const key = randomUUID();
    const first = await api.patch(path, {
      token: admin,
      idempotencyKey: key,
      body: { name: 'Renamed once', rate_limit_per_minute: 42 },
    });
    expect(first.status, first.text).toBe(200);

    const later = await api.patch(path, {
      token: admin,
      idempotencyKey: randomUUID(),
      body: { name: 'Renamed twice' },
    });
    expect(later.body.data.name).toBe('Renamed twice');

    const again = await api.patch(path, {
      token: admin,
      idempotencyKey: key,
      body: { rate_limit_per_minute: 42, name: 'Renamed once' },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const row = await t.db.tenant(org.id, (tx) =>
      tx.apiClient.findUniqueOrThrow({ where: { clientId: made.body.data.client_id } }),
    );
    expect(row.name).toBe('Renamed twice');
  });
});
