/**
 * A second, deliberately naive implementation of the money rules the README documents ("Money", "Rating",
 * "Mid-term money"), for the property tests to take their expected values from. It shares no code with src/, not
 * even the calendar: a date is a day number from a days-from-civil formula, rounding is a quotient-and-remainder
 * comparison, and what an item earns is accumulated day by day. Slow and plain on purpose; never import the code
 * under test here.
 */

// ---- calendar ----------------------------------------------------------------------------------------------------

/** Days since 1970-01-01 of a Y-m-d date (days_from_civil, proleptic Gregorian). */
export function dayNumber(ymd: string): number {
  const [y0, m, d] = ymd.split('-').map(Number) as [number, number, number];
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The Y-m-d date of a day number (civil_from_days). */
export function ymdOf(n: number): string {
  const z = n + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The day `n` days after (before, when negative) a Y-m-d date. */
export const plusDays = (ymd: string, n: number): string => ymdOf(dayNumber(ymd) + n);

/** One year less a day; a start on 29 February ends on 28 February of the next year (src/lib/dates.ts annualEnd). */
export function annualEndOf(start: string): string {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  if (m === 2 && d === 29) return `${y + 1}-02-28`;
  const anniversary = `${y + 1}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  // Every other day of the month exists next year too (28 February included, whether or not the year is leap).
  return ymdOf(dayNumber(anniversary) - 1);
}

/** Days from `from` to `to` inclusive (0 when `to` is before `from`). */
export const countDays = (from: string, to: string): number => Math.max(0, dayNumber(to) - dayNumber(from) + 1);

// ---- rounding ----------------------------------------------------------------------------------------------------

/** num / den rounded half away from zero (den > 0), by quotient and remainder. */
export function roundDiv(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = a / den;
  const r = a - q * den;
  const rounded = r * 2n >= den ? q + 1n : q;
  return neg ? -rounded : rounded;
}

/** `bps` basis points of an amount in cents, to the cent, half away from zero (docs/api-conventions.md "Money"). */
export const percentOf = (cents: bigint, bps: number): bigint => roundDiv(cents * BigInt(bps), 10_000n);

/** Whole shillings from cents, half away from zero (docs/api-conventions.md "Money"). */
export const shillings = (cents: bigint): number => Number(roundDiv(cents, 100n));

// ---- mid-term money (docs/policy-lifecycle.md "Mid-term money") ----------------------------------------------------------------------

export interface OraclePeriod {
  start: string;
  end: string;
}

export interface OracleLevy {
  code: string;
  basis: 'percent' | 'flat';
  rateBps: number | null;
  amountMinor: bigint | null;
}

/** R(x): the days of cover from x to the end inclusive (D on or before the start, 0 after the end). */
export function remaining(p: OraclePeriod, x: string): number {
  const from = dayNumber(x) < dayNumber(p.start) ? p.start : x;
  return countDays(from, p.end);
}

/** U(B, x) = B × R(x) / D, half away from zero to the cent; on a day number, for the day-by-day sums. */
function unearnedOn(p: OraclePeriod, annualBasicMinor: bigint, day: number): bigint {
  const start = dayNumber(p.start);
  const end = dayNumber(p.end);
  const r = Math.max(0, end - Math.max(day, start) + 1);
  return roundDiv(annualBasicMinor * BigInt(r), BigInt(end - start + 1));
}

export const unearnedOf = (p: OraclePeriod, annualBasicMinor: bigint, x: string): bigint =>
  unearnedOn(p, annualBasicMinor, dayNumber(x));

export interface OracleMoney {
  basicMinor: bigint;
  /** Percent levies by code. */
  levies: Record<string, bigint>;
  totalMinor: bigint;
}

const percentLevies = (table: OracleLevy[]) => table.filter((l) => l.basis === 'percent');

function money(basicMinor: bigint, levies: Record<string, bigint>): OracleMoney {
  return { basicMinor, levies, totalMinor: basicMinor + Object.values(levies).reduce((s, x) => s + x, 0n) };
}

/** A note: signed terms ±U(B, at), and each percent levy taken term by term. */
export function priceOf(
  p: OraclePeriod,
  terms: { annualBasicMinor: bigint; at: string; sign: 1 | -1 }[],
  table: OracleLevy[],
): OracleMoney {
  let basic = 0n;
  const levies: Record<string, bigint> = Object.fromEntries(percentLevies(table).map((l) => [l.code, 0n]));
  for (const t of terms) {
    const u = BigInt(t.sign) * unearnedOf(p, t.annualBasicMinor, t.at);
    basic += u;
    for (const l of percentLevies(table)) levies[l.code] += percentOf(u, l.rateBps ?? 0);
  }
  return money(basic, levies);
}

/**
 * What an item earns over its days on cover, accumulated day by day: each covered day d earns U(B, d) − U(B, d + 1)
 * of the basic premium and of each percent levy (every U and every levy of it rounded on its own, as the notes are).
 */
export function earnedOver(
  p: OraclePeriod,
  item: { annualBasicMinor: bigint; from: string; to: string },
  table: OracleLevy[],
): OracleMoney {
  let basic = 0n;
  const levies: Record<string, bigint> = Object.fromEntries(percentLevies(table).map((l) => [l.code, 0n]));
  for (let d = dayNumber(item.from), last = dayNumber(item.to); d <= last; d += 1) {
    const today = unearnedOn(p, item.annualBasicMinor, d);
    const tomorrow = unearnedOn(p, item.annualBasicMinor, d + 1);
    basic += today - tomorrow;
    for (const l of percentLevies(table))
      levies[l.code] += percentOf(today, l.rateBps ?? 0) - percentOf(tomorrow, l.rateBps ?? 0);
  }
  return money(basic, levies);
}

export function sumMoney(xs: OracleMoney[]): OracleMoney {
  const levies: Record<string, bigint> = {};
  let basic = 0n;
  for (const x of xs) {
    basic += x.basicMinor;
    for (const [code, v] of Object.entries(x.levies)) levies[code] = (levies[code] ?? 0n) + v;
  }
  return money(basic, levies);
}

/** The flat levies, charged once at bind. */
export const flatTotal = (table: OracleLevy[]): bigint =>
  table.filter((l) => l.basis === 'flat').reduce((s, l) => s + (l.amountMinor ?? 0n), 0n);
