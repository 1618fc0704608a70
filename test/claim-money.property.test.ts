import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyPayment,
  type ClaimMoney,
  commitPayout,
  reconcile,
  releasePayout,
  remainingMinor,
  reserveMove,
  type ReserveEntry,
  type StoredLedger,
} from '../src/modules/claims/settlement/reconcile.ts';

/**
 * The settlement ledger (src/modules/claims/settlement/reconcile.ts), for random claims: reserve movements before
 * approval, an approval (approved, excess ≤ approved) that sets the reserve to the net payable, failed payout
 * attempts, and partial payments (B2C committed then confirmed in any order, or bank transfers) summing to the net
 * payable. Every figure is checked against a naive second computation here (plain numbers, running sums), never
 * against the module: reserve = Σ movements, net = approved − excess, Σ paid = paid, settled exactly when paid =
 * net, the reserve 0 then. Shrinking is on.
 */

interface Part {
  cents: number;
  method: 'mpesa_b2c' | 'bank_transfer';
  /** Failed B2C attempts before it, as shares (0–1) of what remains then. */
  failures: number[];
}
interface Case {
  reserves: number[];
  approved: number;
  excess: number;
  parts: Part[];
  /** Order in which the committed B2C parts are confirmed (indices into them, by rank). */
  order: number[];
}

const MAX = 2_000_000_000; // KES 20M in cents

const arbCase: fc.Arbitrary<Case> = fc
  .record({
    reserves: fc.array(fc.integer({ min: 0, max: MAX }), { minLength: 1, maxLength: 5 }),
    approved: fc.integer({ min: 1, max: MAX }),
    excessShare: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .chain(({ reserves, approved, excessShare }) => {
    const excess = Math.min(approved - 1, Math.floor(approved * excessShare));
    const net = approved - excess;
    return fc
      .record({
        cuts: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, net - 1) }), { maxLength: Math.min(5, net - 1) }),
        kinds: fc.array(
          fc.record({
            method: fc.constantFrom('mpesa_b2c' as const, 'bank_transfer' as const),
            failures: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 2 }),
          }),
          { minLength: 6, maxLength: 6 },
        ),
        order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
      })
      .map(({ cuts, kinds, order }) => {
        const points = [0, ...cuts.filter((c) => c < net).sort((a, b) => a - b), net];
        const parts = points.slice(1).map((p, i) => ({ cents: p - points[i], ...kinds[i] }));
        return { reserves, approved, excess, parts, order };
      });
  });

/** The lifecycle through the module's functions; the ledger as the service would have stored it. */
function run(c: Case) {
  type Claim = ClaimMoney;
  let claim: Claim = { reserveMinor: 0n, paidMinor: 0n, committedMinor: 0n, netPayableMinor: null };
  const movements: ReserveEntry[] = [];
  const payments: StoredLedger['payments'] = [];
  const move = (to: bigint) => {
    const m = reserveMove(claim.reserveMinor, to - claim.reserveMinor);
    movements.push(m);
    claim = { ...claim, reserveMinor: m.balanceAfterMinor };
  };
  for (const r of c.reserves) move(BigInt(r));
  const net = BigInt(c.approved - c.excess);
  claim = { ...claim, netPayableMinor: net };
  move(net); // approval: the reserve becomes the net payable
  /** The claim after every change, for the invariants that must hold at each step. */
  const steps: Claim[] = [];
  const settledAt: number[] = [];
  const apply = (p: Part, committed: boolean) => {
    const a = applyPayment(claim, BigInt(p.cents), { committed });
    claim = a.claim;
    steps.push(claim);
    movements.push(a.movement);
    payments.push({ amountMinor: BigInt(p.cents), status: 'paid', method: p.method });
    if (a.settles) settledAt.push(payments.filter((x) => x.status === 'paid').length);
  };
  const pending: Part[] = [];
  for (const p of c.parts) {
    for (const f of p.failures) {
      const rest = remainingMinor(claim);
      if (rest <= 0n) break;
      const amt = 1n + BigInt(Math.floor(f * Number(rest - 1n)));
      claim = commitPayout(claim, amt);
      steps.push(claim);
      claim = releasePayout(claim, amt);
      steps.push(claim);
      payments.push({ amountMinor: amt, status: 'failed', method: 'mpesa_b2c' });
    }
    if (p.method === 'bank_transfer') apply(p, false);
    else {
      claim = commitPayout(claim, BigInt(p.cents));
      pending.push(p);
      steps.push(claim);
    }
  }
  const ranked = pending.map((p, i) => ({ p, k: c.order[i] ?? 0, i })).sort((a, b) => a.k - b.k || a.i - b.i);
  for (const { p } of ranked) apply(p, true);
  return { claim, movements, payments, settledAt, steps };
}

