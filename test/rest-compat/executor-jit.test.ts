import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { accessRulesOf, compileRoutes, jitSafe } from '../../rest-compat/executor.ts';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { schema } from '../../src/graphql/schema.ts';

/**
 * Which facade operations run compiled (graphql-jit): only those whose every reachable object type has no
 * authorization `isTypeOf`, because graphql-jit calls `isTypeOf` without the context and does not await it.
 */
describe('the facade compiler', () => {
  it('compiles an operation of plain types and problem types, not one that reaches a type with an access rule', () => {
    expect(jitSafe(schema, parse('query { motorBenefits { id name } }'))).toBe(true);
    expect(
      jitSafe(schema, parse('query Q($input: MotorQuoteInput!) { motorQuote(input: $input) { __typename } }')),
    ).toBe(true);
    // Policy and Client carry access rules (src/graphql/access.ts), also when reached through a fragment.
    expect(jitSafe(schema, parse('query { policies(first: 1) { edges { node { policyNo } } } }'))).toBe(false);
    expect(
      jitSafe(
        schema,
        parse(
          'query { clients(first: 1) { ...C } } fragment C on QueryClientsConnection { edges { node { clientNo } } }',
        ),
      ),
    ).toBe(false);
    // A document the schema does not validate is never compiled (its types cannot be checked).
    expect(jitSafe(schema, parse('query { clients(first: 1) { ...C } } fragment C on NoSuchType { x }'))).toBe(false);
  });

  it('runs the quote compiled as it is, every read compiled for callers who see whole types, writes on graphql-js; FACADE_JIT=0 compiles none', () => {
    const byPath = (jit: boolean) =>
      new Map(
        compileRoutes(schema, ROUTES, { jit }).map((c) => [
          `${c.route.method} ${c.route.path}`,
          c.jit ? 'compiled' : c.wholeTypes ? 'whole types' : 'graphql-js',
        ]),
      );
    const on = byPath(true);
    expect(on.get('POST /motor/quote')).toBe('compiled');
    expect(on.get('GET /me')).toBe('compiled');
    expect(on.get('GET /clients')).toBe('whole types');
    expect(on.get('GET /policies/{uuid}')).toBe('whole types');
    expect(on.get('POST /motor/save')).toBe('graphql-js');
    // Every fixed read of the facade runs compiled one way or the other.
    const reads = [...on].filter(([route]) => route.startsWith('GET '));
    expect(reads.filter(([, how]) => how === 'graphql-js')).toEqual([]);
    expect([...byPath(false).values()].every((how) => how === 'graphql-js')).toBe(true);
  });

  it('compiles a query for whole types only when every type check it reaches is an access rule or synchronous', () => {
    const rules = (q: string) => accessRulesOf(schema, parse(q));
    expect(rules('query { clients(first: 1) { edges { node { clientNo branch { name } } } } }')?.rules.length).toBe(2);
    // An abstract type is told apart by its members' isTypeOf, which graphql-jit would call without the context.
    expect(rules('query { node(id: "1") { id } }')).toBeNull();
    expect(rules('mutation { __typename }')).toBeNull();
  });
});
