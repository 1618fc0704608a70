import {
  buildSchema,
  getOperationAST,
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { FIELD_ERROR_CODES, FIELD_ERROR_MESSAGES, variableErrors } from '../../src/graphql/variable-errors.ts';
import { PROBLEM_CATALOGUE } from '../../src/lib/problem.ts';

const defs = (schema: GraphQLSchema, doc: string) => getOperationAST(parse(doc))!.variableDefinitions ?? [];

const sdl = buildSchema(`
  enum Colour { red green }
  input Item { name: String! qty: Int }
  input Order { note: String! items: [Item!] colour: Colour flag: Boolean = false }
  type Query { order(o: Order!, n: Int): String }
`);
const orderDefs = defs(sdl, 'query($o: Order!, $n: Int) { order(o: $o, n: $n) }');

/**
 * The refusals of variable coercion as data: the path from the schema's type at the position graphql-js reports,
 * never from its message (which quotes the caller's value, so a "; " or a `Field "x"` in free text once moved it).
 */
describe('variableErrors', () => {
  it('names a missing member itself, not the object holding it, whatever the other members say', () => {
    const note = 'a; Field "name" of required type "String!" was not provided.; "}';
    expect(variableErrors(sdl, orderDefs, { o: { items: [{ qty: 1, note }] } })).toEqual([
      { field: 'o.note', code: 'required', message: 'required' },
      { field: 'o.items.0.name', code: 'required', message: 'required' },
      { field: 'o.items.0.note', code: 'unknown_field', message: 'is not a known field' },
    ]);
  });

  it('reads the kind of a wrong value from the type at its position', () => {
    expect(
      variableErrors(sdl, orderDefs, { o: { note: 1, items: { name: 'x', qty: '2' }, colour: 'blue' }, n: 2 ** 31 }),
    ).toEqual([
      { field: 'o.note', code: 'not_a_string', message: 'must be a string' },
      // A single value where a list belongs is a list of one (graphql-js), so its position is the item's.
      { field: 'o.items.qty', code: 'not_a_whole_number', message: 'must be a whole number' },
      { field: 'o.colour', code: 'not_one_of', message: 'must be one of: red, green' },
      { field: 'n', code: 'out_of_range', message: 'must be a whole number from -2147483648 to 2147483647' },
    ]);
  });

  it('a missing or null required variable is required; an absent optional one or a default is fine', () => {
    expect(variableErrors(sdl, orderDefs, {})).toEqual([{ field: 'o', code: 'required', message: 'required' }]);
    expect(variableErrors(sdl, orderDefs, { o: null })).toEqual([
      { field: 'o', code: 'required', message: 'required' },
    ]);
    expect(variableErrors(sdl, orderDefs, { o: { note: 'x' } })).toEqual([]);
    expect(variableErrors(sdl, orderDefs, { o: 'junk' })).toEqual([
      { field: 'o', code: 'not_an_object', message: 'must be an object' },
    ]);
  });

  it("a custom scalar's refusal, however it throws, reads its own plain words or a generic one", () => {
    const plain = new GraphQLScalarType({
      name: 'Shillings',
      parseValue: () => {
        throw new Error('Shillings: "x" is not a Money!');
      },
    });
    const worded = new GraphQLScalarType({
      name: 'Cents2',
      extensions: { invalidValue: 'must be a whole number of cents' },
      parseValue: () => {
        throw new GraphQLError('Cents2 cannot represent "x"');
      },
    });
    const input = new GraphQLInputObjectType({
      name: 'Pay',
      fields: { a: { type: plain }, b: { type: new GraphQLNonNull(worded) }, c: { type: GraphQLString } },
    });
    const s = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { pay: { type: GraphQLString, args: { p: { type: input } } } },
      }),
    });
    expect(variableErrors(s, defs(s, 'query($p: Pay) { pay(p: $p) }'), { p: { a: 'x', b: 'x' } })).toEqual([
      { field: 'p.a', code: 'invalid_value', message: 'is not a valid value' },
      { field: 'p.b', code: 'invalid_value', message: 'must be a whole number of cents' },
    ]);
  });
});

/** Names a reader of a REST or GraphQL message should never meet: GraphQL type syntax and internal spellings. */
const NOT_PLAIN = /\b(String|Int|Float|Boolean|ID)\b|!|"|\$|\b[a-z]+[A-Z]\w*\b|Variable|Expected type/;

describe('the catalogues are plain words', () => {
  it('every field refusal message', () => {
    for (const m of Object.values(FIELD_ERROR_MESSAGES)) expect(m).not.toMatch(NOT_PLAIN);
    expect(FIELD_ERROR_CODES).toContain('not_one_of');
    for (const c of FIELD_ERROR_CODES) expect(c).toMatch(/^[a-z_]+$/);
  });

  it('every problem title', () => {
    for (const { title } of Object.values(PROBLEM_CATALOGUE)) expect(title).not.toMatch(NOT_PLAIN);
  });
});