/** The settled claim's ledger as the service stores it. */
function stored(c: Case, r: ReturnType<typeof run>): StoredLedger {
  return {
    ...r.claim,
    status: 'settled',
    approvedAmountMinor: BigInt(c.approved),
    excessMinor: BigInt(c.excess),
    movements: r.movements,
    payments: r.payments,
  };
}

describe('claim settlement money (property)', () => {
  it('reconciles to the cent with a naive computation', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const { claim, movements, payments, settledAt } = run(c);
        // Naive: plain numbers and running sums.
        const net = c.approved - c.excess;
        let running = 0;
        for (const m of movements) {
          running += Number(m.amountMinor);
          expect(Number(m.balanceAfterMinor)).toBe(running);
        }
        expect(Number(claim.reserveMinor)).toBe(running);
        expect(Number(claim.netPayableMinor)).toBe(c.approved - c.excess);
        let paid = 0;
        for (const p of payments) if (p.status === 'paid') paid += Number(p.amountMinor);
        expect(paid).toBe(net);
        expect(Number(claim.paidMinor)).toBe(paid);
        expect(Number(claim.committedMinor)).toBe(0);
        // Settled exactly once, by the last payment, with nothing left in reserve.
        expect(settledAt).toEqual([c.parts.length]);
        expect(running).toBe(0);
        expect(reconcile(stored(c, run(c)))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('names any cent out of place', () => {
    fc.assert(
      fc.property(arbCase, fc.nat(), fc.constantFrom(-1n, 1n), (c, pick, delta) => {
        const base = stored(c, run(c));
        const movements = base.movements;
        const i = pick % movements.length;
        const shifted = movements.map((m, j) => (j === i ? { ...m, amountMinor: m.amountMinor + delta } : m));
        expect(reconcile({ ...base, movements: shifted })).not.toEqual([]);
        expect(reconcile({ ...base, paidMinor: base.paidMinor + delta })).not.toEqual([]);
        expect(reconcile({ ...base, status: 'approved' })).not.toEqual([]);
        expect(reconcile({ ...base, excessMinor: base.excessMinor! + delta })).not.toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('never lets payouts in flight and paid pass the net payable', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const net = c.approved - c.excess;
        let paid = 0;
        for (const s of run(c).steps) {
          expect(Number(s.committedMinor)).toBeGreaterThanOrEqual(0);
          expect(Number(s.paidMinor)).toBeGreaterThanOrEqual(paid); // paid only grows
          paid = Number(s.paidMinor);
          expect(paid + Number(s.committedMinor)).toBeLessThanOrEqual(net);
        }
        const full: ClaimMoney = {
          reserveMinor: 0n,
          paidMinor: BigInt(net),
          committedMinor: 0n,
          netPayableMinor: BigInt(net),
        };
        expect(() => commitPayout(full, 1n)).toThrow(RangeError);
        expect(() => applyPayment(full, 1n, { committed: false })).toThrow(RangeError);
      }),
      { numRuns: 200 },
    );
  });
});
