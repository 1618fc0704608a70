import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, annualEnd } from '../src/lib/dates.ts';
import { cancellationCredit } from '../src/modules/policies/cancellation.service.ts';
import {
  type LevyRate,
  type Period,
  periodDays,
  type Priced,
  periodPremium,
  priceTerms,
  type Term,
  remainingDays,
  sumPriced,
  unearned,
} from '../src/modules/policies/proration.ts';
import {
  annualEndOf,
  countDays,
  flatTotal,
  earnedOver,
  type OracleMoney,
  priceOf,
  remaining,
  sumMoney,
  unearnedOf,
} from './helpers/money-oracle.ts';

/**
 * The README's claim ("Mid-term money"): for any sequence of mid-term changes priced with `priceTerms` the way the
 * services price them (bind +U(B, start); add +U(B, e); remove −U(B, e); change_value +U(B', e) − U(B, e); cancel at c
 * the cancellation service's credit), the notes sum to what the final item spans earn, to the cent, for the basic
 * premium and for every percent levy. Every expected figure comes from the naive second implementation in
 * helpers/money-oracle.ts (its own calendar and rounding, earnings summed day by day), never from proration.ts.
 */

const EPOCH = '2019-01-01';
/** Starts across 2019–2031: leap days (2020, 2024, 2028) included, and period ends that cross them. */
const arbStart = fc.integer({ min: 0, max: 13 * 366 }).map((n) => addDays(EPOCH, n));
const arbPeriod: fc.Arbitrary<Period> = fc.oneof(
  arbStart.map((start) => ({ start, end: annualEnd(start) })),
  fc.tuple(arbStart, fc.integer({ min: 0, max: 400 })).map(([start, len]) => ({ start, end: addDays(start, len) })),
  // Explicit leap-day periods.
  fc
    .constantFrom('2020-02-29', '2024-02-28', '2024-02-29', '2027-03-01', '2028-02-29')
    .map((start) => ({ start, end: annualEnd(start) })),
);
const arbAnnual = fc.bigInt({ min: 0n, max: 2_000_000_000n }); // up to KES 20M a year
const arbTable: fc.Arbitrary<LevyRate[]> = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 0, maxLength: 3 }),
    fc.bigInt({ min: 0n, max: 10_000n }),
  )
  .map(([rates, flat]) => [
    ...rates.map((rateBps, i) => ({
      code: `P${i}`,
      name: `Percent ${i}`,
      basis: 'percent' as const,
      rateBps,
      amountMinor: null,
    })),
    { code: 'SD', name: 'Stamp duty', basis: 'flat' as const, rateBps: null, amountMinor: flat },
  ]);

type Op =
  | { kind: 'add'; gap: number; basic: bigint }
  | { kind: 'remove'; gap: number; pick: number }
  | { kind: 'change_value'; gap: number; pick: number; basic: bigint };
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), gap: fc.nat(120), basic: arbAnnual }),
  fc.record({ kind: fc.constant('remove' as const), gap: fc.nat(120), pick: fc.nat() }),
  fc.record({ kind: fc.constant('change_value' as const), gap: fc.nat(120), pick: fc.nat(), basic: arbAnnual }),
);

interface Item {
  annualBasicMinor: bigint;
  from: string;
  to: string;
  live: boolean;
}

