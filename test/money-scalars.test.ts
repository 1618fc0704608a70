import type { GraphQLScalarType } from 'graphql';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.ts';

/**
 * The money scalars' output (src/graphql/scalars.ts): an amount leaves as the JSON integer it is, only when a JSON
 * number holds it exactly (|n| ≤ 2^53 − 1); anything else is refused rather than shown rounded.
 */
describe('Cents and Shillings as answered', () => {
  for (const name of ['Cents', 'Shillings']) {
    const serialize = (v: unknown) => (schema.getType(name) as GraphQLScalarType).serialize(v);

    it(`${name}: a stored amount leaves exactly, at the edges of what a JSON number holds exactly`, () => {
      expect(serialize(0n)).toBe(0);
      expect(serialize(123_456n)).toBe(123_456);
      expect(serialize(-5_000n)).toBe(-5_000);
      expect(serialize(9_007_199_254_740_991n)).toBe(9_007_199_254_740_991);
      expect(serialize(-9_007_199_254_740_991n)).toBe(-9_007_199_254_740_991);
      expect(serialize(42)).toBe(42);
    });

    it(`${name}: an amount a JSON number cannot hold exactly, a fraction or not a number is refused`, () => {
      for (const v of [9_007_199_254_740_992n, -9_007_199_254_740_992n, 2n ** 63n, 2 ** 60, 1.5, NaN, '100', null, {}])
        expect(() => serialize(v), inspect(v)).toThrow(`${name} value out of range`);
    });
  }
});
