import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, annualEnd, daysBetween } from '../src/lib/dates.ts';
import { cancellationCredit } from '../src/modules/policies/cancellation.service.ts';
import {
  earned,
  type LevyRate,
  type Period,
  periodDays,
  type Priced,
  priceTerms,
  remainingDays,
  sumPriced,
  unearned,
} from '../src/modules/policies/proration.ts';

/**
 * The README's claim ("Mid-term money"): for any sequence of mid-term changes priced with `priceTerms` the way the
 * services price them (bind +U(B, start); add +U(B, e); remove −U(B, e); change_value +U(B', e) − U(B, e); cancel at c
 * the cancellation service's credit), the notes sum to what the final item spans earn, to the cent, for the basic
 * premium and for every percent levy.
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
  // Bind: the full premium of each vehicle, priced as one +U(B, start) term each (U(B, start) = B).
  const notes: Priced[] = [
    priceTerms(
      p,
      initial.map((b) => ({ annualBasicMinor: b, at: p.start, sign: 1 as const })),
      table,
    ),
  ];
  let e = p.start;
  for (const op of ops) {
    const next = addDays(e, op.gap);
    if (next > p.end) break; // endorsements take effect within the period
    e = next;
    const live = items.filter((i) => i.live);
    if (op.kind === 'add') {
      items.push({ annualBasicMinor: op.basic, from: e, to: p.end, live: true });
      notes.push(priceTerms(p, [{ annualBasicMinor: op.basic, at: e, sign: 1 }], table));
    } else if (op.kind === 'remove') {
      if (live.length < 2) continue; // the last vehicle cannot be removed
      const it = live[op.pick % live.length];
      it.to = addDays(e, -1);
      it.live = false;
      notes.push(priceTerms(p, [{ annualBasicMinor: it.annualBasicMinor, at: e, sign: -1 }], table));
    } else {
      const it = live[op.pick % live.length];
      it.to = addDays(e, -1);
      it.live = false;
      items.push({ annualBasicMinor: op.basic, from: e, to: p.end, live: true });
      notes.push(
        priceTerms(
          p,
          [
            { annualBasicMinor: op.basic, at: e, sign: 1 },
            { annualBasicMinor: it.annualBasicMinor, at: e, sign: -1 },
          ],
          table,
        ),
      );
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
    for (const it of live) it.to = addDays(c > it.from ? c : it.from, -1);
  }
  return { items, notes };
}

const byCode = (x: Priced) => Object.fromEntries(x.levies.map((l) => [l.code, l.amountMinor]));

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
          const { items, notes } = run(p, table, initial, ops, cancel);
          const ledger = sumPriced(notes);
          const owed = sumPriced(
            items.map((i) => earned(p, { annualBasicMinor: i.annualBasicMinor, from: i.from, to: i.to }, table)),
          );
          expect(ledger.basicMinor).toBe(owed.basicMinor);
          expect(byCode(ledger)).toEqual(byCode(owed));
          expect(ledger.totalMinor).toBe(owed.totalMinor);
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
            const x = earned(p, i, table).basicMinor;
            expect(x >= 0n && x <= i.annualBasicMinor).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a cancellation on or before the start refunds every pro-rated part; the day after the end refunds nothing', () => {
    fc.assert(
      fc.property(arbPeriod, arbTable, arbAnnual, fc.nat(30), (p, table, b, before) => {
        const item = { annualBasicMinor: b, from: p.start, to: p.end };
        const full = priceTerms(p, [{ annualBasicMinor: b, at: p.start, sign: 1 }], table);
        expect(cancellationCredit(p, [item], addDays(p.start, -before), table)).toEqual(full);
        expect(cancellationCredit(p, [item], addDays(p.end, 1), table).totalMinor).toBe(0n);
      }),
      { numRuns: 200 },
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
          expect(ux >= uy).toBe(true);
          for (const u of [ux, uy]) expect(u >= 0n && u <= b).toBe(true);
          if (x <= p.start) expect(ux).toBe(b);
          if (y > p.end) expect(uy).toBe(0n);
          // R(x) counts the days from x to the end inclusive.
          const r = remainingDays(p, x);
          expect(r).toBe(Math.max(0, Math.min(periodDays(p), daysBetween(x, p.end) + 1)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('periods crossing 29 February count it: a leap-year annual period has 366 days', () => {
    expect(periodDays({ start: '2024-01-01', end: annualEnd('2024-01-01') })).toBe(366);
    expect(periodDays({ start: '2027-03-01', end: annualEnd('2027-03-01') })).toBe(366);
    expect(periodDays({ start: '2025-03-01', end: annualEnd('2025-03-01') })).toBe(365);
  });
});
