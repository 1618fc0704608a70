/**
 * What every line's rating shares: amounts named in breakdown text, and exact proportional splits of a premium over
 * insured persons. Pure, integer cents.
 */

const sum = (xs: readonly bigint[]): bigint => xs.reduce((s, x) => s + x, 0n);

/**
 * `total` shared in proportion to `weights` (non-negative): each share rounded down to the cent, the cents left over
 * to the first; evenly (the same rule) when every weight is zero. The shares sum to `total` exactly.
 */
export function splitByWeight(total: bigint, weights: readonly bigint[]): bigint[] {
  if (!weights.length) return [];
  const all = sum(weights);
  const w = all > 0n ? weights : weights.map(() => 1n);
  const of = all > 0n ? all : BigInt(weights.length);
  const shares = w.map((x) => (total * x) / of);
  shares[0] += total - sum(shares);
  return shares;
}

/**
 * Lifts premiums to a minimum total: the shortfall (`liftMinor`) shared over them by splitByWeight, so each keeps
 * at least its own premium and the shares sum to max(total, minimum) exactly.
 */
export function liftToMinimum(
  premiums: readonly bigint[],
  minimumMinor: bigint,
): { shares: bigint[]; liftMinor: bigint } {
  const total = sum(premiums);
  if (total >= minimumMinor || !premiums.length) return { shares: [...premiums], liftMinor: 0n };
  const lift = minimumMinor - total;
  const extra = splitByWeight(lift, premiums);
  return { shares: premiums.map((p, i) => p + extra[i]), liftMinor: lift };
}

/** An amount in breakdown text: KES 1,500 or KES 1,500.50 (shillings grouped by thousands; cents only when some). */
export function kes(minor: bigint): string {
  const neg = minor < 0n;
  const abs = neg ? -minor : minor;
  const grouped = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = abs % 100n;
  return `${neg ? '−' : ''}KES ${grouped}${cents ? `.${cents.toString().padStart(2, '0')}` : ''}`;
}
