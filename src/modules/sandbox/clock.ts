import { addDays, todayNairobi } from '../../lib/dates.ts';

/**
 * The rules of a sandbox organisation's clock (docs/operations.md "Sandbox clock"), pure:
 * - the clock runs `offsetMs` ahead of the service clock, on in real time, and moves only forward;
 * - an advance goes at most `maxAdvanceDays` ahead of where the clock stands, to an instant at least a minute on;
 * - a day's daily jobs (policy lifecycle, claim service levels, prospect follow-ups, premium finance) run when the
 *   clock passes `dailyRunTime` on that day, Nairobi time, as the scheduled jobs run just after midnight.
 */
export const SANDBOX_RULES = {
  maxAdvanceDays: 731,
  minAdvanceMs: 60_000,
  dailyRunTime: '00:30',
} as const;

/** The instant a Nairobi day's daily jobs run on a sandbox clock. */
export function dailyRunAt(ymd: string): Date {
  return new Date(`${ymd}T${SANDBOX_RULES.dailyRunTime}:00+03:00`);
}

/**
 * The days whose daily jobs an advance runs, oldest first: from the day after `lastDay` (or, for a new advance, the
 * day the clock stood on, whose run may not have happened yet: a rerun changes nothing) to the last day whose run
 * time the target reaches.
 */
export function daysToRun(from: Date, target: Date, lastDay: string | null): string[] {
  const first = lastDay ? addDays(lastDay, 1) : todayNairobi(from);
  let last = todayNairobi(target);
  if (target < dailyRunAt(last)) last = addDays(last, -1);
  const days: string[] = [];
  for (let d = first; d <= last; d = addDays(d, 1)) days.push(d);
  return days;
}

/** Why a requested target is refused, or null: not ahead of the clock, too close, or too far. */
export function targetProblem(clockNow: Date, target: Date): string | null {
  const ahead = target.getTime() - clockNow.getTime();
  if (ahead < SANDBOX_RULES.minAdvanceMs)
    return `must be at least a minute after the clock's now (${clockNow.toISOString()}): a clock only moves forward`;
  // Negated so that a target beyond any date (NaN: days given as 1e9) is refused as too far, not let through.
  if (!(ahead <= SANDBOX_RULES.maxAdvanceDays * 86_400_000))
    return `must be at most ${SANDBOX_RULES.maxAdvanceDays} days after the clock's now; advance again from there`;
  return null;
}