function run(p: Period, table: LevyRate[], initial: bigint[], ops: Op[], cancel: { gap: number } | null) {
  const items: Item[] = initial.map((b) => ({ annualBasicMinor: b, from: p.start, to: p.end, live: true }));
  // Each note priced from its terms as the services price it, and by the oracle beside it.
  const notes: Priced[] = [];
  const expected: OracleMoney[] = [];
  const price = (terms: Term[]) => {
    notes.push(priceTerms(p, terms, table));
    expected.push(priceOf(p, terms, table));
  };
  // Bind: the full premium of each vehicle, priced as one +U(B, start) term each (U(B, start) = B).
  price(initial.map((b) => ({ annualBasicMinor: b, at: p.start, sign: 1 as const })));
  let e = p.start;
  for (const op of ops) {
    const next = addDays(e, op.gap);
    if (next > p.end) break; // endorsements take effect within the period
    e = next;
    const live = items.filter((i) => i.live);
    if (op.kind === 'add') {
      items.push({ annualBasicMinor: op.basic, from: e, to: p.end, live: true });
      price([{ annualBasicMinor: op.basic, at: e, sign: 1 }]);
    } else if (op.kind === 'remove') {
      if (live.length < 2) continue; // the last vehicle cannot be removed
      const it = live[op.pick % live.length];
      it.to = addDays(e, -1);
      it.live = false;
      price([{ annualBasicMinor: it.annualBasicMinor, at: e, sign: -1 }]);
    } else {
      const it = live[op.pick % live.length];
      it.to = addDays(e, -1);
      it.live = false;
      items.push({ annualBasicMinor: op.basic, from: e, to: p.end, live: true });
      price([
        { annualBasicMinor: op.basic, at: e, sign: 1 },
        { annualBasicMinor: it.annualBasicMinor, at: e, sign: -1 },
      ]);
    }
  }
  if (cancel) {
    const c = addDays(e, cancel.gap) > addDays(p.end, 1) ? addDays(p.end, 1) : addDays(e, cancel.gap);
    const live = items.filter((i) => i.live);
    const credit = cancellationCredit(p, live, c, table);
    notes.push({
      basicMinor: -credit.basicMinor,
      levies: credit.levies.map((l) => ({ ...l, amountMinor: -l.amountMinor })),
      taxesMinor: -credit.taxesMinor,
      totalMinor: -credit.totalMinor,
    });
    // README: cancelling at c is −U(B, c) for every item on cover.
    expected.push(
      priceOf(
        p,
        live.map((i) => ({ annualBasicMinor: i.annualBasicMinor, at: c, sign: -1 as const })),
        table,
      ),
    );
    for (const it of live) it.to = addDays(c > it.from ? c : it.from, -1);
  }
  return { items, notes, expected };
}

/** A priced figure in the oracle's shape: percent levies by code. */
const asOracle = (x: Priced): OracleMoney => ({
  basicMinor: x.basicMinor,
  levies: Object.fromEntries(x.levies.map((l) => [l.code, l.amountMinor])),
  totalMinor: x.totalMinor,
});

