import { describe, expect, it } from 'vitest';
import { snakeKeys } from '../../rest-compat/mappers/json-keys.ts';

describe('snakeKeys (JSON the core stored, as REST spells it)', () => {
  it('renames lower camelCase keys at any depth; snake_case keys, codes and values pass unchanged', () => {
    expect(
      snakeKeys({
        coverPeriod: 'annual',
        totalSumInsuredMinor: 600_000_000,
        items: [{ sumInsured: 4_000_000, idNo: 'A1', description: 'startDate stays a value' }],
        cover_type: 'family',
        terms: { waiting_periods: { illnessDays: 30 }, RIOT: { rateBps: 5 } },
        none: null,
      }),
    ).toEqual({
      cover_period: 'annual',
      total_sum_insured_minor: 600_000_000,
      items: [{ sum_insured: 4_000_000, id_no: 'A1', description: 'startDate stays a value' }],
      cover_type: 'family',
      terms: { waiting_periods: { illness_days: 30 }, RIOT: { rate_bps: 5 } },
      none: null,
    });
    expect(snakeKeys(null)).toBeNull();
  });

  it("keeps a `__proto__` key as an own key, as it was stored, and never as the copy's prototype", () => {
    const stored = JSON.parse('{"__proto__": {"polluted": true}, "sumInsured": 1}') as Record<string, unknown>;
    const copy = snakeKeys(stored);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'sum_insured']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"sum_insured":1}');
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
