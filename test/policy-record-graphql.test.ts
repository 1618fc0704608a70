import { getIntrospectionQuery, print } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyRecordFragmentDoc } from '../rest-compat/generated/operations.ts';
import { useKit, wsClient } from './kit.ts';

/**
 * The REST facade runs its operations without GraphQL's depth and cost limits (they are fixed, reviewed documents);
 * an integrator asking GraphQL for the same record must fit inside them too.
 */
const fragments = print(PolicyRecordFragmentDoc);

const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0 });
const o = t.useOrg({ fast: true });
beforeAll(() => o.pendingPolicy({ instalments: 2 }), 60_000);

describe('the full policy record over GraphQL', () => {
  it('a page of 25 full records stays within the default depth and cost limits; a page of 100 does not', async () => {
    const r = await o.api.gql(
      `query { policies(first: 25) { edges { node { ...PolicyRecord } } } }\n${fragments}`,
      {},
      { token: o.tokens.staff },
    );
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    expect(r.body.data.policies.edges.length).toBeGreaterThan(0);
    const p = r.body.data.policies.edges[0].node;
    for (const k of ['endorsements', 'cancellations', 'certificates', 'creditNotes', 'statusHistory', 'debitNotes'])
      expect(Array.isArray(p[k]), k).toBe(true);
    const big = await o.api.gql(
      `query { policies(first: 100) { edges { node { ...PolicyRecord } } } }\n${fragments}`,
      {},
      { token: o.tokens.staff },
    );
    expect(big.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
  });
});

describe('the cost limit counts the page a variable or an absent first asks for', () => {
  // Found by an outside check (2026-12-02): `first: $n` and an absent `first` counted as a page of one, so a page of
  // 100 full records passed the limit that refuses it written as `first: 100`.
  const BY_VARIABLE = `query($n: Int) { policies(first: $n) { edges { node { ...PolicyRecord } } } }\n${fragments}`;
  const ABSENT = `query { a: policies { edges { node { ...PolicyRecord } } } b: policies { edges { node { ...PolicyRecord } } } }\n${fragments}`;

  it('over HTTP: a page of 25 through a variable runs, 100 is 400 query_too_complex, as written', async () => {
    const ok = await o.api.gql(BY_VARIABLE, { n: 25 }, { token: o.tokens.staff });
    expect(ok.body.errors, JSON.stringify(ok.body.errors)).toBeUndefined();
    expect(ok.body.data.policies.edges.length).toBeGreaterThan(0);
    const big = await o.api.gql(BY_VARIABLE, { n: 100 }, { token: o.tokens.staff });
    expect(big.status).toBe(400);
    expect(big.body.data ?? null).toBeNull();
    expect(big.body.errors).toMatchObject([
      { extensions: { code: 'query_too_complex' }, message: expect.stringMatching(/Cost limit of 100000 exceeded/) },
    ]);
    // Two pages with `first` absent are two pages of 25.
    const absent = await o.api.gql(ABSENT, {}, { token: o.tokens.staff });
    expect(absent.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
  });

  it('over WebSocket alike', async () => {
    const ws = wsClient(t.origin, o.tokens.staff);
    try {
      const run = async (n: number) => {
        const it = ws.iterate({ query: BY_VARIABLE, variables: { n } });
        for await (const r of it) return r;
        return null;
      };
      const ok = await run(25);
      expect(ok?.errors, JSON.stringify(ok?.errors)).toBeUndefined();
      const big = await run(100);
      expect(big?.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
      expect(big?.data ?? null).toBeNull();
    } finally {
      await ws.dispose();
    }
  });
});

describe('operations that cost little to send and much to answer (an outside check, 2026-12-03)', () => {
  it('40 fragments each spreading the next twice: 400 query_too_complex at once, the service still answering', async () => {
    let doc = '{ ...F1 } ';
    for (let i = 1; i <= 40; i++) doc += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} } `;
    doc += 'fragment F41 on Query { __typename }';
    const r = await o.api.gql(doc, {}, { token: o.tokens.staff });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatchObject([{ extensions: { code: 'query_too_complex' } }]);
    expect((await o.api.gql('{ me { scopes } }', {}, { token: o.tokens.staff })).status).toBe(200);
  });

  it("a list selected inside itself (a policy's claims' policy's claims …) counts a page each time", async () => {
    const deep =
      '{ nodes(ids: ["UG9saWN5OjM="]) { ... on Policy { claims { claimNo policy { claims { claimNo policy { claims { claimNo policy { claims { claimNo } } } } } } } } } }';
    const r = await o.api.gql(deep, {}, { token: o.tokens.staff });
    expect(r.status).toBe(400);
    expect(r.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
  });

  it("a page size given as a variable's default counts as that page", async () => {
    const q = `query($n: Int = 100) { policies(first: $n) { edges { node { ...PolicyRecord } } } }\n${fragments}`;
    const r = await o.api.gql(q, {}, { token: o.tokens.staff });
    expect(r.status).toBe(400);
    expect(r.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
  });

  it('introspection with aliases is refused, with or without a token; the standard query answers', async () => {
    const aliases = Array.from({ length: 500 }, (_, i) => `t${i}: types { name fields { name type { name } } }`);
    for (const token of [o.tokens.staff, undefined]) {
      const r = await o.api.gql(`{ __schema { ${aliases.join(' ')} } }`, {}, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors).toMatchObject([
        { extensions: { code: 'query_too_complex' }, message: expect.stringMatching(/Introspection takes no aliases/) },
      ]);
    }
    const std = await o.api.gql(getIntrospectionQuery(), {}, { token: o.tokens.staff });
    expect(std.body.errors, JSON.stringify(std.body.errors)).toBeUndefined();
    expect(std.body.data.__schema.types.length).toBeGreaterThan(100);
  });
});
