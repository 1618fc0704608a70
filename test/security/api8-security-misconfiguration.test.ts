import { randomBytes, randomUUID } from 'node:crypto';
import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { compileRoutes, parsedBody } from '../../rest-compat/executor.ts';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { schema } from '../../src/graphql/schema.ts';
import { type Config, loadConfig } from '../../src/lib/config.ts';
import { Api, useKit } from '../kit.ts';
import { coverBindBody } from '../kit/cover-bind.ts';

// OWASP API8:2023 Security Misconfiguration, the HTTP half (the start-up checks and the demo seed are in
// api8-security-misconfiguration-startup.test.ts). Each test names the attack it tries; `dev` runs the test defaults,
// `prod` the production defaults (with one allowlisted origin), `prodOpen` production with the schema tools turned on.

const EVIL = 'https://evil.example';
const APP = 'https://app.example';
const OWN_PASSKEY = randomBytes(32).toString('hex');
const SECRETS_KEY = randomBytes(32).toString('base64');

function production(env: Record<string, string> = {}): Partial<Config> {
  const c = loadConfig({ NODE_ENV: 'production', MPESA_PASSKEY: OWN_PASSKEY, SECRETS_KEY, CORS_ORIGINS: APP, ...env });
  const { nodeEnv, graphqlIntrospection, graphiql, corsOrigins, mpesaPasskey, secretsKey } = c;
  return { nodeEnv, graphqlIntrospection, graphiql, corsOrigins, mpesaPasskey, secretsKey };
}

const dev = useKit({ bindRateLimit: 100 });
const prod = useKit(production(), { sharing: dev });
const prodOpen = useKit(production({ GRAPHQL_INTROSPECTION: '1', GRAPHIQL: '1' }), { sharing: dev });
const api = dev.api;
const org = dev.useOrg({ tokens: ['staff', 'admin'] });
let staff: string;
let admin: string;
beforeAll(() => ({ staff, admin } = org.tokens));

const corsHeaders = (h: Headers) => [...h.keys()].filter((k) => k.startsWith('access-control-'));
const preflight = (url: string, origin: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
const gqlPost = (origin: string, token: string, query: string, from?: string) =>
  fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...(from ? { origin: from } : {}),
    },
    body: JSON.stringify({ query }),
  });

