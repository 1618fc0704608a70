import { getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { introspectionProblem, operationCost } from '../src/graphql/cost.plugin.ts';
import { schema } from '../src/graphql/schema.ts';

/**
 * The cost an operation is charged against GRAPHQL_MAX_COST (src/graphql/cost.plugin.ts), against figures worked by
 * hand from the documented rule: 1 a scalar, 2 an object, ×1.5 per level of nesting, × the records a list answers.
 * Found by an outside check (2026-12-02): graphql-armor's rule took `first: $n` and an absent `first` as one record.
 */
const cost = (query: string, variables?: Record<string, unknown>) =>
  operationCost(schema, parse(query), undefined, variables);

// node { uuid } = 2 + 1.5×1 = 3.5; edges = 2 + 1.5×3.5 = 7.25; policies(page of n) = (2 + 1.5×7.25) × n = 12.875n
const PAGE = (first: string) => `policies${first} { edges { node { uuid } } }`;

describe('operationCost', () => {
  it('multiplies a connection by its page size written in the document', () => {
    expect(cost(`{ ${PAGE('(first: 10)')} }`)).toBe(128.75);
    expect(cost(`{ ${PAGE('(last: 4)')} }`)).toBe(51.5);
  });

  it('takes a page size from its variable', () => {
    const q = `query($n: Int) { ${PAGE('(first: $n)')} }`;
    expect(cost(q, { n: 10 })).toBe(128.75);
    expect(cost(q, { n: 100 })).toBe(1287.5);
  });

  it('counts an absent page size as the 25 a connection reads, and one over 100 as the 100 it reads', () => {
    expect(cost(`{ ${PAGE('')} }`)).toBe(12.875 * 25);
    expect(cost(`query($n: Int) { ${PAGE('(first: $n)')} }`, {})).toBe(12.875 * 25);
    expect(cost(`{ ${PAGE('(first: 5000)')} }`)).toBe(1287.5);
  });

  it('multiplies nodes by its ids, literal or variable', () => {
    // (2 + 1.5×1) per id
    expect(cost('{ nodes(ids: ["a", "b", "c"]) { id } }')).toBe(10.5);
    expect(cost('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: ['a', 'b', 'c', 'd'] })).toBe(14);
  });

  it('multiplies an ERP export page by perPage, 100 when absent', () => {
    // records { id } = 2 + 1.5 = 3.5; erpPolicies = (2 + 1.5×3.5) × perPage = 7.25 × perPage
    expect(cost('{ erpPolicies(perPage: 10) { records { id } } }')).toBe(72.5);
    expect(cost('{ erpPolicies { records { id } } }')).toBe(725);
  });

  it('counts a fragment as the fields inside it, spread or inline', () => {
    const written = cost(`{ ${PAGE('(first: 10)')} }`);
    expect(cost(`{ policies(first: 10) { edges { node { ...F } } } } fragment F on Policy { uuid }`)).toBe(written);
    expect(cost(`{ policies(first: 10) { edges { node { ... on Policy { uuid } } } } }`)).toBe(written);
  });

  it('counts introspection as nothing (its shape is held instead: introspectionProblem below)', () => {
    expect(cost('{ __schema { types { name } } }')).toBe(0);
    expect(cost('{ __type(name: "Policy") { fields { name } } me { scopes } }')).toBe(2 + 1.5);
  });

  it('counts a fragment spread n times through nested fragments 2^n times, reckoning each once', () => {
    // Found by an outside check (2026-12-03): 40 fragments each spreading the next twice held the process for
    // minutes while the walk expanded them 2^40 times. F41 = __typename = 1; Fk = 2 × F(k+1): F1 = 2^40.
    let doc = '{ ...F1 } ';
    for (let i = 1; i <= 40; i++) doc += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} } `;
    doc += 'fragment F41 on Query { __typename }';
    expect(cost(doc)).toBe(2 ** 40);
  });

  it("takes a variable's default when it is not given", () => {
    // Found by an outside check (2026-12-03): `$n: Int = 100` was counted as an absent first (25).
    expect(cost(`query($n: Int = 100) { ${PAGE('(first: $n)')} }`)).toBe(1287.5);
    expect(cost(`query($n: Int = 100) { ${PAGE('(first: $n)')} }`, { n: 4 })).toBe(51.5);
    expect(cost('query($p: Int = 10) { erpPolicies(perPage: $p) { records { id } } }')).toBe(72.5);
    expect(cost('query($ids: [ID!]! = ["a", "b"]) { nodes(ids: $ids) { id } }')).toBe(7);
  });

  it('counts a list that takes no size once, and a page of 25 where it is selected again inside itself', () => {
    // Found by an outside check (2026-12-03): a policy's claims' policy's claims … four deep answered 21 MB.
    // Inner claims { claimNo } = (2 + 1.5×1) × 25 = 87.5; policy = 2 + 1.5×87.5 = 133.25;
    // outer claims = (2 + 1.5×(1 + 133.25)) × 1 = 203.375; nodes (one id) = 2 + 1.5×203.375 = 307.0625
    expect(cost('{ nodes(ids: ["a"]) { ... on Policy { claims { claimNo policy { claims { claimNo } } } } } }')).toBe(
      307.0625,
    );
    // Once, with no repeat: receipts { id } = 2 + 1.5 = 3.5; policy = 2 + 1.5×3.5 = 7.25
    expect(cost('{ policy(uuid: "x") { receipts { id } } }')).toBe(7.25);
  });

  it("multiplies another list by its first or last as given (a ledger's lines)", () => {
    // ledger { at } = (2 + 1.5×1) × 200 = 700; smsBalance = 2 + 1.5×700 = 1052
    expect(cost('{ smsBalance { ledger(last: 200) { at } } }')).toBe(1052);
  });

  it('adds up root fields, aliases each counted', () => {
    expect(cost(`{ a: ${PAGE('(first: 1)')} b: ${PAGE('(first: 2)')} }`)).toBe(12.875 * 3);
  });
});

describe('introspectionProblem', () => {
  const problem = (query: string) => introspectionProblem(schema, parse(query), undefined);

  it('passes the standard introspection query, every option on or none', () => {
    expect(problem(getIntrospectionQuery())).toBeNull();
    const all = { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true };
    expect(problem(getIntrospectionQuery({ ...all, inputValueDeprecation: true, oneOf: true }))).toBeNull();
    expect(problem('{ __type(name: "Policy") { name fields { name type { name ofType { name } } } } }')).toBeNull();
  });

  it('refuses aliases inside introspection, and a list nested in itself (an outside check, 2026-12-03)', () => {
    // 500 aliases of `types { … }` answered 40 MB; 6,000 ran the process out of memory.
    expect(problem('{ __schema { a: types { name } b: types { name } } }')).toMatch(/no aliases \(a: types\)/);
    expect(problem('{ s: __schema { types { name } } }')).toMatch(/no aliases/);
    expect(problem('{ __schema { ...S } } fragment S on __Schema { x: directives { name } }')).toMatch(/no aliases/);
    expect(problem('{ __schema { types { fields { type { ofType { fields { name } } } } } } }')).toMatch(
      /__Type.fields once on a path/,
    );
    // Outside introspection, aliases are the cost limit's business.
    expect(problem('{ a: me { scopes } b: me { scopes } }')).toBeNull();
  });
});
