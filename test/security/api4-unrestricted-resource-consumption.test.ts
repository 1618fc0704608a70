import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/lib/config.ts';
import { useKit, wsClient } from '../kit.ts';

// OWASP API4:2023 Unrestricted Resource Consumption: one request (one POST, one WebSocket message) must not buy more
// work than the token's budget and the operation limits allow, whichever transport carries it.

const LIMIT = 60;
const CAP = 50;
const t = useKit({ graphqlMaxRootFields: CAP });
const api = t.api;
// Tokens are the tests' own: every counter starts from a fresh one.
const org = t.useOrg({
  clientOverrides: { staff: { rateLimitPerMinute: LIMIT }, admin: { rateLimitPerMinute: LIMIT } },
  tokens: [],
});
const sockets: Client[] = [];
afterAll(() => Promise.all(sockets.map(async (s) => s.dispose())));

/** A fresh token: every counter below starts from a full budget. */
const freshToken = () => api.token(org.clients.staff.clientId, org.clients.staff.secret);
const aliased = (n: number, field: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => `a${i}: ${field(i)}`).join(' ');
const remainingOf = (r: { headers: Headers }) => Number(r.headers.get('ratelimit-remaining'));
const clientCount = () => t.db.tenant(org.id, (tx) => tx.client.count());
const createClients = (n: number) =>
  `mutation { ${aliased(n, () => `createClient(input: { name: "Batch ${randomUUID().slice(0, 8)} Kamau", phone: "07${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}" }) { __typename }`)} }`;

function ws(token: string): Client {
  const c = wsClient(t.origin, token);
  sockets.push(c);
  return c;
}

/** Runs one operation over graphql-ws and returns its first result, or the errors it was refused with. */
function overWs(c: Client, query: string): Promise<{ data?: any; errors?: any[] }> {
  return new Promise((resolve) => {
    let first: { data?: any; errors?: any[] } | undefined;
    c.subscribe(
      { query },
      {
        next: (r) => {
          first ??= r as { data?: any; errors?: any[] };
          resolve(first);
        },
        error: (e) => resolve({ errors: Array.isArray(e) ? e : [e] }),
        complete: () => resolve(first ?? {}),
      },
    );
  });
}
const codesOf = (r: { errors?: any[] }) => (r.errors ?? []).map((e) => e?.extensions?.code ?? e?.message ?? String(e));

