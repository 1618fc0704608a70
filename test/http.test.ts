import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api, expectProblem, useKit, type CallOptions, type HttpResult } from './kit.ts';

/** Records every answer so the last test can check that none of them leaks internals. */
class RecordingApi extends Api {
  readonly seen: { what: string; text: string }[] = [];
  override async call<T = any>(method: string, p: string, o?: CallOptions): Promise<HttpResult<T>> {
    const r = await super.call<T>(method, p, o);
    this.seen.push({ what: `${method} ${p} → ${r.status}`, text: r.text });
    return r;
  }
}

// One small body limit for the whole file: every body sent here is far below 1 KiB except the 413 probes.
const MAX_BODY = 1024;
const GENERATED_ID = /^req_[0-9a-f]{32}$/;

const t = useKit({ maxBodyBytes: MAX_BODY });
const api = new RecordingApi(() => t.origin);
const org = t.useOrg({ api, tokens: ['admin', 'staff'] }); // its token requests are recorded too
let admin: string;
let staff: string;
beforeAll(() => ({ admin, staff } = org.tokens));

function expectNoLeak(text: string, what = '') {
  expect(text, `stack trace in ${what}`).not.toMatch(/at [^\n"]*\.ts:\d+/);
  expect(text, `SQL in ${what}`).not.toMatch(/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WHERE)\b/);
  expect(text, `database internals in ${what}`).not.toMatch(
    /prisma|postgres|pg_advisory|invalid byte sequence|violates|constraint/i,
  );
}

/** The shared problem check, plus what this file is about: the type URI, a title and detail, the instance, no leaks. */
function expectFullProblem(r: HttpResult, status: number, code: string, instance?: string) {
  expectProblem(r, status, code);
  expect(r.headers.get('x-request-id')).toBeTruthy();
  expect(r.body).toMatchObject({
    type: `https://docs.bima-gateway.dev/problems/${code}`,
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(r.body.title.length).toBeGreaterThan(0);
  expect(r.body.detail.length).toBeGreaterThan(0);
  if (instance !== undefined) expect(r.body.instance).toBe(instance);
  expectNoLeak(r.text, `${status} ${code}`);
}

const gqlRaw = (headers: Record<string, string> = {}, query = '{ __typename }') =>
  fetch(`${t.origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

describe('X-Request-Id', () => {
  it('is on every kind of response, generated when the caller sent none', async () => {
    const answers: [string, HttpResult | Response][] = [
      ['success', await api.get('/me', { token: staff })],
      ['401', await api.get('/me')],
      ['404 under /api/v1', await api.get('/no-such-endpoint', { token: staff })],
      ['404 outside /api/v1', await api.get(`${t.origin}/no-such-path`)],
      ['405', await api.call('DELETE', '/insurers', { token: staff })],
      [
        '413',
        await api.post('/api-clients', {
          token: admin,
          rawBody: 'x'.repeat(MAX_BODY + 1),
          headers: { 'content-type': 'application/json' },
        }),
      ],
      ['healthz', await api.get(`${t.origin}/healthz`)],
      ['readyz', await api.get(`${t.origin}/readyz`)],
      ['openapi', await api.get('/openapi.json')],
      ['token endpoint', await api.post('/oauth/token', { body: {} })],
      ['graphql', await gqlRaw()],
      ['graphql 401', await gqlRaw({}, '{ insurers { name } }')],
    ];
    const ids = new Set<string>();
    for (const [what, r] of answers) {
      const id = r.headers.get('x-request-id');
      expect(id, what).toMatch(GENERATED_ID);
      ids.add(id!);
    }
    expect(ids.size, 'each request gets its own id').toBe(answers.length);
  });

  it('echoes a sane incoming id on REST, problem, GraphQL and health responses', async () => {
    const id = 'req-test-12345678';
    const me = await api.get('/me', { token: staff, headers: { 'x-request-id': id } });
    expect(me.headers.get('x-request-id')).toBe(id);
    expect(me.body.data.request_id).toBe(id);

    const problem = await api.get('/me', { headers: { 'x-request-id': id } });
    expect(problem.headers.get('x-request-id')).toBe(id);
    expect(problem.body.request_id).toBe(id);

    expect((await gqlRaw({ 'x-request-id': id })).headers.get('x-request-id')).toBe(id);
    expect(
      (await api.get(`${t.origin}/healthz`, { headers: { 'x-request-id': id } })).headers.get('x-request-id'),
    ).toBe(id);
  });

  it.each([
    ['spaces', 'req with spaces 123'],
    ['300 characters', 'r'.repeat(300)],
    ['too short', 'abc'],
    ['markup', '<script>alert(1)</script>'],
  ])('replaces an insane incoming id (%s)', async (_what, incoming) => {
    const r = await api.get('/me', { token: staff, headers: { 'x-request-id': incoming } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toMatch(GENERATED_ID);
    expect(r.body.data.request_id).toBe(r.headers.get('x-request-id'));
  });
});

describe('problem documents', () => {
  it('401 without a token and with a malformed one', async () => {
    expectFullProblem(await api.get('/me'), 401, 'unauthenticated', '/api/v1/me');
    expectFullProblem(await api.get('/me', { token: 'bgt_not-a-real-token' }), 401, 'invalid_token', '/api/v1/me');
  });

  it('404 for an unknown path, inside and outside /api/v1; the instance drops the query string', async () => {
    expectFullProblem(
      await api.get('/no-such-endpoint?x=1', { token: staff }),
      404,
      'not_found',
      '/api/v1/no-such-endpoint',
    );
    expectFullProblem(await api.get(`${t.origin}/no-such-path`), 404, 'not_found', '/no-such-path');
  });

  it('405 for a wrong method on a known path, with Allow listing the methods that exist, OPTIONS as OPTIONS lists it', async () => {
    const del = await api.call('DELETE', '/insurers', { token: staff });
    expectFullProblem(del, 405, 'method_not_allowed', '/api/v1/insurers');
    expect(del.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const put = await api.call('PUT', '/api-clients', { token: admin });
    expectFullProblem(put, 405, 'method_not_allowed');
    expect(put.headers.get('allow')!.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    const getOnly = await api.call('GET', '/motor/quote', { token: staff });
    expect(getOnly.headers.get('allow')).toBe('POST, OPTIONS'); // no GET, so no HEAD
    // The token endpoint and /graphql say the same in a 405 as in OPTIONS.
    for (const path of ['/api/v1/oauth/token', '/graphql']) {
      const options = await fetch(`${t.origin}${path}`, { method: 'OPTIONS' });
      const refused = await fetch(`${t.origin}${path}`, { method: 'PUT' });
      expect(refused.status, path).toBe(405);
      expect(refused.headers.get('allow'), path).toBe(options.headers.get('allow'));
    }
  });

  it('HEAD wherever GET goes: the same status and headers, no body; authentication and reach as for GET', async () => {
    const head = (path: string, token?: string) =>
      fetch(`${t.origin}/api/v1${path}`, {
        method: 'HEAD',
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    for (const path of ['/insurers', '/clients?limit=5', '/branches']) {
      const [g, h] = [await api.get(path, { token: staff }), await head(path, staff)];
      expect(h.status, path).toBe(200);
      expect(await h.text(), path).toBe('');
      expect(h.headers.get('content-type'), path).toBe(g.headers.get('content-type'));
      expect(h.headers.get('content-length'), path).toBe(String(Buffer.byteLength(g.text)));
    }
    const noToken = await head('/insurers');
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await noToken.text()).toBe('');
    expect((await head('/clients/C-999999999', staff)).status).toBe(404);
    const options = await fetch(`${t.origin}/api/v1/insurers`, { method: 'OPTIONS' });
    expect(options.headers.get('allow')!.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  it('413 payload_too_large over MAX_BODY_BYTES, whether the length is declared or streamed', async () => {
    expect(t.app.services.config.maxBodyBytes).toBe(MAX_BODY);
    const declared = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: 'too-big-1',
      rawBody: JSON.stringify({ name: 'x'.repeat(MAX_BODY), scopes: ['read'] }),
      headers: { 'content-type': 'application/json' },
    });
    expectFullProblem(declared, 413, 'payload_too_large', '/api/v1/api-clients');

    // Chunked upload: no Content-Length to refuse up front, so the limit must hold while reading.
    const bytes = new TextEncoder().encode(JSON.stringify({ name: 'y'.repeat(4 * MAX_BODY), scopes: ['read'] }));
    const body = new ReadableStream({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    });
    const res = await fetch(`${api.base}/api-clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'idempotency-key': 'too-big-2' },
      body,
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    expectFullProblem(
      { status: res.status, headers: res.headers, body: JSON.parse(text), text },
      413,
      'payload_too_large',
    );

    const names = await t.db.tenant(org.id, (tx) => tx.apiClient.count({ where: { name: { startsWith: 'xxxx' } } }));
    expect(names).toBe(0);
  });

  it('a body exactly at the limit is read', async () => {
    const base = JSON.stringify({ name: '', scopes: ['read'] });
    const body = JSON.stringify({ name: 'n'.repeat(MAX_BODY - base.length), scopes: ['read'] });
    expect(Buffer.byteLength(body)).toBe(MAX_BODY);
    const r = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: 'at-limit',
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    // Read and validated (the name is over 100 characters), not refused as too large.
    expectFullProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual([{ field: 'name', code: 'too_large', message: 'at most 100 characters' }]);
  });

  it('400 invalid_request for malformed JSON', async () => {
    const r = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: 'bad-json',
      rawBody: '{"name": "x", ',
      headers: { 'content-type': 'application/json' },
    });
    expectFullProblem(r, 400, 'invalid_request', '/api/v1/api-clients');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
    '415 unsupported_media_type for a %s body on a JSON write',
    async (type) => {
      const r = await api.post('/api-clients', {
        token: admin,
        idempotencyKey: `media-${type}`,
        rawBody: 'name=x&scopes=read',
        headers: { 'content-type': type },
      });
      expectFullProblem(r, 415, 'unsupported_media_type', '/api/v1/api-clients');
    },
  );

  it.each([
    ['a gzip body', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, /Content-Encoding "gzip"/],
    ['a latin-1 body', { 'content-type': 'application/json; charset=ISO-8859-1' }, /charset "iso-8859-1"/],
  ])('415 unsupported_media_type for %s, said, before anything is read', async (_label, headers, said) => {
    const r = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: `coding-${_label}`,
      rawBody: JSON.stringify({ name: 'Encoded client', scopes: ['read'] }),
      headers,
    });
    expectFullProblem(r, 415, 'unsupported_media_type', '/api/v1/api-clients');
    expect(r.body.detail).toMatch(said);
  });

  it('JSON with a +json media type and parameters is accepted', async () => {
    const r = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: 'vnd-json',
      rawBody: JSON.stringify({ name: 'Vendor JSON client', scopes: ['read'] }),
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
    });
    expect(r.status, r.text).toBe(201);
  });

  it('422 validation_failed lists {field, message} per invalid field, with a code for a refused shape', async () => {
    const r = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: 'invalid-1',
      body: { name: '', scopes: ['nope'] },
    });
    expectFullProblem(r, 422, 'validation_failed', '/api/v1/api-clients');
    expect(r.body.errors).toHaveLength(2);
    for (const e of r.body.errors) expect(['code', 'field', 'message']).toEqual(expect.arrayContaining(Object.keys(e)));
    expect(r.body.errors.find((e: { field: string }) => e.field === 'name')).toEqual({
      field: 'name',
      code: 'required',
      message: 'required',
    });
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'scopes.0']);
    expect(r.body.errors.find((e: { field: string }) => e.field === 'scopes.0').message).toContain('read');
  });

  it('a JSON body that is not UTF-8 is 400 invalid_request and nothing is stored (it was stored with U+FFFD)', async () => {
    const before = await api.get('/clients?limit=100', { token: staff });
    for (const bad of [[0xff, 0xfe], [0xed, 0xa0, 0x80], [0xc3]]) {
      const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bad), Buffer.from('","phone":"0712345678"}')]);
      const r = await fetch(`${api.base}/clients`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${staff}`,
          'content-type': 'application/json',
          'idempotency-key': `utf8-${bad.join('-')}`,
        },
        body,
      });
      expect(r.status, bad.join(' ')).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await r.json()) as { code: string; detail: string }).toMatchObject({
        code: 'invalid_request',
        detail: 'The JSON body is not valid UTF-8',
      });
    }
    expect((await api.get('/clients?limit=100', { token: staff })).body.data).toEqual(before.body.data);
  });

  it('malformed percent-encoding anywhere in a path is 400, not only in a parameter (it was 404 elsewhere)', async () => {
    // Plain fetch: these paths are in no document, so the kit's contract check has nothing to hold them to.
    const get = async (p: string) => {
      const r = await fetch(`${t.origin}${p}`, { headers: { authorization: `Bearer ${staff}` } });
      return {
        status: r.status,
        type: r.headers.get('content-type'),
        body: (await r.json()) as Record<string, string>,
      };
    };
    for (const p of ['/api/v1/clients%FF', '/graphql%FF', '/%FF', '/api/v1/clients/%', '/healthz%E0%A4%A']) {
      const r = await get(p);
      expect(r.status, p).toBe(400);
      expect(r.type).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ code: 'invalid_request', detail: 'Malformed percent-encoding in the path' });
    }
    // Below /graphql is not GraphQL: the not_found problem, not an empty 404.
    const below = await get('/graphql/x');
    expect(below.status).toBe(404);
    expect(below.type).toMatch(/^application\/problem\+json/);
    expect(below.body.code).toBe('not_found');
  });

  it('caller-made junk in the path, query or body is refused as 400, never a 500', async () => {
    // Bad percent-encoding cannot be decoded into a path parameter at all.
    expectFullProblem(await api.get('/api-clients/%E0%A4%A', { token: admin }), 400, 'invalid_request');
    // Nor into a query parameter, its value or its name (found by an outside check: `?search=%FF%FE` was read as two
    // U+FFFD and answered 200 with nothing found).
    for (const [query, which] of [
      ['search=%FF%FE', 'the value of "search"'],
      ['search=%ED%A0%80', 'the value of "search"'],
      ['search=50%', 'the value of "search"'],
      ['search=%', 'the value of "search"'],
      ['search=%G1', 'the value of "search"'],
      ['limit=1&se%zzrch=x', 'a parameter name'],
    ]) {
      const r = await api.get(`/insurers?${query}`, { token: staff });
      expectFullProblem(r, 400, 'invalid_request');
      expect(r.body.detail).toBe(`Malformed percent-encoding in the query: ${which}`);
    }
    expect((await api.get('/insurers?search=%C3%A9%20x+y', { token: staff })).status).toBe(200);
    // PostgreSQL text cannot hold U+0000: a 422 naming the parameter or field, in the REST spelling.
    const nul = (field: string) => [
      { field, code: 'invalid_text', message: expect.stringMatching(/^must not contain/) },
    ];
    const search = await api.get('/insurers?search=a%00b', { token: staff });
    expectFullProblem(search, 422, 'validation_failed');
    expect(search.body.errors).toEqual(nul('search'));
    const param = await api.get('/api-clients/bgc_%00', { token: admin });
    expectFullProblem(param, 422, 'validation_failed');
    expect(param.body.errors).toEqual(nul('client_id'));
    const body = await api.post('/api-clients', {
      token: admin,
      idempotencyKey: 'nul-body',
      body: { name: 'a\u0000b', scopes: ['read'] },
    });
    expectFullProblem(body, 422, 'validation_failed');
    expect(body.body.errors).toEqual(nul('name'));
    // SQL in a search term is just text.
    const sqlish = await api.get(`/insurers?search=${encodeURIComponent("' OR 1=1 --")}`, { token: staff });
    expect(sqlish.status).toBe(200);
    expect(sqlish.body).toEqual({ data: [] });
  });
});

describe('health and documents', () => {
  it('GET /healthz and /readyz answer 200 once the server is ready', async () => {
    const health = await api.get(`${t.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await api.get(`${t.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('GET /api/v1/openapi.json serves, without a token, exactly the committed schema/openapi.json', async () => {
    const r = await api.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const committed = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../schema/openapi.json'), 'utf8'));
    expect(r.body).toEqual(committed);
    expect(r.body.openapi).toBe('3.1.0');
  });
});

// Runs last on purpose: it reads what every test above received.
describe('no internals in any response', () => {
  it('no body carries a stack trace or SQL', () => {
    expect(api.seen.length).toBeGreaterThan(30);
    for (const { what, text } of api.seen) expectNoLeak(text, what);
  });
});
