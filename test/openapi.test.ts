import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { catalogueEntries } from '../src/modules/events/catalogue.ts';
import { ROUTES } from '../rest-compat/routes/index.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { PROBLEM_CATALOGUE } from '../src/lib/problem.ts';
import { useKit } from './kit.ts';

// What is served: JSON, so members set to undefined disappear exactly as they do on the wire.
const doc = JSON.parse(JSON.stringify(buildOpenApi(catalogueEntries())));

// The full OpenAPI 3.1 meta-schema check needs @seriousme/openapi-schema-validator; without it the structural
// checks below still run.
const validatorModule = await import('@seriousme/openapi-schema-validator').catch(() => undefined);

function pointer(ref: string): unknown {
  expect(ref.startsWith('#/'), `external or malformed $ref ${ref}`).toBe(true);
  let node: any = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node == null || typeof node !== 'object' || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

const deref = <T = any>(x: any): T =>
  x && typeof x === 'object' && typeof x.$ref === 'string' ? (pointer(x.$ref) as T) : x;

function allRefs(node: unknown, at = '#', out: { ref: string; at: string }[] = []): { ref: string; at: string }[] {
  if (Array.isArray(node)) node.forEach((v, i) => allRefs(v, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ ref: v, at });
      else allRefs(v, `${at}/${k}`, out);
    }
  }
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([m]) => METHODS.includes(m))
    .map(([method, op]) => ({ path: p, method, op })),
);

