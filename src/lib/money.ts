/**
 * Money is integer cents (bigint) everywhere. Whole-shilling response fields are derived from cents by ONE rule:
 * round half away from zero to the nearest shilling (KES 45,242.50 → 45,243; −0.50 → −1). Requests in whole
 * shillings become cents exactly.
 */
export type Cents = bigint;

/**
 * The largest amount a request may carry, on both transports: 9,007,199,254,740,991 cents (Number.MAX_SAFE_INTEGER),
 * KES 90,071,992,547,409.91. REST bodies are JSON numbers, exact only up to 2^53 − 1; GraphQL takes the same bound so
 * that every stored amount reads back exactly on both. The columns are BIGINT, far above it.
 */
export const MAX_MINOR = Number.MAX_SAFE_INTEGER;
/** The largest whole-shilling request amount: its cents stay within MAX_MINOR (KES 90,071,992,547,409). */
export const MAX_SHILLINGS = Math.floor(MAX_MINOR / 100);

export function toShillings(cents: Cents): number {
  return Number(roundedShillings(cents));
}

/** The same rounding kept exact (bigint), for a serialiser that refuses what a JSON number cannot hold. */
export function roundedShillings(cents: Cents): bigint {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  const whole = (abs + 50n) / 100n;
  return neg ? -whole : whole;
}

export function fromShillings(shillings: number): Cents {
  if (!Number.isFinite(shillings)) throw new RangeError('amount must be finite');
  // Requests carry whole shillings; a fractional amount is kept to the cent rather than silently truncated.
  return BigInt(Math.round(shillings * 100));
}

/**
 * What to ask a customer to pay for an amount owed: whole shillings rounded UP (M-Pesa takes whole shillings), so
 * paying the figure asked always clears the amount; the odd cents over go on to what is owed next or to credit. Not
 * a response figure (those use toShillings), only a prompt's or a reminder's.
 */
export function promptShillings(cents: Cents): bigint {
  return (cents + 99n) / 100n;
}

/** Percentage of an amount in basis points, rounded half away from zero to the cent. */
export function applyBps(cents: Cents, bps: number): Cents {
  const num = cents * BigInt(bps);
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const q = (abs + 5_000n) / 10_000n;
  return neg ? -q : q;
}

/** An amount as events carry it: `{amount: shillings, amount_minor: cents}` (never null). */
export function amountOf(cents: Cents): { amount: number; amount_minor: number } {
  return { amount: toShillings(cents), amount_minor: Number(cents) };
}

/** Both response fields of an amount: `{[name]: shillings, [name_minor]: cents}`. */
export function moneyFields<N extends string>(
  name: N,
  cents: Cents | null | undefined,
): Record<N | `${N}_minor`, number | null> {
  return {
    [name]: cents == null ? null : toShillings(cents),
    [`${name}_minor`]: cents == null ? null : Number(cents),
  } as Record<N | `${N}_minor`, number | null>;
}
