import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, fromDbDate } from '../src/lib/dates.ts';
import type { LevyRate } from '../src/modules/policies/proration.ts';
import { earnedOver, flatTotal, sumMoney } from './helpers/money-oracle.ts';
import { INSTANT_RAIL, TODAY, useKit } from './kit.ts';

/**
 * End to end, through REST against the real app: for a random sequence of endorsements (add_vehicle, remove_vehicle,
 * change_value, each previewed then confirmed) and a final cancellation, Σ debit notes − Σ credit notes equals what
 * the client owes for the days covered — computed from the final premium items by the naive second implementation in
 * helpers/money-oracle.ts (earnings summed day by day, its own calendar and rounding), never by proration.ts — plus
 * the flat levies charged at bind; and the policy total says the same. Shrinking is on: a failure is reported as the
 * shortest sequence that still fails.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
let table: LevyRate[];
const YOM = Number(TODAY.slice(0, 4)) - 3;
let regSeq = 0;
const reg = () => {
  regSeq += 1;
  return `KDL ${String(100 + ((process.pid + regSeq * 7) % 900)).slice(-3)}${'ABCDEFGHJKLMNPQRSTUVWXYZ'[regSeq % 24]}`;
};

beforeAll(async () => {
  const rows = await t.db.tenant(o.org.id, (tx) => tx.levy.findMany());
  table = rows.map((l) => ({
    code: l.code,
    name: l.name,
    basis: l.basis,
    rateBps: l.rateBps,
    amountMinor: l.amountMinor,
  }));
});

type Op =
  | { kind: 'add_vehicle'; gap: number; value: number }
  | { kind: 'remove_vehicle'; gap: number; pick: number }
  | { kind: 'change_value'; gap: number; pick: number; value: number };
const arbValue = fc.integer({ min: 8, max: 40 }).map((n) => n * 100_000); // KES 800k–4M
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add_vehicle' as const), gap: fc.nat(90), value: arbValue }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('remove_vehicle' as const), gap: fc.nat(90), pick: fc.nat() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('change_value' as const),
      gap: fc.nat(90),
      pick: fc.nat(),
      value: arbValue,
    }),
  },
);

describe('ledger property: endorsements then a cancellation', () => {
  it('Σ debit notes − Σ credit notes = earned over the final premium items + flat levies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbOp, { minLength: 1, maxLength: 4 }),
        fc.nat(120),
        fc.constantFrom('insured_request', 'vehicle_sold', 'stolen'),
        async (ops, cancelGap, reason) => {
          const { record: rec } = await o.activePolicy({ payInto: 'debit_note' });
          const period = { start: rec.start_date as string, end: rec.end_date as string };
          const live: string[] = [rec.vehicles[0].regno];
          let e = TODAY;
          for (const op of ops) {
            e = addDays(e, op.gap);
            if (e > period.end) e = period.end;
            if (op.kind === 'add_vehicle') {
              const regno = reg();
              await o.endorse(rec.uuid, {
                operation: 'add_vehicle',
                effective_date: e,
                vehicle: {
                  regno,
                  chassis_no: `JTD${randomUUID().slice(0, 8)}`,
                  make: 'Mazda',
                  model: 'CX-5',
                  yom: YOM,
                  value: op.value,
                },
              });
              live.push(regno.replace(' ', ''));
            } else if (op.kind === 'remove_vehicle') {
              if (live.length < 2) continue;
              const [regno] = live.splice(op.pick % live.length, 1);
              await o.endorse(rec.uuid, { operation: 'remove_vehicle', effective_date: e, regno });
            } else {
              const regno = live[op.pick % live.length];
              await o.endorse(rec.uuid, {
                operation: 'change_value',
                effective_date: e,
                regno,
                value: op.value,
              });
            }
          }
          const c = addDays(e, cancelGap) > addDays(period.end, 1) ? addDays(period.end, 1) : addDays(e, cancelGap);
          const cf = await o.cancel(rec.uuid, { reason, requested_by: 'insured', effective_date: c });
          expect(cf.policy.status).toBe('cancelled');

          const db = await t.db.tenant(o.org.id, (tx) =>
            tx.policy.findFirstOrThrow({
              where: { uuid: rec.uuid },
              include: { debitNotes: true, creditNotes: true, premiumItems: true, taxes: true },
            }),
          );
          const dn = db.debitNotes.reduce((s, n) => s + n.amountMinor, 0n);
          const cn = db.creditNotes.reduce((s, n) => s + n.amountMinor, 0n);
          // Independent: what each final item span earns (the oracle), plus the flat levies charged once at bind.
          const owed = sumMoney(
            db.premiumItems.map((i) =>
              earnedOver(
                period,
                { annualBasicMinor: i.annualBasicMinor, from: fromDbDate(i.fromDate), to: fromDbDate(i.toDate) },
                table,
              ),
            ),
          );
          const flat = flatTotal(table);
          expect(dn - cn).toBe(owed.totalMinor + flat);
          expect(db.totalMinor).toBe(dn - cn);
          expect(db.basicMinor).toBe(owed.basicMinor);
          // Levy lines: percent levies equal what was earned of each, flat ones as charged.
          const lines = Object.fromEntries(db.taxes.map((x) => [x.code, x.amountMinor]));
          expect(Object.keys(owed.levies).length).toBeGreaterThan(0);
          for (const [code, amount] of Object.entries(owed.levies)) expect(lines[code]).toBe(amount);
          for (const l of table.filter((x) => x.basis === 'flat')) expect(lines[l.code]).toBe(l.amountMinor);
          // Every item ends the day before the cancellation (or earlier, when an endorsement ended it).
          for (const i of db.premiumItems)
            expect(fromDbDate(i.toDate) < (c > fromDbDate(i.fromDate) ? c : addDays(fromDbDate(i.fromDate), 1))).toBe(
              true,
            );
        },
      ),
      // Each run binds, pays, endorses and cancels a policy through the API (under a second); shrinking stays on.
      { numRuns: 20 },
    );
  }, 600_000);
});