describe('OWASP API8:2023 Security Misconfiguration', () => {
  describe("CORS: a page on another origin reading answers made with the caller's credentials", () => {
    it('a preflight from https://evil.example gets no Access-Control-Allow-* headers (GraphQL and REST, with and without an allowlist)', async () => {
      for (const server of [dev, prod]) {
        for (const url of [
          `${server.origin}/graphql`,
          `${server.base}/me`,
          `${server.base}/clients`,
          `${server.base}/oauth/token`,
        ]) {
          const r = await preflight(url, EVIL);
          expect(corsHeaders(r.headers), url).toEqual([]);
        }
      }
    });

    it('an authenticated request from https://evil.example carries no Access-Control-Allow-* headers (GraphQL and REST)', async () => {
      for (const server of [dev, prod]) {
        const g = await gqlPost(server.origin, staff, '{ me { scopes } }', EVIL);
        expect(g.status).toBe(200);
        expect(corsHeaders(g.headers)).toEqual([]);
        const r = await new Api(server.origin).get('/me', { token: staff, headers: { origin: EVIL } });
        expect(r.status).toBe(200);
        expect(corsHeaders(r.headers)).toEqual([]);
      }
    });

    it('an origin on CORS_ORIGINS gets exactly itself back, Vary: Origin, and no credentials flag', async () => {
      for (const url of [`${prod.origin}/graphql`, `${prod.base}/clients`]) {
        const p = await preflight(url, APP);
        expect(p.status, url).toBe(204);
        expect(p.headers.get('access-control-allow-origin')).toBe(APP);
        expect(p.headers.get('vary')).toMatch(/\bOrigin\b/i);
        expect(p.headers.get('access-control-allow-methods')).toMatch(/\bPOST\b/);
        expect(p.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
        expect(p.headers.get('access-control-allow-credentials')).toBeNull();
      }
      const g = await gqlPost(prod.origin, staff, '{ me { scopes } }', APP);
      const r = await new Api(prod.origin).get('/me', { token: staff, headers: { origin: APP } });
      for (const h of [g.headers, r.headers]) {
        expect(h.get('access-control-allow-origin')).toBe(APP);
        expect(h.get('vary')).toMatch(/\bOrigin\b/i);
        expect(h.get('access-control-allow-credentials')).toBeNull();
        expect(h.get('access-control-expose-headers')?.toLowerCase()).toContain('x-request-id');
      }
    });

    it('refuses a wildcard or a malformed entry in CORS_ORIGINS at start-up', () => {
      expect(() => loadConfig({ CORS_ORIGINS: '*' })).toThrow(/CORS_ORIGINS/);
      expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example/path' })).toThrow(/CORS_ORIGINS/);
      expect(loadConfig({ CORS_ORIGINS: ' https://a.example , http://localhost:5173 ' }).corsOrigins).toEqual([
        'https://a.example',
        'http://localhost:5173',
      ]);
      expect(loadConfig({}).corsOrigins).toEqual([]);
    });
  });

  describe('production: mapping the schema through introspection and GraphiQL', () => {
    it('refuses __schema and __type queries (HTTP and WebSocket) and gives no field suggestions', async () => {
      const queries = [
        '{ __schema { types { name } } }',
        '{ __type(name: "Query") { fields { name } } }',
        '{ ...F } fragment F on Query { me { scopes } __schema { types { name } } }',
      ];
      // Twice each: a validation cache must not hand back an answer from before the rule.
      for (const q of [...queries, ...queries]) {
        const r = await (await gqlPost(prod.origin, staff, q)).json();
        expect(r.data, q).toBeUndefined();
        expect(r.errors[0].message).toMatch(/introspection is disabled/i);
      }
      for (const q of [
        '{ polices(first: 1) { edges { cursor } } }',
        '{ polices(first: 1) { edges { cursor } } }',
        '{ policies(frist: 1, status: ACTIV) { edges { cursr } } }',
      ]) {
        const typo = await (await gqlPost(prod.origin, staff, q)).json();
        expect(typo.errors.length, q).toBeGreaterThan(0);
        expect(JSON.stringify(typo.errors), q).not.toMatch(/did you mean/i);
      }
      const ws = createClient({
        url: `${prod.origin.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${staff}` },
        retryAttempts: 0,
      });
      try {
        const over = await new Promise<any>((resolve) => {
          ws.subscribe(
            { query: '{ __schema { queryType { name } } }' },
            { next: resolve, error: resolve, complete: () => undefined },
          );
        });
        expect(JSON.stringify(over)).toMatch(/introspection is disabled/i);
      } finally {
        await ws.dispose();
      }
      // Ordinary queries, __typename and the REST facade (whose operations are validated at boot) still work.
      const ok = await (await gqlPost(prod.origin, staff, '{ __typename me { scopes } }')).json();
      expect(ok.errors).toBeUndefined();
      expect(ok.data.__typename).toBe('Query');
      expect((await new Api(prod.origin).get('/me', { token: staff })).status).toBe(200);
    });

    it('does not serve GraphiQL to a browser', async () => {
      const r = await fetch(`${prod.origin}/graphql`, { headers: { accept: 'text/html' } });
      expect(r.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
      expect(await r.text()).not.toMatch(/graphiql/i);
    });

    it('serves both again with GRAPHQL_INTROSPECTION=1 and GRAPHIQL=1, and both are on by default outside production', async () => {
      const r = await (await gqlPost(prodOpen.origin, staff, '{ __schema { queryType { name } } }')).json();
      expect(r.data.__schema.queryType.name).toBe('Query');
      const page = await fetch(`${prodOpen.origin}/graphql`, { headers: { accept: 'text/html' } });
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('Bima Gateway GraphQL');
      for (const env of [{}, { NODE_ENV: 'development' }])
        expect(loadConfig(env)).toMatchObject({ graphqlIntrospection: true, graphiql: true });
      expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ graphqlIntrospection: false, graphiql: false });
    });
  });

  it('MIME sniffing: every answer carries X-Content-Type-Options: nosniff', async () => {
    const answers = await Promise.all([
      fetch(`${dev.origin}/healthz`),
      fetch(`${dev.origin}/nowhere`),
      fetch(`${dev.base}/openapi.json`),
      fetch(`${dev.base}/me`),
      fetch(`${dev.base}/me`, { headers: { authorization: `Bearer ${staff}` } }),
      fetch(`${dev.base}/oauth/token`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }),
      fetch(`${dev.origin}/graphql`, { headers: { accept: 'text/html' } }),
      gqlPost(dev.origin, staff, '{ me { scopes } }'),
      gqlPost(dev.origin, staff, '{ nonsense'),
      preflight(`${dev.origin}/graphql`, EVIL),
      preflight(`${dev.base}/me`, EVIL),
    ]);
    for (const r of answers) expect(r.headers.get('x-content-type-options'), `${r.url} ${r.status}`).toBe('nosniff');
  });

  describe('caches keeping credentials: Cache-Control: no-store', () => {
    it('on the token response (RFC 6749 §5.1) and on every REST and GraphQL answer, errors included', async () => {
      const token = await api.post('/oauth/token', {
        body: { client_id: org.clients.staff.clientId, client_secret: org.clients.staff.secret },
      });
      expect(token.status).toBe(200);
      const answers = [
        token,
        await api.get('/me', { token: staff }),
        await api.get('/clients', { token: staff }),
        await api.get('/me'),
      ];
      for (const r of answers) expect(r.headers.get('cache-control'), r.text.slice(0, 80)).toMatch(/\bno-store\b/);
      expect((await gqlPost(dev.origin, staff, '{ me { scopes } }')).headers.get('cache-control')).toMatch(
        /\bno-store\b/,
      );
    });

    // The routes that show a secret are the ones that redact it for an Idempotency-Key replay: that flag is the list.
    const secretRoutes = ROUTES.filter((r) => r.redactForReplay !== undefined);
    let endpointId = '';
    /** A bind for a new client each time (the kit's, priced by the server). */
    const bindBody = async () => (await org.bindBody()).body;
    const calls: Record<string, { token: () => string; params?: () => Record<string, string>; body?: () => unknown }> =
      {
        createApiClient: {
          token: () => admin,
          body: () => ({ name: `cache ${randomUUID().slice(0, 8)}`, scopes: ['read'] }),
        },
        rotateApiClientSecret: { token: () => admin, params: () => ({ client_id: org.clients.readonly.clientId }) },
        issueAgentKey: { token: () => admin, params: () => ({ id: String(org.agents[1].userId) }) },
        createWebhookEndpoint: {
          token: () => staff,
          body: () => ({ url: 'https://127.0.0.1:9/hooks', events: ['payment.received'] }),
        },
        rotateWebhookSecret: { token: () => staff, params: () => ({ id: endpointId }) },
        saveMotorPolicy: { token: () => staff, body: bindBody },
        saveMedicalPolicy: { token: () => staff, body: async () => (await coverBindBody(api, staff, 'medical')).body },
        saveTravelPolicy: { token: () => staff, body: async () => (await coverBindBody(api, staff, 'travel')).body },
        saveStandardPolicy: {
          token: () => staff,
          body: async () => (await coverBindBody(api, staff, 'standard')).body,
        },
      };
    const pathOf = (p: string, params: Record<string, string>) =>
      p.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(params[k]));

    it('covers every route that shows a secret (a new one needs a case here)', () => {
      expect(secretRoutes.map((r) => r.operationId).sort()).toEqual(Object.keys(calls).sort());
    });

    it('on each REST answer that shows a secret or key, and on the same GraphQL mutations', async () => {
      const ep = await api.post('/webhooks/endpoints', {
        token: staff,
        idempotencyKey: randomUUID(),
        body: { url: 'https://127.0.0.1:9/x', events: ['*'] },
      });
      endpointId = ep.body.data.id;
      const compiled = compileRoutes(schema, secretRoutes);
      for (const c of compiled) {
        const call = calls[c.route.operationId];
        const params = call.params?.() ?? {};
        const p = pathOf(c.route.path, params);
        const rest = await api.call(c.route.method, p, {
          token: call.token(),
          body: await call.body?.(),
          idempotencyKey: randomUUID(),
        });
        expect(rest.status, `${c.route.operationId}: ${rest.text}`).toBeLessThan(300);
        expect(rest.headers.get('cache-control'), c.route.operationId).toMatch(/\bno-store\b/);

        const input = {
          url: new URL(`${api.base}${p}`),
          params,
          query: new URLSearchParams(),
          body: await call.body?.(),
        };
        const res = await fetch(`${dev.origin}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${call.token()}` },
          body: JSON.stringify({
            query: print(c.document),
            variables: c.route.toVariables(parsedBody(c.route, input)),
          }),
        });
        const g = await res.json();
        expect(g.errors, c.route.operationId).toBeUndefined();
        expect(JSON.stringify(g.data)).not.toMatch(/"__typename":"\w*Problem"/);
        expect(res.headers.get('cache-control'), `GraphQL ${c.route.operationId}`).toMatch(/\bno-store\b/);
      }
    }, 60_000);
  });
});
