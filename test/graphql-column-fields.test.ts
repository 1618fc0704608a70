import { type GraphQLObjectType, type GraphQLResolveInfo, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { WHOLE_SELECTION } from '../src/db/selection-sql.ts';
import { argumentsAgree } from '../src/graphql/column-fields.ts';
import { schema } from '../src/graphql/schema.ts';

/**
 * Which fields resolve straight from their row (src/graphql/column-fields.ts): those of a Prisma type that read only
 * the row's own scalar columns. They are called here with no context at all, which the Prisma plugin's wrapper could
 * not survive (it looks the row's loader mapping up in the context): an answer proves the wrapper was passed over. A
 * field reading columns of a row one relation away passes it over too when the row carries them; a relation field
 * keeps the wrapper.
 */
const field = (type: string, name: string) => (schema.getType(type) as GraphQLObjectType).getFields()[name];
const info = { path: { key: 'x', prev: undefined } } as unknown as GraphQLResolveInfo;
const call = (type: string, name: string, row: object) => field(type, name).resolve!(row, {}, undefined, info);

describe('columns from the row', () => {
  it('an exposed column answers from the row, null included', () => {
    expect(call('Client', 'clientNo', { clientNo: 'C-000042' })).toBe('C-000042');
    expect(call('Client', 'email', { email: null })).toBeNull();
  });

  it('a field computed from its own columns runs its resolver on the row', () => {
    expect(call('Claim', 'estimatedLoss', { estimatedLossMinor: 1_250_050n })).toMatchObject({ cents: 1_250_050n });
  });

  it("a field reading columns one relation away answers from the relation's row when the row carries it", () => {
    expect(call('Claim', 'policyNo', { policy: { policyNo: 'MTR-2026-000001', uuid: 'u' } })).toBe('MTR-2026-000001');
    expect(call('Claim', 'clientName', { client: { name: 'Wanjiru Otieno' } })).toBe('Wanjiru Otieno');
  });

  it('a row without the column, a relation row without it, and a relation field go through the Prisma plugin', () => {
    // Without a context the plugin's wrapper cannot run: reaching it is what these throws show.
    expect(() => call('Client', 'clientNo', {})).toThrow();
    expect(() => call('Claim', 'policyNo', {})).toThrow();
    expect(() => call('Claim', 'policyNo', { policy: { uuid: 'u' } })).toThrow(); // loaded elsewhere, narrower
    expect(() => call('Claim', 'policyNo', { policy: [{ policyNo: 'x' }] })).toThrow(); // not a row
    expect(() => call('Claim', 'insurer', { insurer: { id: 1, name: 'Simba General' } })).toThrow();
  });
});

describe('a relation read from a planned row (fromPlannedRow)', () => {
  const planned = (row: object) => ({ [WHOLE_SELECTION]: true, ...row });
  const infoOf = (query: string) => {
    const doc = parse(query);
    const operation = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
    const fragments = Object.fromEntries(
      doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    return { path: { key: 'x', prev: undefined }, operation, fragments } as unknown as GraphQLResolveInfo;
  };
  const callIn = (query: string, type: string, name: string, row: object, args: object = {}) =>
    field(type, name).resolve!(row, args, undefined, infoOf(query));

  it('a field declaring the relation it reads answers from a planned row, and goes the Prisma way from any other', () => {
    // renewalOf null in the row: nothing to check against the caller's reach, no context needed.
    expect(call('Policy', 'renewalOf', planned({ renewalOf: null }))).toBeNull();
    expect(call('Policy', 'renewal', planned({ renewal: null }))).toBeNull();
    expect(call('Claim', 'policy', planned({ policy: null }))).toBeNull();
    for (const type of ['Claim', 'Prospect', 'IpfApplication', 'IpfLoan'])
      expect(call(type, 'client', planned({ client: null }))).toBeNull();
    expect(() => call('Policy', 'renewalOf', { renewalOf: null })).toThrow(); // not from a plan
    expect(() => call('Policy', 'renewalOf', planned({}))).toThrow(); // without the relation
  });

  it('a relation taking arguments answers from the row only where the operation asks for it with one set', () => {
    const rows = [{ uuid: 'e1' }];
    const once = '{ policies { edges { node { endorsements(all: true) { uuid } } } } }';
    expect(callIn(once, 'Policy', 'endorsements', planned({ endorsements: rows }), { all: true })).toBe(rows);
    const viaFragment = '{ a: policies { edges { node { ...F } } } } fragment F on Policy { endorsements { uuid } }';
    expect(callIn(viaFragment, 'Policy', 'endorsements', planned({ endorsements: rows }))).toBe(rows);
    const twice = '{ policies { edges { node { endorsements { uuid } all: endorsements(all: true) { uuid } } } } }';
    expect(() => callIn(twice, 'Policy', 'endorsements', planned({ endorsements: rows }))).toThrow();
    const inFragment = `{ policies { edges { node { endorsements { uuid } ...F } } } }
      fragment F on Policy { endorsements(all: $all) { uuid } }`;
    expect(() => callIn(inFragment, 'Policy', 'endorsements', planned({ endorsements: rows }))).toThrow();
  });

  it('argumentsAgree compares arguments by name and value, a variable by its name', () => {
    const agree = (q: string) => argumentsAgree(infoOf(q), 'endorsements');
    expect(agree('{ a { endorsements(all: true, x: 1) } b { endorsements(x: 1, all: true) } }')).toBe(true);
    expect(agree('query($v: Boolean) { a { endorsements(all: $v) } b { endorsements(all: $v) } }')).toBe(true);
    expect(agree('query($v: Boolean) { a { endorsements(all: $v) } b { endorsements(all: true) } }')).toBe(false);
    expect(agree('{ a { endorsements } b { endorsements(all: false) } }')).toBe(false); // a default spelt out
    expect(agree('{ a { cancellations(all: true) } b { endorsements } }')).toBe(true);
  });
});
