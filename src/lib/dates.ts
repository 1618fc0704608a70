/** Calendar dates as Y-m-d strings in the Africa/Nairobi calendar (UTC+3, no DST). */
const nairobi = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Nairobi', year: 'numeric', month: '2-digit', day: '2-digit' });

export function todayNairobi(now: Date = new Date()): string {
  return nairobi.format(now);
}

export function isYmd(s: unknown): s is string {
  return typeof s === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(s) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
}

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

export const toDbDate = (ymd: string): Date => new Date(`${ymd}T00:00:00Z`);
export const fromDbDate = (d: Date): string => d.toISOString().slice(0, 10);

/** An instant as ISO 8601 on the Nairobi clock, e.g. 2026-11-25T15:57:45+03:00. */
export function nairobiIso(d: Date): string {
  return `${new Date(d.getTime() + 3 * 3600_000).toISOString().slice(0, 19)}+03:00`;
}
