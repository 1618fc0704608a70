import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type InstalmentLine, lineOutstanding, loanBalance } from '../src/modules/finance/loan/balance.ts';
import { earlySettlement, type IpfLenderTerms, ipfOffer, ipfSchedule } from '../src/modules/reference/ipf-terms.ts';
import { dayNumber, ymdOf } from './helpers/money-oracle.ts';

// The premium-finance arithmetic (src/modules/reference/ipf-terms.ts) and a loan's balance (finance/loan/balance.ts)
// against a deliberately naive second implementation written here from the rules stated at the top of those files:
// plain Numbers (every figure below 2^53), its own rounding by quotient and remainder, its own month arithmetic on the
// oracle's day numbers. It shares no code with src/.

// ---- the naive implementation -----------------------------------------------------------------------------------

/** a ÷ b rounded half away from zero, for a ≥ 0. */
const roundHalfUp = (a: number, b: number) => {
  const q = Math.floor(a / b);
  return (a - q * b) * 2 >= b ? q + 1 : q;
};
/** Cents down to a whole shilling. */
const downToShilling = (c: number) => c - (c % 100);

function naiveCharge(premium: number, l: IpfLenderTerms, months: number): number | null {
  const tenor = l.tenors.find((t) => t.months === months);
  if (!tenor) return null;
  if (l.pricing === 'rate_per_tenor') return roundHalfUp(premium * tenor.chargeBps, 10_000);
  for (const b of l.feeBands)
    if (b.upToPremiumMinor === null || premium <= Number(b.upToPremiumMinor)) return Number(b.feeMinor);
  return null;
}

/** `total` over `n` payments: each later one the largest whole-shilling amount that n of them do not exceed. */
function naiveSplit(total: number, n: number): number[] {
  const later = (total - (total % (n * 100))) / n;
  return [total - later * (n - 1), ...Array<number>(n - 1).fill(later)];
}

function naivePayments(total: number, l: IpfLenderTerms, months: number): number[] {
  if (l.depositRule === 'one_instalment' || months < 2 || !l.depositBps) return naiveSplit(total, months);
  const deposit = downToShilling(roundHalfUp(total * l.depositBps, 10_000));
  return [deposit, ...naiveSplit(total - deposit, months - 1)];
}

function naiveApr(premium: number, charge: number, l: IpfLenderTerms, months: number): number {
  const bps = l.tenors.find((t) => t.months === months)!.chargeBps;
  if (l.pricing === 'rate_per_tenor') return roundHalfUp(bps * 12, months);
  return roundHalfUp(charge * 10_000 * 12, premium * months);
}