describe('OWASP API4:2023 Unrestricted Resource Consumption', () => {
  describe("attack: many aliased root fields in one POST to spend one unit of the token's budget", () => {
    it('50 aliased root fields lower RateLimit-Remaining by 50', async () => {
      const token = await freshToken();
      const r = await api.gql(`{ ${aliased(50, () => 'me { scopes }')} }`, {}, { token });
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
      expect(Object.keys(r.body.data)).toHaveLength(50);
      expect(r.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      expect(remainingOf(r)).toBe(LIMIT - 50);
      // The next request sees the same count: the 50 were spent, not only reported.
      expect(remainingOf(await api.get('/me', { token }))).toBe(LIMIT - 51);
    });

    it('fields merged by GraphQL into one execution count once; __typename alone still costs one request', async () => {
      const token = await freshToken();
      const merged = await api.gql('{ me { scopes } me { scopes } __typename }', {}, { token });
      expect(merged.body.errors).toBeUndefined();
      expect(remainingOf(merged)).toBe(LIMIT - 1);
      const bare = await api.gql('{ __typename }', {}, { token });
      expect(bare.body.data).toEqual({ __typename: 'Query' });
      expect(remainingOf(bare)).toBe(LIMIT - 2);
    });

    it('counts root fields inside fragments and inline fragments on the root type', async () => {
      const token = await freshToken();
      const r = await api.gql(
        'query { ...Two ... on Query { c: me { scopes } } } fragment Two on Query { a: me { scopes } b: insurers { name } }',
        {},
        { token },
      );
      expect(r.body.errors).toBeUndefined();
      expect(remainingOf(r)).toBe(LIMIT - 3);
    });

    it('a batch larger than the remaining budget is refused whole with 429 rate_limited, and none of it runs', async () => {
      const token = await freshToken();
      expect(remainingOf(await api.gql(`{ ${aliased(50, () => 'me { scopes }')} }`, {}, { token }))).toBe(LIMIT - 50);
      const before = await clientCount();
      const refused = await api.gql(createClients(11), {}, { token });
      expect(refused.status).toBe(429);
      expect(refused.body.data ?? null).toBeNull();
      expect(refused.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['rate_limited']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit-remaining')).toBe('10');
      expect(await clientCount()).toBe(before);
      // Refused work is not charged: exactly the 10 left still fit.
      const fits = await api.gql(createClients(10), {}, { token });
      expect(fits.body.errors).toBeUndefined();
      expect(remainingOf(fits)).toBe(0);
      expect(await clientCount()).toBe(before + 10);
    });
  });

  describe('attack: more root fields in one operation than the cap', () => {
    it('is refused at validation with query_too_complex before anything runs or is charged', async () => {
      expect(loadConfig({ NODE_ENV: 'production' }).graphqlMaxRootFields).toBe(20);
      const token = await freshToken();
      const before = await clientCount();
      const r = await api.gql(createClients(CAP + 1), {}, { token });
      expect(r.body.data ?? null).toBeNull();
      expect(r.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
      expect(r.body.errors![0].message).toMatch(new RegExp(`${CAP + 1} root fields.*limit of ${CAP}`));
      expect(await clientCount()).toBe(before);
      expect(remainingOf(await api.get('/me', { token }))).toBe(LIMIT - 1);
    });

    it('counts the fields inside fragment spreads towards the cap', async () => {
      const token = await freshToken();
      const r = await api.gql(
        `query { ...F } fragment F on Query { ${aliased(CAP + 1, () => 'me { scopes }')} }`,
        {},
        { token },
      );
      expect(r.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
    });

    it('is refused over graphql-ws too', async () => {
      const token = await freshToken();
      const before = await clientCount();
      const r = await overWs(ws(token), createClients(CAP + 1));
      expect(codesOf(r)).toContain('query_too_complex');
      expect(await clientCount()).toBe(before);
    });
  });

  describe('attack: GraphQL over WebSocket to bypass the per-token limit', () => {
    it("queries over graphql-ws spend the same token's budget as HTTP", async () => {
      const token = await freshToken();
      const socket = ws(token);
      const r = await overWs(socket, `{ ${aliased(5, () => 'me { scopes }')} }`);
      expect(r.errors).toBeUndefined();
      expect(Object.keys(r.data)).toHaveLength(5);
      expect(remainingOf(await api.get('/me', { token }))).toBe(LIMIT - 6);
    });

    it('a subscription start counts as one request', async () => {
      const token = await api.token(org.clients.admin.clientId, org.clients.admin.secret);
      const socket = ws(token);
      const heard: any[] = [];
      socket.subscribe(
        { query: 'subscription { auditLogged { action } }' },
        { next: (r) => void heard.push(r), error: (e) => void heard.push(e), complete: () => undefined },
      );
      // Another client writes until the subscription hears it: then it has started (and was charged).
      const staffWriter = await freshToken();
      for (let i = 0; i < 30 && heard.length === 0; i++) {
        await api.post('/clients', {
          token: staffWriter,
          idempotencyKey: randomUUID(),
          body: { name: `Listener ${randomUUID().slice(0, 6)} Kamau`, phone: `0733${String(i).padStart(6, '0')}` },
        });
        for (let j = 0; j < 10 && heard.length === 0; j++) await new Promise((res) => setTimeout(res, 50));
      }
      expect(heard.length).toBeGreaterThan(0);
      expect(heard[0].errors).toBeUndefined();
      expect(heard[0].data.auditLogged.action).toEqual(expect.any(String));
      expect(remainingOf(await api.get('/me', { token }))).toBe(LIMIT - 2);
    });

    it('once the budget is spent over HTTP, WebSocket queries and subscription starts are refused with rate_limited', async () => {
      const token = await freshToken();
      const socket = ws(token);
      expect((await overWs(socket, '{ me { scopes } }')).errors).toBeUndefined();
      // The rest of the budget in two operations (one would exceed the root-field cap).
      expect(remainingOf(await api.gql(`{ ${aliased(CAP, () => 'me { scopes }')} }`, {}, { token }))).toBe(
        LIMIT - 1 - CAP,
      );
      expect(remainingOf(await api.gql(`{ ${aliased(LIMIT - 1 - CAP, () => 'me { scopes }')} }`, {}, { token }))).toBe(
        0,
      );
      expect(codesOf(await overWs(socket, '{ me { scopes } }'))).toEqual(['rate_limited']);
      expect(codesOf(await overWs(socket, 'subscription { paymentReceived { receiptNo } }'))).toEqual(['rate_limited']);
    });
  });

  describe('the limits that already held still hold', () => {
    it('depth and cost limits refuse with query_too_complex', async () => {
      const token = await freshToken();
      let deep = 'uuid';
      for (let level = 11; level >= 4; level--) deep = `${level % 2 === 0 ? 'endorsements' : 'policy'} { ${deep} }`;
      const tooDeep = await api.gql(`{ policies(first: 1) { edges { node { ${deep} } } } }`, {}, { token });
      expect(tooDeep.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
      expect(tooDeep.body.errors?.[0]?.message).toMatch(/depth limit/);
      const page =
        'policies(first: 100) { edges { node { endorsements { policy { endorsements { policy { uuid vehicles { regNo } } } } } } } }';
      const tooCostly = await api.gql(`{ ${aliased(15, () => page)} }`, {}, { token });
      expect(tooCostly.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
      expect(tooCostly.body.errors?.[0]?.message).toMatch(/Cost limit/);
    });

    it('a body over MAX_BODY_BYTES is refused with 413, on REST and on /graphql', async () => {
      const token = await freshToken();
      const big = 'x'.repeat(t.app.services.config.maxBodyBytes + 1);
      const rest = await api.post('/clients', {
        token,
        idempotencyKey: randomUUID(),
        rawBody: JSON.stringify({ name: big }),
        headers: { 'content-type': 'application/json' },
      });
      expect(rest.status).toBe(413);
      expect(rest.body.code).toBe('payload_too_large');
      const gql = await fetch(`${t.origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: `{ me { scopes } } # ${big}` }),
      });
      expect(gql.status).toBe(413);
    });
  });
});
