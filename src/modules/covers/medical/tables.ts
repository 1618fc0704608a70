/**
 * Reading a medical product's rate tables (documented in rating.ts): per-person premiums by age band for a limit,
 * the limits offered, and the group headcount discount.
 */
import { kes } from '../arith.ts';
import type { Ineligible, RatingCoverProduct } from '../line.ts';
import { bandOf, keysOf, rows } from '../rate-table.ts';
import type { MedicalMember } from './types.ts';

export const HEADCOUNT_TABLE = 'group_headcount';

/** Each member's premium at one limit; `covered` false (and 0) where no band covers the member's age. */
export interface AgePremiums {
  amounts: bigint[];
  covered: boolean[];
}

/** The limits (cents) a table offers, ascending; its keys are limits in cents as decimal strings. */
export function limitsOffered(product: RatingCoverProduct, table: string): bigint[] {
  return keysOf(product, table)
    .filter((k) => /^\d{1,18}$/.test(k))
    .map((k) => BigInt(k))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Why the insurer refuses a limit it does not offer, or null when it offers it. */
export function limitRefusal(product: RatingCoverProduct, table: string, name: string, limitMinor: bigint) {
  const offered = limitsOffered(product, table);
  if (offered.includes(limitMinor)) return null;
  if (!offered.length) return `does not offer ${name} cover`;
  return `offers no ${name} limit of ${kes(limitMinor)} (its limits: ${offered.map(kes).join(', ')})`;
}

export function byAge(
  product: RatingCoverProduct,
  table: string,
  limitMinor: bigint,
  members: readonly MedicalMember[],
): AgePremiums | Ineligible {
  const key = limitMinor.toString();
  if (rows(product, table, key).some((r) => r.amountMinor === null || r.amountMinor < 0n)) {
    return { ineligible: `its ${table} rate table is malformed (a band without a premium)` };
  }
  const bands = members.map((m) => bandOf(product, table, key, m.ageYears));
  return {
    amounts: bands.map((b) => b?.amountMinor ?? 0n),
    covered: bands.map((b) => b !== undefined),
  };
}

/** The ages a table's bands cover at one limit, contiguous bands merged: "18–49", "0–17, 60 and over". */
export function agesCovered(product: RatingCoverProduct, table: string, limitMinor: bigint): string {
  const spans: { from: bigint; to: bigint | null }[] = [];
  for (const r of rows(product, table, limitMinor.toString())) {
    const last = spans.at(-1);
    if (last && (last.to === null || r.from <= last.to + 1n)) {
      if (last.to !== null && (r.to === null || r.to > last.to)) last.to = r.to;
    } else spans.push({ from: r.from, to: r.to });
  }
  return spans.map((s) => (s.to === null ? `${s.from} and over` : `${s.from}–${s.to}`)).join(', ');
}

/**
 * A group's headcount discount: the band of `group_headcount` covering the number of members. The first band's
 * lower bound is the insurer's minimum group size.
 */
export function headcountDiscount(product: RatingCoverProduct, headcount: number): { bps: number } | Ineligible {
  const bands = rows(product, HEADCOUNT_TABLE, '');
  if (!bands.length) return { ineligible: 'does not offer group medical cover' };
  if (BigInt(headcount) < bands[0].from) {
    return { ineligible: `covers groups of ${bands[0].from} or more members (this group has ${headcount})` };
  }
  const band = bandOf(product, HEADCOUNT_TABLE, '', headcount);
  if (!band) return { ineligible: `has no headcount band for a group of ${headcount} members` };
  const bps = band.rateBps ?? 0;
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) {
    return { ineligible: `its ${HEADCOUNT_TABLE} table is malformed (a discount outside 0–100 %)` };
  }
  return { bps };
}
