import { type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
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
