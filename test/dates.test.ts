import { describe, expect, it } from 'vitest';
import { fromDbDate } from '../src/lib/dates.ts';

// fromDbDate answers from a bounded table by time value (src/lib/dates.ts); the naive second implementation is the
// UTC calendar date written out from the Date's own fields.
const naive = (d: Date) =>
  `${String(d.getUTCFullYear()).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;

describe('fromDbDate', () => {
  it('is the UTC calendar date, first time and every time after, across more dates than it keeps', () => {
    const start = Date.UTC(1940, 0, 1);
    const times: number[] = [];
    // 12,000 days (more than the 10,000 kept) and instants within a day, each asked for twice.
    for (let i = 0; i < 12_000; i++) times.push(start + i * 86_400_000, start + i * 86_400_000 + 86_399_999);
    for (const round of [1, 2])
      for (const t of times) expect(fromDbDate(new Date(t)), `${t} (round ${round})`).toBe(naive(new Date(t)));
  });

  it('throws for an invalid Date, as toISOString does, and keeps answering after', () => {
    expect(() => fromDbDate(new Date(Number.NaN))).toThrow(RangeError);
    expect(fromDbDate(new Date(Date.UTC(2026, 11, 3)))).toBe('2026-12-03');
  });
});
