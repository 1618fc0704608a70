/**
 * OWASP API9:2023 Improper Inventory Management.
 *
 * The attack: find the door nobody documented — an older or newer API version, a debug or metrics endpoint, a
 * framework default page, a path the router answers that the document does not list — and use it, since the
 * unlisted door is the unguarded one. The defence: one route table feeds the router and the OpenAPI document (so
 * they cannot differ: test/openapi.test.ts), the printed SDL and OpenAPI are committed and drift-checked in CI, and
 * the server answers nothing outside /healthz, /readyz, /graphql and the documented /api/v1 paths.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { useKit } from '../kit.ts';

const t = useKit();
const api = t.api;
const org = t.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 100_000 } }, tokens: ['staff'] });
let token: string;
beforeAll(() => (token = org.tokens.staff));

describe('OWASP API9:2023 Improper Inventory Management', () => {
  it.each([
    '/api/v2/clients',
    '/api/v0/clients',
    '/api/clients',
    '/api/v1.1/clients',
    '/v1/clients',
    '/metrics',
    '/debug/vars',
    '/debug/pprof',
    '/.env',
    '/.git/config',
    '/admin',
    '/actuator/health',
    '/server-status',
    '/graphiql',
    '/playground',
    '/api/v1/graphql',
    '/api/v1/admin',
    '/api/v1/internal/tenants',
    '/api/v1/debug',
    '/swagger.json',
    '/api/v1/swagger.json',
    '/node_modules/.package-lock.json',
  ])('attack: probing the undocumented door %s → 404 problem, with or without a token', async (path) => {
    for (const headers of [{}, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
      const r = await fetch(`${t.origin}${path}`, { headers });
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = await r.json();
      expect(body.code).toBe('not_found');
    }
  });

  it('attack: a documented path with an undocumented method → 405 with Allow, never a handler', async () => {
    expect(ROUTES.map((r) => r.method as string)).not.toContain('PUT');
    for (const r of ROUTES) {
      const concrete = r.path.replace(/\{[^}]+\}/g, 'zz');
      // No route of the table uses PUT: it is undocumented on every path.
      const other = 'PUT';
      const res = await api.call(other, concrete, { token });
      expect(res.status, `${other} ${r.path}`).toBe(405);
      expect(res.headers.get('allow'), `${other} ${r.path}`).toBeTruthy();
      expect(res.body.code).toBe('method_not_allowed');
    }
  });

  it('the served OpenAPI document lists exactly the route table, and its version is the one the paths carry', async () => {
    const r = await api.get('/openapi.json');
    expect(r.status).toBe(200);
    const paths = Object.keys(r.body.paths);
    for (const route of ROUTES) expect(paths, route.path).toContain(route.path);
    expect(r.body.servers.map((s: { url: string }) => s.url).every((u: string) => u.endsWith('/api/v1'))).toBe(true);
  });
});
