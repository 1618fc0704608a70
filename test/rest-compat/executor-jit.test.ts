import {
  execute,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { accessRulesOf, compileRoutes, engineFor, jitSafe, reachGaps } from '../../rest-compat/executor.ts';
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

  it('finds where an operation reaches records through a field that does not keep reach', () => {
    const gaps = (q: string) => reachGaps(schema, parse(q));
    // The root list applies the visibility fragment, a policy's rows are the policy's, its holder is within reach.
    expect(gaps('query { policies(first: 1) { edges { node { client { name } debitNotes { number } } } } }')).toEqual(
      [],
    );
    // A fragment is judged where it is spread.
    expect(
      gaps('query { policy(uuid: "x") { ...P } } fragment P on Policy { vehicles { regNo } renewal { uuid } }'),
    ).toEqual([]);
    // A debit note's allocations are not marked (a receipt on account may be another client's): each needs its check.
    expect(gaps('query { policy(uuid: "x") { debitNotes { allocations { amount { amountMinor } } } } }')).toEqual([
      'policy.debitNotes.allocations',
    ]);
    // Every fixed read keeps reach but one, whose types are for staff only (webhook endpoints).
    const gapped = ROUTES.filter((r) => r.method === 'GET')
      .map((r) => [r.path, reachGaps(schema, r.operation)] as const)
      .filter(([, g]) => g === null || g.length > 0);
    expect(gapped).toEqual([['/webhooks/endpoints/{id}/deliveries', ['webhookEndpoint.deliveries.event']]]);
    expect(gaps('query { node(id: "1") { id } }')).toBeNull();
    expect(gaps('mutation { __typename }')).toBeNull();
  });

  it('counts a mark only on a root field or a field of a record type, never on a wrapper made by an unmarked root', () => {
    const keeps = { keepsReach: true };
    const Rec = new GraphQLObjectType({
      name: 'Rec',
      fields: { id: { type: GraphQLInt } },
      extensions: {
        accessRule: { scopes: ['read'], reach: { via: { model: 'policy', where: () => ({}) }, id: () => 1 } },
      },
    });
    const Wrap = new GraphQLObjectType({
      name: 'Wrap',
      fields: { recs: { type: new GraphQLList(Rec), extensions: keeps } },
    });
    const tiny = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: {
          recs: { type: new GraphQLList(Rec), extensions: keeps },
          wrap: { type: Wrap },
          keptWrap: { type: Wrap, extensions: keeps },
        },
      }),
    });
    expect(reachGaps(tiny, parse('{ recs { id } }'))).toEqual([]);
    expect(reachGaps(tiny, parse('{ wrap { recs { id } } }'))).toEqual(['wrap.recs']);
    expect(reachGaps(tiny, parse('{ keptWrap { recs { id } } }'))).toEqual([]);
  });

  it('runs the everyday reads compiled for an agent holding the scopes, others as the rules would', () => {
    const routes = new Map(compileRoutes(schema, ROUTES).map((c) => [`${c.route.method} ${c.route.path}`, c]));
    const caller = (ownRecordsOnly: boolean, scopes: Scope[]) =>
      ({
        scopes: new Set(scopes),
        actor: { userId: 7, role: ownRecordsOnly ? 'agent' : 'exec', ownRecordsOnly },
      }) as unknown as Principal;
    const agent = caller(true, ['read', 'bind', 'crm']);
    const staff = caller(false, ['read', 'bind', 'crm']);
    const engine = (route: string, p: Principal) => engineFor(routes.get(route)!, p);
    for (const route of [
      'GET /clients',
      'GET /clients/{client_no}',
      'GET /policies',
      'GET /policies/{uuid}',
      'GET /claims',
      'GET /claims/{uuid}',
    ]) {
      expect(`${route}: ${engine(route, agent)}`).toBe(`${route}: compiled without rules`);
      expect(`${route}: ${engine(route, staff)}`).toBe(`${route}: compiled without rules`);
    }
    // An agent short of every scope of a type is left to the rules (which refuse); so is a route with a gap.
    expect(engine('GET /policies', caller(true, ['quote']))).toBe('graphql-js');
    expect(engine('GET /receipts', agent)).toBe('compiled without rules');
    expect(engine('GET /events', agent)).toBe('compiled without rules');
    // A route of staff-only types is never run without its rules for an agent: the rule refuses (actor_forbidden).
    expect(engine('GET /webhooks/endpoints', agent)).toBe('graphql-js');
    expect(engine('GET /webhooks/endpoints', caller(false, ['webhooks']))).toBe('compiled without rules');
    expect(engine('POST /motor/quote', agent)).toBe('compiled');
  });

  it("writes leaves as they come, and in checked mode (the tests') refuses one its serializer would change", async () => {
    const Kind = new GraphQLEnumType({
      name: 'Kind',
      values: { MOTOR: { value: 'MOTOR' }, MEDICAL: { value: 'med' } },
    });
    const row = { name: 'Wanjiru', phone: 254700000001, id: 7, kind: 'MOTOR', other: 'med', tags: ['a', 3] };
    const Row = new GraphQLObjectType({
      name: 'Row',
      fields: {
        name: { type: GraphQLString },
        phone: { type: GraphQLString },
        id: { type: GraphQLID },
        kind: { type: Kind },
        other: { type: Kind },
        tags: { type: new GraphQLList(GraphQLString) },
        count: { type: GraphQLInt, resolve: () => Promise.resolve(2.5) },
      },
    });
    const tiny = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { row: { type: Row, resolve: () => row } } }),
    });
    const operation = parse('query T { row { name phone id kind other tags count } }');
    const route = { method: 'GET', path: '/t', operation } as unknown as (typeof ROUTES)[number];
    const run = async (columns: 'inline' | 'checked') => {
      const [c] = compileRoutes(tiny, [route], { columns });
      return c.jit!.query(undefined, {}, {});
    };
    // graphql-js serializes each leaf: the number as a string, the enum's internal value as its name.
    const js = await execute({ schema: tiny, document: operation });
    expect(js.data?.row).toMatchObject({ name: 'Wanjiru', phone: '254700000001', id: '7', other: 'MEDICAL' });
    // Compiled, the values are written as they come (production: no serializer call, no response path per leaf)…
    const inline = await run('inline');
    expect(inline.data?.row).toMatchObject({ name: 'Wanjiru', phone: 254700000001, id: 7, other: 'med' });
    // …which is why the tests' checked mode refuses every value a serializer would have changed, each by its field.
    const checked = await run('checked');
    expect(checked.data?.row).toMatchObject({ name: 'Wanjiru', kind: 'MOTOR', phone: null, id: null, other: null });
    const refused = (checked.errors ?? []).map((e) => `${e.path?.join('.')}: ${e.message}`).sort();
    expect(refused).toEqual([
      'row.count: Int cannot represent non-integer value: 2.5',
      'row.id: Row.id: a compiled operation met 7, which ID writes as "7"',
      'row.other: Row.other: a compiled operation met "med", which Kind writes as "MEDICAL"',
      'row.phone: Row.phone: a compiled operation met 254700000001, which String writes as "254700000001"',
      'row.tags: Row.tags: a compiled operation met 3, which String writes as "3"',
    ]);
  });
});