describe('the OpenAPI document', () => {
  it.skipIf(!validatorModule)(
    `validates against the OpenAPI 3.1 meta-schema${validatorModule ? '' : ' (skipped: @seriousme/openapi-schema-validator is not installed)'}`,
    async () => {
      const validator = new validatorModule!.Validator();
      const res = await validator.validate(doc);
      expect(res.errors ?? []).toEqual([]);
      expect(res.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    },
  );

  it('validates with a second, independent validator (@readme/openapi-parser: structure, references, schemas)', async () => {
    const { validate } = await import('@readme/openapi-parser');
    // A copy: the parser dereferences in place.
    const res = await validate(structuredClone(doc));
    expect(res.valid ? [] : res.errors).toEqual([]);
    expect(res.warnings).toEqual([]);
  });

  it('declares OpenAPI 3.1.0, a title, a version and the /api/v1 server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
  });

  it('resolves every $ref inside the document', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(10);
    const dangling = refs.filter(({ ref }) => !ref.startsWith('#/') || pointer(ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('documents every route of the table with its method, and nothing else under /api/v1 besides /oauth/token, the M-Pesa callbacks (STK, B2C) and the SMS delivery reports', () => {
    for (const r of ROUTES) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op.operationId).toBe(r.operationId);
    }
    const documented = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    const expected = [
      ...ROUTES.map((r) => `${r.method} ${r.path}`),
      'POST /oauth/token',
      'POST /payment/callback/mpesa/{callback_token}',
      'POST /payment/b2c/result/{callback_token}',
      'POST /payment/b2c/timeout/{callback_token}',
      'POST /sms/delivery-report/{callback_token}',
    ].sort();
    expect(documented).toEqual(expected);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("names each route's scopes in its security requirements, using declared schemes and scopes", () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes.oauth2.flows.clientCredentials.scopes).sort()).toEqual(Object.keys(SCOPES).sort());
    for (const r of ROUTES) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      expect(op.security, r.operationId).toEqual(expect.arrayContaining([{ bearer: r.scopes }, { oauth2: r.scopes }]));
      for (const req of op.security as Record<string, string[]>[]) {
        for (const [scheme, scopes] of Object.entries(req)) {
          expect(schemes[scheme], `${r.operationId}: scheme ${scheme}`).toBeDefined();
          expect(scopes.length, `${r.operationId} must need a scope`).toBeGreaterThan(0);
          for (const s of scopes) expect(Object.keys(SCOPES)).toContain(s);
        }
      }
    }
  });

  it('requires an Idempotency-Key header exactly on the idempotent routes', () => {
    for (const r of ROUTES) {
      const params = (doc.paths[r.path][r.method.toLowerCase()].parameters ?? []).map(deref);
      const keys = params.filter((p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      if (r.idempotent) {
        expect(keys, r.operationId).toHaveLength(1);
        expect(keys[0].required).toBe(true);
      } else {
        expect(keys, r.operationId).toEqual([]);
      }
    }
  });

  it('declares every path parameter of every route', () => {
    for (const r of ROUTES) {
      const names = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const params = (doc.paths[r.path][r.method.toLowerCase()].parameters ?? [])
        .map(deref)
        .filter((p: any) => p.in === 'path');
      expect(params.map((p: any) => p.name).sort(), r.operationId).toEqual([...names].sort());
      for (const p of params) expect(p.required).toBe(true);
    }
  });

  it('documents the success response and problem responses for 401, 403 and 429 on every route', () => {
    for (const r of ROUTES) {
      const responses = doc.paths[r.path][r.method.toLowerCase()].responses;
      // JSON, or the bytes of a download in each media type the route declares.
      for (const type of r.response.mediaTypes ?? ['application/json'])
        expect(
          responses[String(r.response.status)]?.content?.[type],
          `${r.operationId} ${r.response.status}`,
        ).toBeDefined();
      for (const status of ['401', '403', '429']) {
        const res = deref(responses[status]);
        expect(res, `${r.operationId} ${status}`).toBeDefined();
        expect(deref(res.content?.['application/problem+json']?.schema), `${r.operationId} ${status}`).toBe(
          doc.components.schemas.Problem,
        );
      }
      expect(deref(deref(responses['429']).headers?.['Retry-After']), `${r.operationId} Retry-After`).toBeDefined();
      if (r.idempotent) expect(deref(responses['400']).description).toContain('idempotency_key_required');
    }
  });

  it('documents POST /oauth/token without a bearer requirement, with 200, 400, 401, 403 and 429', () => {
    const op = doc.paths['/oauth/token'].post;
    expect(op.security).toEqual([]);
    expect(deref(op.responses['200'].content['application/json'].schema)).toBe(doc.components.schemas.TokenResponse);
    for (const status of ['400', '401', '403', '429']) {
      expect(deref(op.responses[status]?.content?.['application/problem+json']?.schema), status).toBe(
        doc.components.schemas.Problem,
      );
    }
    expect(op.responses['403'].description).toContain('tenant_inactive');
    expect(op.responses['401'].description).toContain('invalid_client');
  });

  it('documents the callers outside the route table without a bearer requirement, answering 200 or 404', () => {
    for (const p of [
      '/payment/callback/mpesa/{callback_token}',
      '/payment/b2c/result/{callback_token}',
      '/payment/b2c/timeout/{callback_token}',
      '/sms/delivery-report/{callback_token}',
    ]) {
      const op = doc.paths[p].post;
      expect(op.security, p).toEqual([]);
      expect(op.parameters, p).toEqual([
        { name: 'callback_token', in: 'path', required: true, schema: { type: 'string' } },
      ]);
      expect(op.responses['200'].content['application/json'].schema, p).toBeDefined();
      expect(deref(op.responses['404'].content['application/problem+json'].schema), p).toBe(
        doc.components.schemas.Problem,
      );
    }
    const sms = doc.paths['/sms/delivery-report/{callback_token}'].post;
    expect(sms.tags).toEqual(['SMS']);
    expect(Object.keys(sms.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
  });

  it('lists every code of the problem catalogue in Problem.code', () => {
    const problem = doc.components.schemas.Problem;
    expect([...problem.properties.code.enum].sort()).toEqual(Object.keys(PROBLEM_CATALOGUE).sort());
    expect(problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'request_id']),
    );
  });
});

describe('the served document', () => {
  const t = useKit();

  it('is what buildOpenApi() produces, at /api/v1/openapi.json, without authentication', async () => {
    const r = await fetch(`${t.base}/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual(doc);
  });
});
