import { describe, expect, it } from 'vitest';
import { fromDbDate, isoInstant, nairobiIso, utcYmd } from '../src/lib/dates.ts';

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

// isoInstant, utcYmd and nairobiIso write an instant's day from a bounded table and its time of day by arithmetic
// (src/lib/dates.ts); each is held to hand-written strings and to a naive second implementation from the Date's own
// UTC fields, across more days than the table keeps, negative instants, and the edges of years 0000–9999.
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const naiveIso = (d: Date) =>
  `${naive(d)}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z`;
const naiveNairobi = (d: Date) => {
  const n = new Date(d.getTime() + 3 * 3_600_000);
  return `${naive(n)}T${pad(n.getUTCHours())}:${pad(n.getUTCMinutes())}:${pad(n.getUTCSeconds())}+03:00`;
};

describe('isoInstant, utcYmd and nairobiIso', () => {
  it('write hand-worked instants as toISOString and the Nairobi clock do', () => {
    const at = new Date(Date.UTC(2026, 10, 25, 12, 57, 45, 123));
    expect(isoInstant(at)).toBe('2026-11-25T12:57:45.123Z');
    expect(utcYmd(at)).toBe('2026-11-25');
    expect(nairobiIso(at)).toBe('2026-11-25T15:57:45+03:00');
    // Past midnight in Nairobi, not yet in UTC: the Nairobi day is the next one.
    const late = new Date(Date.UTC(2024, 1, 28, 22, 0, 0, 7));
    expect(isoInstant(late)).toBe('2024-02-28T22:00:00.007Z');
    expect(nairobiIso(late)).toBe('2024-02-29T01:00:00+03:00');
    expect(isoInstant(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(isoInstant(new Date(-1))).toBe('1969-12-31T23:59:59.999Z');
    expect(isoInstant(new Date(Date.UTC(2000, 0, 1, 9, 5, 3, 40)))).toBe('2000-01-01T09:05:03.040Z');
    expect(isoInstant(new Date('0000-01-01T00:00:00.000Z'))).toBe('0000-01-01T00:00:00.000Z');
    expect(isoInstant(new Date('9999-12-31T23:59:59.999Z'))).toBe('9999-12-31T23:59:59.999Z');
  });

  it('agree with a naive implementation from the UTC fields, across more days than they keep, first time and after', () => {
    const times: number[] = [];
    // 12,500 days from 1955 (more than the 10,000 kept), each at several times of day, then random instants over
    // years 0000–9999 (negative ones included).
    const start = Date.UTC(1955, 0, 1);
    for (let i = 0; i < 12_500; i++) {
      const day = start + i * 86_400_000;
      times.push(day, day + 1, day + 999, day + 45_296_789, day + 75_600_000 - 1, day + 86_399_999);
    }
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) times.push(Math.floor(-62_167_219_200_000 + random() * 315_537_897_600_000));
    for (const round of [1, 2])
      for (const t of times) {
        const d = new Date(t);
        expect(isoInstant(d), `${t} (round ${round})`).toBe(naiveIso(d));
        expect(isoInstant(d)).toBe(d.toISOString());
        expect(utcYmd(d)).toBe(naive(d));
        if (t < 253_402_300_800_000 - 3 * 3_600_000) expect(nairobiIso(d), `${t}`).toBe(naiveNairobi(d));
      }
  });

  it('answer as toISOString outside years 0000–9999, and throw for an invalid Date as it does', () => {
    for (const t of [-62_167_219_200_001, 253_402_300_800_000, 8.64e15, -8.64e15]) {
      const d = new Date(t);
      expect(isoInstant(d)).toBe(d.toISOString());
      expect(utcYmd(d)).toBe(d.toISOString().slice(0, 10));
    }
    expect(() => isoInstant(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => utcYmd(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => nairobiIso(new Date(Number.NaN))).toThrow(RangeError);
    expect(isoInstant(new Date(86_400_000))).toBe('1970-01-02T00:00:00.000Z');
  });
});
