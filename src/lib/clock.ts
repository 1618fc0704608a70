/**
 * The service's notion of "now" for business dates: what day it is in Nairobi when a cover starts, a lifecycle run
 * judges, a renewal window opens, a vehicle's age is counted or a certificate stage is due (`todayNairobi()` in
 * dates.ts reads it). It is the system clock, except under NODE_ENV=test, where a test may set it: in-process with
 * `setTestClock`, and for a server started as a child process with TEST_CLOCK=<ISO instant> (loadConfig refuses
 * TEST_CLOCK outside NODE_ENV=test, as FAULT_POINTS is refused in production).
 *
 * A set clock runs on from the instant it was set to, so timestamps keep their order and durations stay real; a
 * frozen one (`frozen: true`, or TEST_CLOCK=<instant>/frozen) stands still, for a test at an exact instant such as
 * the Nairobi midnight. Instants that are not business dates (token expiry, rate-limit windows, preview validity in
 * hours, retries) stay on the system clock.
 */

let offsetMs = 0;
let frozenAt: number | null = null;

/** Now, on the service's clock. */
export function now(): Date {
  return new Date(frozenAt ?? Date.now() + offsetMs);
}

export interface TestClockSetting {
  at: Date;
  frozen: boolean;
}

/** Parses TEST_CLOCK: an ISO 8601 instant with its offset, optionally followed by `/frozen`. */
export function parseTestClock(raw: string): TestClockSetting {
  const m = /^(.+?)(\/frozen)?$/.exec(raw.trim());
  const at = new Date(m?.[1] ?? '');
  if (
    !m ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(m[1]) ||
    Number.isNaN(at.getTime())
  )
    throw new Error(
      `TEST_CLOCK must be an ISO 8601 instant with its offset (e.g. 2027-05-12T09:00:00+03:00), optionally followed by /frozen; got ${JSON.stringify(raw)}`,
    );
  return { at, frozen: !!m[2] };
}

function testOnly(what: string): void {
  if (process.env.NODE_ENV !== 'test')
    throw new Error(`${what} is a test harness setting, refused outside NODE_ENV=test`);
}

/** Sets the clock to `at` (test mode only): running on from there, or standing still with `frozen`. */
export function setTestClock(at: Date | string, opts: { frozen?: boolean } = {}): void {
  testOnly('setTestClock');
  const ms = (typeof at === 'string' ? parseTestClock(at).at : at).getTime();
  if (Number.isNaN(ms)) throw new Error('setTestClock: not a valid instant');
  frozenAt = opts.frozen ? ms : null;
  offsetMs = opts.frozen ? 0 : ms - Date.now();
}

/** Back to the system clock. */
export function resetClock(): void {
  frozenAt = null;
  offsetMs = 0;
}