describe('pro-rata notes telescope to what the item spans earn', () => {
  it('Σ notes = Σ earned(final spans), basic and every percent levy, for any change sequence and cancellation', () => {
    fc.assert(
      fc.property(
        arbPeriod,
        arbTable,
        fc.array(arbAnnual, { minLength: 1, maxLength: 3 }),
        fc.array(arbOp, { maxLength: 8 }),
        fc.option(fc.record({ gap: fc.nat(500) }), { nil: null }),
        (p, table, initial, ops, cancel) => {
          const { items, notes, expected } = run(p, table, initial, ops, cancel);
          // Every note as the oracle prices the same terms.
          expect(notes.map(asOracle)).toEqual(expected);
          const ledger = sumPriced(notes);
          const owed = sumMoney(
            items.map((i) => earnedOver(p, { annualBasicMinor: i.annualBasicMinor, from: i.from, to: i.to }, table)),
          );
          expect(asOracle(ledger)).toEqual(owed);
          // Every note's levy lines are the percent levies only (flat ones are charged once, at bind).
          for (const n of notes)
            expect(n.levies.map((l) => l.code).sort()).toEqual(
              table
                .filter((l) => l.basis === 'percent')
                .map((l) => l.code)
                .sort(),
            );
          // What was earned never exceeds the full premium of the spans, nor goes negative.
          for (const i of items) {
            const x = earnedOver(p, i, table).basicMinor;
            expect(x >= 0n && x <= i.annualBasicMinor).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a cancellation on or before the start refunds every pro-rated part; the day after the end refunds nothing', () => {
    fc.assert(
      fc.property(arbPeriod, arbTable, arbAnnual, fc.nat(30), fc.nat(400), (p, table, b, before, into) => {
        const item = { annualBasicMinor: b, from: p.start, to: p.end };
        // The whole annual basic premium, and each percent levy of it: B itself, then B × rate.
        const full = priceOf(p, [{ annualBasicMinor: b, at: p.start, sign: 1 }], table);
        expect(full.basicMinor).toBe(b);
        expect(asOracle(cancellationCredit(p, [item], addDays(p.start, -before), table))).toEqual(full);
        expect(cancellationCredit(p, [item], addDays(p.end, 1), table).totalMinor).toBe(0n);
        // Any day in between: −U(B, c) and its levies, as the oracle prices them.
        const c = addDays(p.start, into % periodDays(p));
        expect(asOracle(cancellationCredit(p, [item], c, table))).toEqual(
          priceOf(p, [{ annualBasicMinor: b, at: c, sign: 1 }], table),
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe('the premium of a new period of several items (periodPremium: a bind or renewal of insured persons)', () => {
  it('levies each item on its own, so that cancelling every item from the start leaves exactly the flat duties', () => {
    fc.assert(
      fc.property(arbPeriod, arbTable, fc.array(arbAnnual, { minLength: 1, maxLength: 6 }), (p, table, basics) => {
        const premium = periodPremium(basics, table);
        const each = basics.map((b) => priceOf(p, [{ annualBasicMinor: b, at: p.start, sign: 1 }], table));
        const percent = sumMoney(each);
        expect(premium.basicMinor).toBe(percent.basicMinor);
        expect(premium.totalMinor).toBe(percent.totalMinor + flatTotal(table));
        expect(Object.fromEntries(premium.levies.map((l) => [l.code, l.amountMinor]))).toEqual({
          ...percent.levies,
          SD: flatTotal(table),
        });
        const items = basics.map((b) => ({ annualBasicMinor: b, from: p.start, to: p.end }));
        expect(premium.totalMinor - cancellationCredit(p, items, p.start, table).totalMinor).toBe(flatTotal(table));
      }),
      { numRuns: 500 },
    );
  });
});

describe('U(B, x)', () => {
  it('is monotone in x, within [0, B], B on or before the start and 0 after the end', () => {
    fc.assert(
      fc.property(
        arbPeriod,
        arbAnnual,
        fc.integer({ min: -40, max: 440 }),
        fc.integer({ min: -40, max: 440 }),
        (p, b, i, j) => {
          const [x, y] = [addDays(p.start, Math.min(i, j)), addDays(p.start, Math.max(i, j))];
          const ux = unearned(p, b, x);
          const uy = unearned(p, b, y);
          expect(ux).toBe(unearnedOf(p, b, x));
          expect(uy).toBe(unearnedOf(p, b, y));
          expect(ux >= uy).toBe(true);
          for (const u of [ux, uy]) expect(u >= 0n && u <= b).toBe(true);
          if (x <= p.start) expect(ux).toBe(b);
          if (y > p.end) expect(uy).toBe(0n);
          // R(x) counts the days from x to the end inclusive; D the days of the period.
          expect(remainingDays(p, x)).toBe(remaining(p, x));
          expect(periodDays(p)).toBe(countDays(p.start, p.end));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('agrees with hand-worked figures of the README rule (a half cent rounds away from zero)', () => {
    // [period start, end, D, B in cents, day x, R(x), U(B, x)], worked out by hand from U = B × R / D.
    const rows: [string, string, number, bigint, string, number, bigint][] = [
      // 15 Jun 2026 – 14 Jun 2027: 365 days; from 15 Dec: 17 + 31 + 28 + 31 + 30 + 31 + 14 = 182 days left.
      ['2026-06-15', '2027-06-14', 365, 5_250_000n, '2026-12-15', 182, 2_617_808n], // 2,617,808.219…
      // A leap-day start: 29 Feb 2028 – 28 Feb 2029 is 366 days; from 29 Aug: 3 + 30 + 31 + 30 + 31 + 31 + 28 = 184.
      ['2028-02-29', '2029-02-28', 366, 4_500_000n, '2028-08-29', 184, 2_262_295n], // 2,262,295.08…
      // The last day of a 366-day year: 183 / 366 is exactly half a cent, rounded up; 182 / 366 rounds down.
      ['2024-01-01', '2024-12-31', 366, 183n, '2024-12-31', 1, 1n],
      ['2024-01-01', '2024-12-31', 366, 182n, '2024-12-31', 1, 0n],
      // On or before the start: all of B; the day after the end: nothing.
      ['2026-06-15', '2027-06-14', 365, 5_250_000n, '2026-06-01', 365, 5_250_000n],
      ['2026-06-15', '2027-06-14', 365, 5_250_000n, '2027-06-15', 0, 0n],
    ];
    for (const [start, end, d, b, x, r, u] of rows) {
      const p = { start, end };
      expect([periodDays(p), remainingDays(p, x), unearned(p, b, x)]).toEqual([d, r, u]);
      expect([countDays(start, end), remaining(p, x), unearnedOf(p, b, x)]).toEqual([d, r, u]);
    }
    // Levies term by term: TL 0.20 % and PHCF 0.25 % of U = 2,617,808 are 5,235.616 → 5,236 and 6,544.52 → 6,545;
    // a removal term of −0.5 cent at 50 % rounds to −1 (away from zero), not 0.
    const table: LevyRate[] = [
      { code: 'TL', name: 'Training levy', basis: 'percent', rateBps: 20, amountMinor: null },
      { code: 'PHCF', name: 'PHCF', basis: 'percent', rateBps: 25, amountMinor: null },
      { code: 'HALF', name: 'Half', basis: 'percent', rateBps: 5_000, amountMinor: null },
      { code: 'SD', name: 'Stamp duty', basis: 'flat', rateBps: null, amountMinor: 4_000n },
    ];
    const cancelled = priceTerms(
      { start: '2026-06-15', end: '2027-06-14' },
      [{ annualBasicMinor: 5_250_000n, at: '2026-12-15', sign: -1 }],
      table,
    );
    expect(asOracle(cancelled)).toEqual({
      basicMinor: -2_617_808n,
      levies: { TL: -5_236n, PHCF: -6_545n, HALF: -1_308_904n },
      totalMinor: -2_617_808n - 5_236n - 6_545n - 1_308_904n,
    });
    const removed = priceTerms(
      { start: '2024-01-01', end: '2024-12-31' },
      [{ annualBasicMinor: 183n, at: '2024-12-31', sign: -1 }],
      table,
    );
    expect(asOracle(removed)).toEqual({ basicMinor: -1n, levies: { TL: 0n, PHCF: 0n, HALF: -1n }, totalMinor: -2n });
  });

  it('annual periods end one year less a day (29 February starts on 28 February), as the oracle counts them', () => {
    fc.assert(
      fc.property(arbStart, (start) => {
        expect(annualEnd(start)).toBe(annualEndOf(start));
      }),
      { numRuns: 2000 },
    );
    expect(annualEnd('2028-02-29')).toBe('2029-02-28');
    expect(annualEnd('2028-02-28')).toBe('2029-02-27');
    expect(annualEnd('2027-03-01')).toBe('2028-02-29');
  });

  it('periods crossing 29 February count it: a leap-year annual period has 366 days', () => {
    expect(periodDays({ start: '2024-01-01', end: annualEnd('2024-01-01') })).toBe(366);
    expect(periodDays({ start: '2027-03-01', end: annualEnd('2027-03-01') })).toBe(366);
    expect(periodDays({ start: '2025-03-01', end: annualEnd('2025-03-01') })).toBe(365);
  });
});
