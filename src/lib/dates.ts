import { now as clockNow } from './clock.ts';

/** Calendar dates as Y-m-d strings in the Africa/Nairobi calendar: UTC+3 all year (no DST since 1942). */
const NAIROBI_OFFSET_MS = 3 * 3_600_000;

/**
 * The Nairobi calendar day of an instant; by default of now on the service's clock (src/lib/clock.ts). Plain
 * arithmetic on the fixed offset: an Intl formatter with the time zone gives the same day (test/clock.test.ts checks
 * the two agree) at many times the cost, and every quote asks.
 */
export function todayNairobi(now: Date = clockNow()): string {
  return new Date(now.getTime() + NAIROBI_OFFSET_MS).toISOString().slice(0, 10);
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
 * Y-m-d of a date column's value, by its time value from a bounded table: a page of records names the same few dates
 * (periods, due dates) hundreds of times, and `toISOString` costs ~330 ns where a lookup costs ~30 (1.7 % of a page
 * of policies' node samples, 2026-12-03).
 */
const ymdByTime = new Map<number, string>();
const YMD_KEPT = 10_000;

export const fromDbDate = (d: Date): string => {
  const t = d.getTime();
  let ymd = ymdByTime.get(t);
  if (ymd === undefined) {
    ymd = d.toISOString().slice(0, 10);
    if (ymdByTime.size >= YMD_KEPT) ymdByTime.clear();
    ymdByTime.set(t, ymd);
  }
  return ymd;
};

/** An instant as ISO 8601 on the Nairobi clock, e.g. 2026-11-25T15:57:45+03:00. */
export function nairobiIso(d: Date): string {
  return `${new Date(d.getTime() + 3 * 3600_000).toISOString().slice(0, 19)}+03:00`;
}
