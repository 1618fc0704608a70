import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compileRoutes, jitSafe } from '../../rest-compat/executor.ts';
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

  it('runs the quote compiled and the client and policy reads on graphql-js; FACADE_JIT=0 compiles none', () => {
    const byPath = (jit: boolean) =>
      new Map(compileRoutes(schema, ROUTES, { jit }).map((c) => [`${c.route.method} ${c.route.path}`, c.jit !== null]));
    const on = byPath(true);
    expect(on.get('POST /motor/quote')).toBe(true);
    expect(on.get('GET /me')).toBe(true);
    expect(on.get('GET /clients')).toBe(false);
    expect(on.get('GET /policies/{uuid}')).toBe(false);
    expect(on.get('POST /motor/save')).toBe(false);
    expect([...byPath(false).values()].some(Boolean)).toBe(false);
  });
});
