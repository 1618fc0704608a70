import { now as clockNow } from './clock.ts';

/** Calendar dates as Y-m-d strings in the Africa/Nairobi calendar: UTC+3 all year (no DST since 1942). */
const NAIROBI_OFFSET_MS = 3 * 3_600_000;

/**
 * The Nairobi calendar day of an instant; by default of now on the service's clock (src/lib/clock.ts). Plain
 * arithmetic on the fixed offset: an Intl formatter with the time zone gives the same day (test/clock.test.ts checks
 * the two agree) at many times the cost, and every quote asks.
 */
export function todayNairobi(now: Date = clockNow()): string {
  return ymdAt(now.getTime() + NAIROBI_OFFSET_MS);
}

/**
 * Dates the service accepts: births, cover periods and filters all fall well inside these years, and anything
 * outside them is a typo (9999-…) that would only overflow a date calculation further on.
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2199;

/**
 * The one rule for a date input (REST query and body, GraphQL arguments, the Date scalar): Y-m-d naming a day
 * that exists (no 2026-02-30, which Date.parse rolls over to 2 March) in MIN_YEAR..MAX_YEAR. Never throws.
 */
export function isYmd(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < MIN_YEAR || y > MAX_YEAR || mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** The field-error message for a date that fails isYmd. */
export const YMD_MESSAGE = `a real calendar date, Y-m-d, in ${MIN_YEAR}–${MAX_YEAR}`;

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * The one rule for a date-time input (REST query and body, GraphQL arguments, the DateTime scalar): RFC 3339
 * `Y-m-dTHH:MM:SS[.fraction]` with `Z` or a `±HH:MM` offset, its date a real one under isYmd (no 2027-02-30, which
 * Date.parse rolls over to 2 March; no year 0000), its time a real one (no 24:00, no leap second), its offset at
 * most ±23:59. The instant, or null for anything else. Never throws.
 */
export function parseDateTime(s: unknown): Date | null {
  if (typeof s !== 'string') return null;
  const m = RFC3339.exec(s);
  if (!m || !isYmd(m[1])) return null;
  const [h, mi, sec] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (h > 23 || mi > 59 || sec > 59) return null;
  if (m[6] && (Number(m[7]) > 23 || Number(m[8]) > 59)) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The field-error message for a date-time that fails parseDateTime. */
export const DATE_TIME_MESSAGE = `an RFC 3339 date-time with its offset (e.g. 2026-06-15T09:30:00+03:00), a real date in ${MIN_YEAR}–${MAX_YEAR}`;

export function addDays(ymd: string, days: number): string {
  const d = new Date(`${ymd}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Same day n months later, clamped to the month's last day (31 Jan + 1 month → 28/29 Feb). */
export function addMonths(ymd: string, months: number): string {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d, last));
  return first.toISOString().slice(0, 10);
}

/**
 * Annual cover: one year less a day (2026-03-01 → 2027-02-28). A cover starting on 29 February ends on 28 February
 * of the next year (the day before its anniversary, 1 March).
 */
export function annualEnd(start: string): string {
  if (start.endsWith('-02-29')) return `${Number(start.slice(0, 4)) + 1}-02-28`;
  return addDays(addMonths(start, 12), -1);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The later of two Y-m-d dates (they compare as strings). */
export const laterYmd = (a: string, b: string): string => (a > b ? a : b);

export const toDbDate = (ymd: string): Date => new Date(`${ymd}T00:00:00Z`);
/**
 * Y-m-d of a date column's value (a UTC midnight), by its day from a bounded table: a page of records names the same
 * few dates (periods, due dates) hundreds of times, and `toISOString` costs ~330–500 ns where a lookup costs ~30 (1.7 %
 * of a page of policies' node samples, 2026-12-03). utcYmd, below.
 */
export const fromDbDate = (d: Date): string => utcYmd(d);

/**
 * Instants as text without `toISOString` on every call: it costs ~500 ns a call on this project's machine (~800 with
 * the answer's JSON.stringify), and a page of clients or policies writes a few hundred timestamps (the DateTime
 * scalar: 2.3 % of a page of clients' node samples, 2026-12-04). The day is looked up by its number since the epoch
 * (a page's timestamps fall on a few days), made once by `toISOString` itself; the time of day is integer arithmetic
 * on the milliseconds. Both agree with `toISOString` for every instant in years 0000–9999 (test/dates.test.ts holds
 * them to it, and to hand-written strings); outside those years, and for an invalid Date (which throws, as
 * `toISOString` does), it is `toISOString`'s own answer.
 */
const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the instants `toISOString` writes with a four-digit year. */
const FIRST_MS = -62_167_219_200_000;
const END_MS = 253_402_300_800_000;
const dayText = new Map<number, string>();
const DAYS_KEPT = 10_000;

/** Y-m-d of the UTC day `day` (days since 1970-01-01), for a day in years 0000–9999. */
function utcDayText(day: number): string {
  let text = dayText.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayText.size >= DAYS_KEPT) dayText.clear();
    dayText.set(day, text);
  }
  return text;
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** `HH:MM:SS` of `ms` milliseconds into a day, and `.mmm` when `millis`. */
function timeOfDay(ms: number, millis: boolean): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const hms = `${two(h)}:${two(m)}:${two(s)}`;
  if (!millis) return hms;
  const f = ms % 1000;
  return `${hms}.${f < 10 ? '00' : f < 100 ? '0' : ''}${f}`;
}

/** `d.toISOString()`, e.g. 2026-11-25T12:57:45.123Z (see above). */
export function isoInstant(d: Date): string {
  const t = d.getTime();
  if (!(t >= FIRST_MS && t < END_MS)) return d.toISOString();
  const day = Math.floor(t / DAY_MS);
  return `${utcDayText(day)}T${timeOfDay(t - day * DAY_MS, true)}Z`;
}

/** `d.toISOString().slice(0, 10)`: the UTC day of an instant, Y-m-d. */
export const utcYmd = (d: Date): string => ymdAt(d.getTime());

/** The UTC day of the instant `t` milliseconds after the epoch, as `new Date(t).toISOString().slice(0, 10)`. */
function ymdAt(t: number): string {
  if (!(t >= FIRST_MS && t < END_MS)) return new Date(t).toISOString().slice(0, 10);
  return utcDayText(Math.floor(t / DAY_MS));
}

/** An instant as ISO 8601 on the Nairobi clock, e.g. 2026-11-25T15:57:45+03:00. */
export function nairobiIso(d: Date): string {
  const t = d.getTime() + NAIROBI_OFFSET_MS;
  if (!(t >= FIRST_MS && t < END_MS)) return `${new Date(t).toISOString().slice(0, 19)}+03:00`;
  const day = Math.floor(t / DAY_MS);
  return `${utcDayText(day)}T${timeOfDay(t - day * DAY_MS, false)}+03:00`;
}
