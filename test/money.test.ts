import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyBps, fromShillings, moneyFields, toShillings } from '../src/lib/money.ts';

// Amounts up to ±10^15 cents (KES 10 trillion): far beyond any premium, still exercising bigint arithmetic.
const cents = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });

describe('toShillings (round half away from zero)', () => {
  it.each([
    [4_524_250n, 45_243],
    [4_524_249n, 45_242],
    [4_524_200n, 45_242],
    [50n, 1],
    [49n, 0],
    [-49n, 0],
    [-50n, -1],
    [-51n, -1],
    [-150n, -2],
    [0n, 0],
  ])('%s cents → KES %s', (c, shillings) => {
    expect(toShillings(c)).toBe(shillings);
  });

  it('never returns negative zero', () => {
    expect(Object.is(toShillings(-49n), -0)).toBe(false);
    expect(Object.is(toShillings(0n), -0)).toBe(false);
  });

  it('stays within 50 cents of the exact amount, and exactly 50 only away from zero', () => {
    fc.assert(
      fc.property(cents, (c) => {
        const diff = BigInt(toShillings(c)) * 100n - c;
        expect(diff <= 50n && diff >= -50n).toBe(true);
        if (diff === 50n) expect(c > 0n).toBe(true);
        if (diff === -50n) expect(c < 0n).toBe(true);
      }),
    );
  });

  it('is monotone', () => {
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(toShillings(lo)).toBeLessThanOrEqual(toShillings(hi));
      }),
    );
  });

  it('is odd-symmetric: toShillings(-c) = -toShillings(c)', () => {
    fc.assert(
      fc.property(cents, (c) => {
        expect(toShillings(-c) + toShillings(c)).toBe(0);
      }),
    );
  });

  it('is exact on whole shillings', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (s) => {
        expect(toShillings(BigInt(s) * 100n)).toBe(s);
      }),
    );
  });
});

describe('fromShillings', () => {
  it('turns whole shillings into cents exactly', () => {
    expect(fromShillings(45_000)).toBe(4_500_000n);
    expect(fromShillings(0)).toBe(0n);
    expect(fromShillings(-40)).toBe(-4_000n);
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (s) => {
        expect(fromShillings(s)).toBe(BigInt(s) * 100n);
      }),
    );
  });

  it('keeps a fractional amount to the cent rather than truncating it', () => {
    expect(fromShillings(45_242.5)).toBe(4_524_250n);
    expect(fromShillings(0.01)).toBe(1n);
    expect(fromShillings(19.99)).toBe(1_999n);
  });

  it('round-trips through toShillings for whole amounts', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (s) => {
        expect(toShillings(fromShillings(s))).toBe(s);
      }),
    );
  });

  it('refuses non-finite input', () => {
    expect(() => fromShillings(Number.NaN)).toThrow(RangeError);
    expect(() => fromShillings(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('applyBps (basis points, rounded half away from zero to the cent)', () => {
  it.each([
    [4_500_000n, 20, 9_000n], // TL 0.20 % of KES 45,000 = 90.00
    [4_500_000n, 25, 11_250n], // PHCF 0.25 % = 112.50
    [100n, 50, 1n], // 0.5 cent → 1
    [99n, 50, 0n], // 0.495 cent → 0
    [-100n, 50, -1n], // −0.5 cent → −1
    [-99n, 50, 0n],
    [300n, 5_000, 150n],
    [1n, 5_000, 1n], // exactly half a cent
    [-1n, 5_000, -1n],
    [0n, 1234, 0n],
  ])('%s cents × %s bps → %s', (c, bps, out) => {
    expect(applyBps(c, bps)).toBe(out);
  });

  it('is the identity at 10,000 bps and zero at 0 bps', () => {
    fc.assert(
      fc.property(cents, (c) => {
        expect(applyBps(c, 10_000)).toBe(c);
        expect(applyBps(c, 0)).toBe(0n);
      }),
    );
  });

  it('is within half a cent of the exact product, ties away from zero', () => {
    fc.assert(
      fc.property(cents, fc.integer({ min: 0, max: 100_000 }), (c, bps) => {
        // Compare in units of 1/10,000 cent to stay exact.
        const exact = c * BigInt(bps);
        const diff = applyBps(c, bps) * 10_000n - exact;
        expect(diff <= 5_000n && diff >= -5_000n).toBe(true);
        if (diff === 5_000n) expect(exact > 0n).toBe(true);
        if (diff === -5_000n) expect(exact < 0n).toBe(true);
      }),
    );
  });

  it('is odd-symmetric', () => {
    fc.assert(
      fc.property(cents, fc.integer({ min: 0, max: 100_000 }), (c, bps) => {
        expect(applyBps(-c, bps)).toBe(-applyBps(c, bps));
      }),
    );
  });
});

describe('the worked example of the domain notes', () => {
  it('basic 45,000 → TL 90.00, PHCF 112.50, SD 40 → total 45,242.50, whole-shilling 45,243', () => {
    const basic = fromShillings(45_000);
    const tl = applyBps(basic, 20);
    const phcf = applyBps(basic, 25);
    const sd = 4_000n;
    expect(tl).toBe(9_000n);
    expect(phcf).toBe(11_250n);
    const total = basic + tl + phcf + sd;
    expect(total).toBe(4_524_250n);
    expect(toShillings(total)).toBe(45_243);
    expect(moneyFields('total', total)).toEqual({ total: 45_243, total_minor: 4_524_250 });
  });

  it('moneyFields gives null for both fields when there is no amount', () => {
    expect(moneyFields('amount', null)).toEqual({ amount: null, amount_minor: null });
    expect(moneyFields('amount', undefined)).toEqual({ amount: null, amount_minor: null });
  });
});
