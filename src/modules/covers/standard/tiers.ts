/**
 * Tiered (marginal) rating over contiguous bands, and the exact proportional split of a premium. Pure and exact:
 * integer cents and counts only.
 */
import { applyBps } from '../../../lib/money.ts';
import type { RatingCoverRate } from '../line.ts';

/** The part of the rated quantity that falls in one band, and what that part costs. */
export interface Slice {
  row: RatingCoverRate;
  /** Units of the quantity in this band (cents of sum insured, or heads). */
  units: bigint;
  amountMinor: bigint;
}

export type Tiering = { slices: Slice[] } | { malformed: string } | { above: bigint };

/** How a row prices its units: basis points of cents (rateBps), or an amount per unit (amountMinor). */
export type RowKind = 'rate' | 'amount';

function checkBands(bands: readonly RatingCoverRate[], kind: RowKind): string | null {
  if (!bands.length) return 'no bands';
  if (bands[0].from > 1n) return 'the first band does not start at 0 or 1';
  for (const [i, b] of bands.entries()) {
    if (i > 0 && b.from !== (bands[i - 1].to ?? -1n) + 1n) return 'the bands leave a gap or overlap';
    if (b.to !== null && b.to < b.from) return 'a band ends before it starts';
    if (b.to === null && i < bands.length - 1) return 'an open band is not the last';
    const ok = kind === 'rate' ? b.rateBps !== null && b.rateBps >= 0 : b.amountMinor !== null && b.amountMinor >= 0n;
    if (!ok) return kind === 'rate' ? 'a band has no rate' : 'a band has no amount';
  }
  return null;
}

/**
 * Prices `units` (numbered 1..units) slice by slice: the units in each band at that band's rate or amount, so the
 * price never falls when the quantity grows, whatever the band figures (each slice only grows, and rounding half
 * away from zero of a non-negative amount is monotone). Bands must tile from 0 or 1 without gaps; a quantity beyond
 * a closed last band is `above` that band's end (the insurer does not offer it).
 */
export function tier(bands: readonly RatingCoverRate[], units: bigint, kind: RowKind): Tiering {
  const bad = checkBands(bands, kind);
  if (bad) return { malformed: bad };
  const last = bands[bands.length - 1];
  if (last.to !== null && units > last.to) return { above: last.to };
  const slices: Slice[] = [];
  for (const row of bands) {
    const lo = row.from < 1n ? 1n : row.from;
    const hi = row.to === null || row.to > units ? units : row.to;
    if (hi < lo) break;
    const n = hi - lo + 1n;
    slices.push({ row, units: n, amountMinor: kind === 'rate' ? applyBps(n, row.rateBps!) : n * row.amountMinor! });
  }
  return { slices };
}

/** Basis points as a percentage: 15 → 0.15%, 250 → 2.5%. */
export function percent(bps: number): string {
  const frac = String(bps % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return `${Math.trunc(bps / 100)}${frac ? `.${frac}` : ''}%`;
}
