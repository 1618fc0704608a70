import { type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.ts';

/**
 * Which fields resolve straight from their row (src/graphql/column-fields.ts): those of a Prisma type that read only
 * the row's own scalar columns. They are called here with no context at all, which the Prisma plugin's wrapper could
 * not survive (it looks the row's loader mapping up in the context): an answer proves the wrapper was passed over. A
 * field reading a relation keeps the wrapper.
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

  it('a row without the column, and a field that reads a relation, go through the Prisma plugin', () => {
    // Without a context the plugin's wrapper cannot run: reaching it is what these throws show.
    expect(() => call('Client', 'clientNo', {})).toThrow();
    expect(() => call('Claim', 'policyNo', { policy: { policyNo: 'MTR-2026-000001' } })).toThrow();
  });
});
