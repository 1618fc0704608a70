import { describe, expect, it } from 'vitest';
import { todayNairobi } from '../src/lib/dates.ts';
import { TODAY_SPAN_MINUTES, WEEK, type WeekWhen } from '../src/seed/demo-week-data.ts';
import { weekInstant } from '../src/seed/demo-week.ts';

/**
 * The demo week's clock (src/seed/demo-week.ts weekInstant), at every time of day a first start may happen. A start
 * 37 minutes after the Nairobi midnight once put Kiprop's payment (30 minutes ago) before his bind (50 minutes ago,
 * squeezed after midnight) and the start failed: "demo week: kiprop was not bound". Instants may tie (a start at
 * midnight itself puts all of today at midnight): the week sorts its steps stably, a policy's bind first.
 */

/** Every `WeekWhen` in a policy's story, in the order the data lists them. */
function whens(o: unknown): WeekWhen[] {
  if (Array.isArray(o)) return o.flatMap(whens);
  if (!o || typeof o !== 'object') return [];
  const r = o as Record<string, unknown>;
  if (typeof r.day === 'number' && Object.keys(r).every((k) => ['day', 'hour', 'minutesAgo'].includes(k)))
    return [r as unknown as WeekWhen];
  return Object.values(r).flatMap(whens);
}

const todays = WEEK.flatMap((p) => whens(p)).filter((w) => w.minutesAgo != null);

/** Starts every 7 minutes over a whole Nairobi day, and the minutes either side of midnight. */
const starts = [
  ...Array.from({ length: 206 }, (_, i) => new Date(Date.parse('2026-06-15T00:00:00+03:00') + i * 7 * 60_000)),
  new Date('2026-06-15T00:00:01+03:00'),
  new Date('2026-06-15T01:39:59+03:00'),
  new Date('2026-06-15T01:40:00+03:00'),
  new Date('2026-06-15T23:59:59+03:00'),
];

describe("the demo week's clock", () => {
  it('has every step of today within its span', () => {
    expect(todays.length).toBeGreaterThan(3);
    for (const w of todays) expect(w.minutesAgo).toBeLessThan(TODAY_SPAN_MINUTES);
  });

  it("keeps today's steps in their order, today, and not after the start, whenever the start happens", () => {
    const order = [...new Set(todays.map((w) => w.minutesAgo!))].sort((a, b) => b - a);
    for (const start of starts) {
      const today = todayNairobi(start);
      const midnight = Date.parse(`${today}T00:00:00+03:00`);
      const at = order.map((m) => weekInstant({ day: 0, minutesAgo: m }, today, start).getTime());
      for (const [i, t] of at.entries()) {
        expect(t, `${start.toISOString()}: ${order[i]} minutes ago`).toBeGreaterThanOrEqual(midnight);
        expect(t).toBeLessThanOrEqual(start.getTime());
        if (i > 0)
          expect(t, `${start.toISOString()}: ${order[i - 1]} then ${order[i]}`).toBeGreaterThanOrEqual(at[i - 1]);
      }
    }
  });

  it("puts each policy's bind before everything else in its story", () => {
    for (const start of starts) {
      const today = todayNairobi(start);
      for (const p of WEEK) {
        const bound = weekInstant(p.bound, today, start).getTime();
        const rest = whens({ ...p, bound: undefined }).map((w) => weekInstant(w, today, start).getTime());
        for (const t of rest) expect(t, `${p.key} at ${start.toISOString()}`).toBeGreaterThanOrEqual(bound);
      }
    }
  });
});
