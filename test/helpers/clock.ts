import { now, setTestClock } from '../../src/lib/clock.ts';

/**
 * The test clock. Every test file starts with the service's clock (src/lib/clock.ts) set to TEST_NOW by
 * test/setup/clock.ts, running on from there, so "today" is the same whenever and wherever the suite runs; no test
 * reads the wall clock for a business date. TEST_NOW is deliberately not the real date: a service path that still
 * read the system clock for a business date would show as a wrong date in some test.
 */

/** 09:00 in Nairobi on Monday 15 June 2026: far from the Nairobi midnight, a period that crosses no 29 February. */
export const TEST_NOW = '2026-06-15T06:00:00.000Z';
/** TEST_NOW's Nairobi calendar day, written out rather than computed by the code under test. */
export const TODAY = '2026-06-15';
export const THIS_YEAR = 2026;

/** Sets the service's clock (and every test date read after it) to `at`: frozen there by default. */
export function setClock(at: string | Date, opts: { frozen?: boolean } = { frozen: true }): void {
  setTestClock(at, opts);
}

/** Runs `fn` with the clock at `at` (frozen unless told otherwise), then lets it run on from where it was. */
export async function withClock<T>(
  at: string | Date,
  fn: () => Promise<T>,
  opts: { frozen?: boolean } = { frozen: true },
): Promise<T> {
  const wall = Date.now();
  const back = now().getTime();
  setTestClock(at, opts);
  try {
    return await fn();
  } finally {
    setTestClock(new Date(back + Date.now() - wall));
  }
}

/** TEST_CLOCK for a server started as a child process (NODE_ENV=test only): it shares this process's clock. */
export function childClockEnv(): { TEST_CLOCK: string } {
  return { TEST_CLOCK: now().toISOString() };
}