/** The same day `k` months on, or that month's last day when it is shorter. */
function naiveAddMonths(ymd: string, k: number): string {
  const [y, m, d] = ymd.split('-').map(Number);
  const idx = y * 12 + (m - 1) + k;
  const [ny, nm] = [Math.floor(idx / 12), (idx % 12) + 1];
  const first = (yy: number, mm: number) => `${yy}-${String(mm).padStart(2, '0')}-01`;
  const nextIdx = idx + 1;
  const last = Number(ymdOf(dayNumber(first(Math.floor(nextIdx / 12), (nextIdx % 12) + 1)) - 1).slice(8));
  return `${ny}-${String(nm).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

// ---- arbitraries -------------------------------------------------------------------------------------------------

const feeBands = fc
  .uniqueArray(fc.integer({ min: 1_000_000, max: 200_000_000 }), { maxLength: 3 })
  .chain((bounds) =>
    fc.tuple(
      fc.constant([...bounds].sort((a, b) => a - b)),
      fc.array(fc.integer({ min: 0, max: 5_000_000 }), { minLength: bounds.length + 1, maxLength: bounds.length + 1 }),
    ),
  )
  .map(([bounds, fees]) => [
    ...bounds.map((up, i) => ({ upToPremiumMinor: BigInt(up), feeMinor: BigInt(fees[i]) })),
    { upToPremiumMinor: null, feeMinor: BigInt(fees[bounds.length]) },
  ]);

const lender: fc.Arbitrary<IpfLenderTerms> = fc
  .record({
    pricing: fc.constantFrom<IpfLenderTerms['pricing']>('rate_per_tenor', 'flat_fee_by_band'),
    depositRule: fc.constantFrom<IpfLenderTerms['depositRule']>('one_instalment', 'percent'),
    depositBps: fc.integer({ min: 500, max: 5_000 }),
    tenors: fc.uniqueArray(
      fc.record({ months: fc.integer({ min: 3, max: 10 }), chargeBps: fc.integer({ min: 0, max: 1_500 }) }),
      { minLength: 1, maxLength: 8, selector: (t) => t.months },
    ),
    feeBands,
  })
  .map((x) => ({
    id: 1,
    name: 'Naive Lender',
    minPremiumMinor: 0n,
    maxPremiumMinor: null,
    maxInstalmentToIncomeBps: 3_000,
    defaultGraceDays: 30,
    ...x,
    depositBps: x.depositRule === 'percent' ? x.depositBps : null,
  }));

/** A premium (cents, up to KES 5 million) and one of the lender's tenors. */
const priced = fc.tuple(lender, fc.integer({ min: 100, max: 500_000_000 }), fc.nat()).map(([l, premium, pick]) => ({
  l,
  premium,
  months: l.tenors[pick % l.tenors.length].months,
}));

const signedOn = fc.integer({ min: dayNumber('2024-01-01'), max: dayNumber('2030-12-31') }).map(ymdOf);

// ---- properties ----------------------------------------------------------------------------------------------------

describe('ipf-terms: offers and schedules against the naive implementation', () => {
  it('charge, total, payments (summing exactly to premium + charge) and apr, for both pricings and deposit rules', () => {
    fc.assert(
      fc.property(priced, (x) => {
        const { l, premium, months } = x;
        const o = ipfOffer(BigInt(premium), l, months);
        const charge = naiveCharge(premium, l, months);
        if (charge === null) return expect(o).toBeNull();
        const total = premium + charge;
        const payments = naivePayments(total, l, months);
        expect(o).not.toBeNull();
        expect(Number(o!.chargeMinor)).toBe(charge);
        expect(Number(o!.totalRepayableMinor)).toBe(total);
        expect(o!.paymentsMinor.map(Number)).toEqual(payments);
        expect(o!.paymentsMinor.reduce((s, p) => s + p, 0n)).toBe(BigInt(premium) + o!.chargeMinor);
        expect(o!.paymentsMinor).toHaveLength(months);
        for (const p of o!.paymentsMinor) expect(p >= 0n).toBe(true);
        // Whole shillings but for the one payment that takes the odd cents: the deposit under one_instalment,
        // payment 2 under percent (the deposit is then a whole-shilling share, and the rest is split the same way).
        const takesRest = x.l.depositRule === 'percent' && months > 1 ? 1 : 0;
        o!.paymentsMinor.forEach((p, i) => i !== takesRest && expect(p % 100n, `payment ${i + 1}`).toBe(0n));
        expect([Number(o!.depositMinor), Number(o!.instalmentMinor)]).toEqual([payments[0], payments[1]]);
        expect(o!.aprBps).toBe(naiveApr(premium, charge, l, months));
      }),
      { numRuns: 1_500 },
    );
  });

  it('a premium outside the lender’s bounds is not offered', () => {
    fc.assert(
      fc.property(priced, fc.integer({ min: 1, max: 1_000_000 }), ({ l, premium, months }, gap) => {
        expect(ipfOffer(BigInt(premium), { ...l, minPremiumMinor: BigInt(premium + gap) }, months)).toBeNull();
        expect(ipfOffer(BigInt(premium + gap), { ...l, maxPremiumMinor: BigInt(premium) }, months)).toBeNull();
      }),
    );
  });

  it('the schedule: the deposit on the signing day, then monthly on that day or the month’s last', () => {
    fc.assert(
      fc.property(priced, signedOn, ({ l, premium, months }, on) => {
        const o = ipfOffer(BigInt(premium), l, months);
        fc.pre(o !== null);
        const lines = ipfSchedule(o, on);
        expect(lines.map((x) => x.seq)).toEqual(Array.from({ length: months }, (_, i) => i + 1));
        expect(lines.map((x) => x.dueOn)).toEqual(lines.map((_, i) => naiveAddMonths(on, i)));
        expect(lines.map((x) => x.amountMinor)).toEqual(o.paymentsMinor);
      }),
    );
  });
});

describe('ipf-terms: early settlement', () => {
  it('payoff + paid = total − rebate, 0 ≤ rebate ≤ charge, the rebate by payments not yet due', () => {
    fc.assert(
      fc.property(priced, signedOn, fc.integer({ min: -40, max: 400 }), fc.nat(), (x, on, offset, paidPick) => {
        const o = ipfOffer(BigInt(x.premium), x.l, x.months);
        fc.pre(o !== null);
        const schedule = ipfSchedule(o, on);
        const settleOn = ymdOf(dayNumber(on) + offset);
        const total = Number(o.totalRepayableMinor);
        const paid = paidPick % (total + 1);
        const loan = {
          chargeMinor: o.chargeMinor,
          totalRepayableMinor: o.totalRepayableMinor,
          paidMinor: BigInt(paid),
          tenorMonths: x.months,
        };
        const s = earlySettlement(loan, schedule, settleOn);
        expect(s.payoffMinor + BigInt(paid)).toBe(o.totalRepayableMinor - s.rebateMinor);
        expect(s.rebateMinor >= 0n && s.rebateMinor <= o.chargeMinor).toBe(true);
        const notYetDue = schedule.filter((l) => dayNumber(l.dueOn) > dayNumber(settleOn)).length;
        const naive = Math.min(Math.floor((Number(o.chargeMinor) * notYetDue) / x.months), total - paid);
        expect([s.notYetDue, Number(s.rebateMinor)]).toEqual([notYetDue, naive]);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('a loan’s balance (finance/loan/balance.ts)', () => {
  it('outstanding = total − paid − rebate; arrears = what is unpaid of the lines due by the day', () => {
    fc.assert(
      fc.property(priced, signedOn, fc.nat(), fc.integer({ min: -40, max: 400 }), (x, on, paidPick, offset) => {
        const o = ipfOffer(BigInt(x.premium), x.l, x.months);
        fc.pre(o !== null);
        const total = Number(o.totalRepayableMinor);
        // Receipts allocated oldest first, as repayments are.
        let left = paidPick % (total + 1);
        const lines: InstalmentLine[] = ipfSchedule(o, on).map((l) => {
          const paid = Math.min(left, Number(l.amountMinor));
          left -= paid;
          return { ...l, dueOn: new Date(`${l.dueOn}T00:00:00Z`), paidMinor: BigInt(paid), waivedMinor: 0n };
        });
        const paid = lines.reduce((s, l) => s + Number(l.paidMinor), 0);
        const today = ymdOf(dayNumber(on) + offset);
        const b = loanBalance(
          { status: 'active', totalRepayableMinor: o.totalRepayableMinor, paidMinor: BigInt(paid), rebateMinor: 0n },
          lines,
          today,
        );
        expect(Number(b.outstandingMinor)).toBe(total - paid);
        const due = lines.filter((l) => dayNumber(l.dueOn.toISOString().slice(0, 10)) <= dayNumber(today));
        expect(Number(b.arrearsMinor)).toBe(due.reduce((s, l) => s + Number(l.amountMinor - l.paidMinor), 0));
        const firstUnpaid = lines.find((l) => l.paidMinor < l.amountMinor);
        expect(b.nextDue?.seq ?? null).toBe(firstUnpaid?.seq ?? null);
        if (firstUnpaid) expect(b.nextDue!.amountMinor).toBe(lineOutstanding(firstUnpaid));
      }),
      { numRuns: 500 },
    );
  });
});
