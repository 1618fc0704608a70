import type { SandboxClockFieldsFragment } from '../generated/operations.ts';

/** A sandbox clock in the facade's spelling (snake_case, timestamps as the core gives them). */
export function sandboxClockToRest(c: SandboxClockFieldsFragment) {
  const a = c.lastAdvance;
  return {
    now: c.now,
    today: c.today,
    status: c.status,
    advancing_to: c.advancingTo ?? null,
    ahead_seconds: c.aheadSeconds,
    last_advance: a
      ? {
          uuid: a.uuid,
          status: a.status,
          from: a.from,
          to: a.to,
          last_day: a.lastDay ?? null,
          days_run: a.daysRun,
          requested_by: a.requestedBy ?? null,
          requested_at: a.requestedAt,
          finished_at: a.finishedAt ?? null,
        }
      : null,
  };
}
