import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost } from '../src/graphql/cost.plugin.ts';
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

  it('counts a fragment as the fields inside it, spread or inline, and introspection as nothing', () => {
    const written = cost(`{ ${PAGE('(first: 10)')} }`);
    expect(cost(`{ policies(first: 10) { edges { node { ...F } } } } fragment F on Policy { uuid }`)).toBe(written);
    expect(cost(`{ policies(first: 10) { edges { node { ... on Policy { uuid } } } } }`)).toBe(written);
    expect(cost('{ __schema { types { name } } }')).toBe(0);
  });

  it('adds up root fields, aliases each counted', () => {
    expect(cost(`{ a: ${PAGE('(first: 1)')} b: ${PAGE('(first: 2)')} }`)).toBe(12.875 * 3);
  });
});
