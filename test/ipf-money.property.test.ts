import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, toDbDate } from '../src/lib/dates.ts';
import { planWaiver } from '../src/modules/finance/loan/close.ts';
import { heldSettlement, planInstalmentAllocations } from '../src/modules/finance/loan/repayment.ts';
import { settlementFigures } from '../src/modules/finance/loan/settlement.ts';
import { type IpfLenderTerms, ipfOffer, ipfSchedule } from '../src/modules/reference/ipf-terms.ts';

/**
 * The loan ledger's arithmetic over random loans and payment histories (docs/premium-finance.md "Premium finance: deposit, funding,
 * repayments and early settlement"): receipts fill the schedule oldest first and never beyond what is owed; on any
 * day the early-settlement payoff plus what was paid is the total repayable less the rebate; the payoff, paid in any
 * number of pieces while the figure holds, leaves the not-yet-due lines owing exactly the rebate, and once it is
 * waived every line is paid plus waived to the cent.
 */

const SIGNED = '2026-06-15';

const arbLoan = fc
  .record({
    premiumMinor: fc.bigInt({ min: 2_500_000n, max: 50_000_000n }),
    months: fc.integer({ min: 3, max: 10 }),
    chargeBps: fc.integer({ min: 50, max: 1_200 }),
    percent: fc.option(fc.integer({ min: 1_000, max: 3_000 }), { nil: null }),
  })
  .map(({ premiumMinor, months, chargeBps, percent }) => {
    const lender: IpfLenderTerms = {
      id: 1,
      name: 'Lender',
      minPremiumMinor: 0n,
      maxPremiumMinor: null,
      pricing: 'rate_per_tenor',
      depositRule: percent ? 'percent' : 'one_instalment',
      depositBps: percent,
      maxInstalmentToIncomeBps: 10_000,
      defaultGraceDays: 30,
      tenors: [{ months, chargeBps }],
      feeBands: [],
    };
    const offer = ipfOffer(premiumMinor, lender, months)!;
    const lines = ipfSchedule(offer, SIGNED).map((l, i) => ({
      id: i + 1,
      seq: l.seq,
      dueOn: toDbDate(l.dueOn),
      amountMinor: l.amountMinor,
      paidMinor: 0n,
      waivedMinor: 0n,
    }));
    return { offer, months, lines };
  });

type Line = { id: number; seq: number; dueOn: Date; amountMinor: bigint; paidMinor: bigint; waivedMinor: bigint };

/** Applies a receipt of `amount` with the ledger's allocation under `cap`; returns what it did not take. */
function receive(lines: Line[], amount: bigint, cap: bigint): bigint {
  const allocations = planInstalmentAllocations(lines, amount, cap);
  for (const a of allocations) {
    const line = lines.find((l) => l.id === a.instalmentId)!;
    line.paidMinor += a.amountMinor;
    expect(line.paidMinor + line.waivedMinor).toBeLessThanOrEqual(line.amountMinor);
  }
  // Oldest first: no line has money while an older one still owes.
  const firstOpen = lines.findIndex((l) => l.paidMinor < l.amountMinor);
  if (firstOpen >= 0) expect(lines.slice(firstOpen + 1).every((l) => l.paidMinor === 0n)).toBe(true);
  return amount - allocations.reduce((s, a) => s + a.amountMinor, 0n);
}

const paidOf = (lines: Line[]) => lines.reduce((s, l) => s + l.paidMinor, 0n);

describe('premium-finance repayments and early settlement, for random loans and histories', () => {
  it('payoff + paid = total repayable − rebate; the payoff paid in pieces settles every line to the cent', () => {
    fc.assert(
      fc.property(
        arbLoan,
        fc.array(fc.bigInt({ min: 100n, max: 3_000_000n }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 330 }),
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 4 }),
        ({ offer, months, lines }, history, day, pieces) => {
          const total = offer.totalRepayableMinor;
          for (const amount of history) {
            const left = receive(lines, amount, total - paidOf(lines));
            if (left > 0n) expect(paidOf(lines)).toBe(total);
          }
          const paid = paidOf(lines);
          fc.pre(paid < total);
          const on = addDays(SIGNED, day);
          const loan = {
            chargeMinor: offer.chargeMinor,
            totalRepayableMinor: total,
            paidMinor: paid,
            tenorMonths: months,
          };
          const f = settlementFigures(loan, lines, on);
          expect(f.payoffMinor + paid).toBe(total - f.rebateMinor);
          expect(f.rebateMinor >= 0n && f.payoffMinor >= 0n).toBe(true);
          expect(f.waived.reduce((s, w) => s + w.amountMinor, 0n)).toBe(f.rebateMinor);
          expect(f.waived.every((w) => w.dueOn > on)).toBe(true);

          // The figure held; the payoff paid in pieces (M-Pesa's whole shillings, the cents over left to credit).
          const held = heldSettlement(
            {
              status: 'active',
              totalRepayableMinor: total,
              settlementPayoffMinor: f.payoffMinor,
              settlementRebateMinor: f.rebateMinor,
              settlementValidUntil: toDbDate(f.validUntil),
            },
            on,
          )!;
          expect(held.targetMinor).toBe(paid + f.payoffMinor);
          const weight = pieces.reduce((s, w) => s + w, 0);
          let over = 0n;
          let given = 0n;
          let sent = 0n;
          pieces.forEach((w, i) => {
            const share =
              i === pieces.length - 1 ? f.payoffMinor - given : (f.payoffMinor * BigInt(w)) / BigInt(weight);
            given += share;
            const shillings = ((share + 99n) / 100n) * 100n;
            sent += shillings;
            over += receive(lines, shillings, held.targetMinor - paidOf(lines));
          });
          expect(paidOf(lines)).toBe(total - f.rebateMinor);
          expect(sent - over).toBe(f.payoffMinor); // the lines took the payoff; the cents over go to credit
          const openOwed = lines.reduce((s, l) => s + (l.amountMinor - l.paidMinor - l.waivedMinor), 0n);
          expect(openOwed).toBe(f.rebateMinor);
          for (const w of planWaiver(lines, f.rebateMinor)) w.line.waivedMinor += w.amountMinor;
          for (const l of lines) expect(l.paidMinor + l.waivedMinor).toBe(l.amountMinor);
          expect(paidOf(lines) + lines.reduce((s, l) => s + l.waivedMinor, 0n)).toBe(total);
        },
      ),
      { numRuns: 400 },
    );
  });
});
