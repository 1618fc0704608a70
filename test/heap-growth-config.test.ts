import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/lib/config.ts';

// Issue 28 (memory): the V8 heap's growth past its live size is the operator's to set, within V8's own range.
describe('HEAP_GROWTH_PERCENT', () => {
  it("defaults to 0 (V8's own, from the machine's memory); 100 holds the heap to about twice its live size", () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '100' }).heapGrowthPercent).toBe(100);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '250' }).heapGrowthPercent).toBe(250);
  });

  it('refuses what is not a whole number from 0 to 1000, naming the setting', () => {
    for (const bad of ['-1', '1.5', 'lots', '1001'])
      expect(() => loadConfig({ HEAP_GROWTH_PERCENT: bad })).toThrow(/HEAP_GROWTH_PERCENT/);
  });
});
