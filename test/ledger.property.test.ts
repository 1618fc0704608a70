import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, fromDbDate } from '../src/lib/dates.ts';
import { earned, type LevyRate, sumPriced } from '../src/modules/policies/proration.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { PayOrg, TODAY } from './helpers/payments.ts';

/**
 * End to end, through REST against the real app: for a random sequence of endorsements (add_vehicle, remove_vehicle,
 * change_value, each previewed then confirmed) and a final cancellation, Σ debit notes − Σ credit notes equals what
 * the client owes for the days covered — computed independently from the final premium items with `earned()` —
 * plus the flat levies charged at bind; and the policy total says the same.
 */

let t: TestApp;
let o: PayOrg;
let table: LevyRate[];
const YOM = Number(TODAY.slice(0, 4)) - 3;
let regSeq = 0;
const reg = () => {
  regSeq += 1;
  return `KDL ${String(100 + ((process.pid + regSeq * 7) % 900)).slice(-3)}${'ABCDEFGHJKLMNPQRSTUVWXYZ'[regSeq % 24]}`;
};

beforeAll(async () => {
  t = await startTestApp(
    { bindRateLimit: 10_000, mpesaSimDelayMs: 0, mpesaReconcileAfterMs: 3_600_000 },
    { jobs: true },
  );
  o = await PayOrg.create(t);
  const rows = await t.db.tenant(o.org.id, (tx) => tx.levy.findMany());
  table = rows.map((l) => ({
    code: l.code,
    name: l.name,
    basis: l.basis,
    rateBps: l.rateBps,
    amountMinor: l.amountMinor,
  }));
}, 60_000);
afterAll(() => t?.stop());

const post = (path: string, body?: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });

async function activePolicy() {
  const pol = await o.bind(1);
  const dn = pol.debit_note.instalments[0];
  const push = await o.push({ phone: '0708 374 149', amount: Math.ceil(dn.amount_minor / 100), account: dn.number });
  expect(push.status, push.text).toBe(202);
  const s = await o.settled(push.body.data.checkout_request_id);
  expect(s.body.data.status, s.text).toBe('succeeded');
  const r = await o.api.get(`/policies/${pol.uuid}`, { token: o.tokens.staff });
  expect(r.body.data.status, r.text).toBe('active');
  return r.body.data;
}

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

async function confirmEndorsement(uuid: string, body: Record<string, unknown>) {
  const r = await post(`/policies/${uuid}/endorse`, body);
  expect(r.status, `${JSON.stringify(body)} → ${r.text}`).toBe(201);
  const c = await post(`/policies/${uuid}/endorsements/${r.body.data.uuid}/confirm`);
  expect(c.status, c.text).toBe(200);
}

describe('ledger property: endorsements then a cancellation', () => {
  it('Σ debit notes − Σ credit notes = earned over the final premium items + flat levies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbOp, { minLength: 1, maxLength: 4 }),
        fc.nat(120),
        fc.constantFrom('insured_request', 'vehicle_sold', 'stolen'),
        async (ops, cancelGap, reason) => {
          const rec = await activePolicy();
          const period = { start: rec.start_date as string, end: rec.end_date as string };
          const live: string[] = [rec.vehicles[0].regno];
          let e = TODAY;
          for (const op of ops) {
            e = addDays(e, op.gap);
            if (e > period.end) e = period.end;
            if (op.kind === 'add_vehicle') {
              const regno = reg();
              await confirmEndorsement(rec.uuid, {
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
              await confirmEndorsement(rec.uuid, { operation: 'remove_vehicle', effective_date: e, regno });
            } else {
              const regno = live[op.pick % live.length];
              await confirmEndorsement(rec.uuid, {
                operation: 'change_value',
                effective_date: e,
                regno,
                value: op.value,
              });
            }
          }
          const c = addDays(e, cancelGap) > addDays(period.end, 1) ? addDays(period.end, 1) : addDays(e, cancelGap);
          const pv = await post(`/policies/${rec.uuid}/cancellation`, {
            reason,
            requested_by: 'insured',
            effective_date: c,
          });
          expect(pv.status, pv.text).toBe(201);
          const cf = await post(`/policies/${rec.uuid}/cancellations/${pv.body.data.uuid}/confirm`);
          expect(cf.status, cf.text).toBe(200);
          expect(cf.body.data.policy.status).toBe('cancelled');

          const db = await t.db.tenant(o.org.id, (tx) =>
            tx.policy.findFirstOrThrow({
              where: { uuid: rec.uuid },
              include: { debitNotes: true, creditNotes: true, premiumItems: true, taxes: true },
            }),
          );
          const dn = db.debitNotes.reduce((s, n) => s + n.amountMinor, 0n);
          const cn = db.creditNotes.reduce((s, n) => s + n.amountMinor, 0n);
          // Independent: what each final item span earns, plus the flat levies charged once at bind.
          const owed = sumPriced(
            db.premiumItems.map((i) =>
              earned(
                period,
                { annualBasicMinor: i.annualBasicMinor, from: fromDbDate(i.fromDate), to: fromDbDate(i.toDate) },
                table,
              ),
            ),
          );
          const flat = table.filter((l) => l.basis === 'flat').reduce((s, l) => s + (l.amountMinor ?? 0n), 0n);
          expect(dn - cn).toBe(owed.totalMinor + flat);
          expect(db.totalMinor).toBe(dn - cn);
          expect(db.basicMinor).toBe(owed.basicMinor);
          // Levy lines: percent levies equal what was earned of each, flat ones as charged.
          const lines = Object.fromEntries(db.taxes.map((x) => [x.code, x.amountMinor]));
          for (const l of owed.levies) expect(lines[l.code]).toBe(l.amountMinor);
          // Every item ends the day before the cancellation (or earlier, when an endorsement ended it).
          for (const i of db.premiumItems)
            expect(fromDbDate(i.toDate) < (c > fromDbDate(i.fromDate) ? c : addDays(fromDbDate(i.fromDate), 1))).toBe(
              true,
            );
        },
      ),
      { numRuns: 6, endOnFailure: true },
    );
  }, 240_000);
});
