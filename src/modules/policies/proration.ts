/**
 * Mid-term money, pure and in integer cents (property-tested in test/proration.property.test.ts).
 *
 * The rule, documented in the docs/policy-lifecycle.md ("Mid-term money"):
 * - A policy period of D days (start to end inclusive). A premium item (one vehicle's annual basic premium B, PLL
 *   included) is on cover from `from` to `to` inclusive.
 * - The unearned part of B at day x is U(B, x) = B × R(x) / D rounded half away from zero to the cent, where R(x)
 *   is the number of days from x to the end inclusive (0 after the end, D on or before the start).
 * - Each percent levy of the tenant's levy table is taken term by term: levy(U) = U × rate rounded half away from
 *   zero. Flat levies (stamp duty) are charged once at bind and are never pro-rated or refunded.
 * - What a change costs is a sum of signed terms ±U(B, x): adding a vehicle at e is +U(B, e); removing one at e is
 *   −U(B, e); a new sum insured at e is +U(B', e) − U(B, e); cancelling at c is −U(B, c) for every item on cover.
 * - What an item earns over its days on cover is U(B, from) − U(B, to + 1): the same terms telescope, so for any
 *   sequence of changes the debit notes minus the credit notes equal what the days covered earn, to the cent.
 */
import { applyBps } from '../../lib/money.ts';
import { addDays, daysBetween } from '../../lib/dates.ts';
import { itemLevies } from '../motor/rating.ts';

export interface Period {
  /** Y-m-d */
  start: string;
  /** Y-m-d, inclusive */
  end: string;
}

export interface LevyRate {
  code: string;
  name: string;
  basis: 'percent' | 'flat';
  rateBps: number | null;
  amountMinor: bigint | null;
}

/** A signed piece of premium: +U(B, x) charged or −U(B, x) returned. */
export interface Term {
  annualBasicMinor: bigint;
  /** Y-m-d: the day the change takes effect */
  at: string;
  sign: 1 | -1;
}

export interface LevyLine {
  code: string;
  name: string;
  amountMinor: bigint;
}

export interface Priced {
  basicMinor: bigint;
  levies: LevyLine[];
  taxesMinor: bigint;
  totalMinor: bigint;
}

export const periodDays = (p: Period): number => daysBetween(p.start, p.end) + 1;

/** Days from `x` to the end inclusive, clamped to [0, D]. */
export function remainingDays(p: Period, x: string): number {
  const d = periodDays(p);
  const r = daysBetween(x, p.end) + 1;
  return r < 0 ? 0 : r > d ? d : r;
}

/** U(B, x): the unearned part of an annual basic premium at day x. */
export function unearned(p: Period, annualBasicMinor: bigint, x: string): bigint {
  const d = BigInt(periodDays(p));
  const num = annualBasicMinor * BigInt(remainingDays(p, x));
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const q = (abs * 2n + d) / (2n * d);
  return neg ? -q : q;
}

const percentLevies = (table: LevyRate[]) => table.filter((l) => l.basis === 'percent');

/** Prices signed terms: basic and each percent levy summed term by term (flat levies are not part of changes). */
export function priceTerms(p: Period, terms: Term[], table: LevyRate[]): Priced {
  let basicMinor = 0n;
  const levies = percentLevies(table).map((l) => ({
    code: l.code,
    name: l.name,
    amountMinor: 0n,
    rateBps: l.rateBps ?? 0,
  }));
  for (const t of terms) {
    const u = BigInt(t.sign) * unearned(p, t.annualBasicMinor, t.at);
    basicMinor += u;
    for (const l of levies) l.amountMinor += applyBps(u, l.rateBps);
  }
  const taxesMinor = levies.reduce((s, l) => s + l.amountMinor, 0n);
  return {
    basicMinor,
    levies: levies.map(({ code, name, amountMinor }) => ({ code, name, amountMinor })),
    taxesMinor,
    totalMinor: basicMinor + taxesMinor,
  };
}

/** The flat levies charged once per policy (at bind or renewal), not pro-rated, not refunded. */
export function flatLevies(table: LevyRate[]): LevyLine[] {
  return table
    .filter((l) => l.basis === 'flat')
    .map((l) => ({ code: l.code, name: l.name, amountMinor: l.amountMinor ?? 0n }));
}

/**
 * The premium of a new period (a bind or a renewal) whose premium items, of annual basics B_i, are each on cover from
 * its start: basic Σ B_i, each percent levy taken item by item (the terms +U(B_i, start) = B_i, as every later change
 * is priced), and the flat levies once. A policy of several items must be levied so: a levy of the sum can differ by
 * a cent from the sum of the items' levies, and a cancellation (which credits each item's levy) would then not
 * reconcile.
 */
export function periodPremium(basics: readonly bigint[], table: LevyRate[]): Priced {
  const levies = itemLevies(basics, table);
  const basicMinor = basics.reduce((s, b) => s + b, 0n);
  const taxesMinor = levies.reduce((s, l) => s + l.amountMinor, 0n);
  return { basicMinor, levies, taxesMinor, totalMinor: basicMinor + taxesMinor };
}

export interface PremiumItemSpan {
  annualBasicMinor: bigint;
  /** Y-m-d inclusive */
  from: string;
  /** Y-m-d inclusive */
  to: string;
}

/** What one item earns over its days on cover: U(B, from) − U(B, to + 1), with each percent levy term by term. */
export function earned(p: Period, item: PremiumItemSpan, table: LevyRate[]): Priced {
  return priceTerms(
    p,
    [
      { annualBasicMinor: item.annualBasicMinor, at: item.from, sign: 1 },
      { annualBasicMinor: item.annualBasicMinor, at: addDays(item.to, 1), sign: -1 },
    ],
    table,
  );
}

/** Sum of Priced figures (levy lines matched by code). */
export function sumPriced(xs: Priced[]): Priced {
  const levies = new Map<string, LevyLine>();
  let basicMinor = 0n;
  for (const x of xs) {
    basicMinor += x.basicMinor;
    for (const l of x.levies) {
      const cur = levies.get(l.code) ?? { code: l.code, name: l.name, amountMinor: 0n };
      cur.amountMinor += l.amountMinor;
      levies.set(l.code, cur);
    }
  }
  const lines = [...levies.values()];
  const taxesMinor = lines.reduce((s, l) => s + l.amountMinor, 0n);
  return { basicMinor, levies: lines, taxesMinor, totalMinor: basicMinor + taxesMinor };
}
