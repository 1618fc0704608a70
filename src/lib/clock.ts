import { AsyncSlot } from './async-slot.ts';

/**
 * The service's notion of "now" for business dates: what day it is in Nairobi when a cover starts, a lifecycle run
 * judges, a renewal window opens, a vehicle's age is counted or a certificate stage is due (`todayNairobi()` in
 * dates.ts reads it). It is the system clock, except under NODE_ENV=test, where a test may set it: in-process with
 * `setTestClock`, and for a server started as a child process with TEST_CLOCK=<ISO instant> (loadConfig refuses
 * TEST_CLOCK outside NODE_ENV=test, as FAULT_POINTS is refused in production).
 *
 * A set clock runs on from the instant it was set to, so timestamps keep their order and durations stay real; a
 * frozen one (`frozen: true`, or TEST_CLOCK=<instant>/frozen) stands still, for a test at an exact instant such as
 * the Nairobi midnight. Instants that are not business dates (token expiry, rate-limit windows, retries) stay on the
 * system clock.
 *
 * A sandbox organisation has a clock of its own (docs/operations.md "Sandbox clock"): the service clock plus the
 * organisation's offset. `now()` reads it from the organisation clock scope of the work in hand: a request's scope
 * is opened by the HTTP server and bound to the caller's organisation when its context is made (src/context.ts); a
 * unit of work on one organisation's data runs in that organisation's scope (Database.tenant); the daily jobs run
 * each organisation on its own day (src/db/org-clocks.ts). Outside any scope it is the service clock.
 */

let offsetMs = 0;
let frozenAt: number | null = null;

/** Whose clock the work in hand runs on: an organisation (null: none in particular) and its offset. */
export interface OrgClockScope {
  tenantId: number | null;
  offsetMs: number;
}

const scopes = new AsyncSlot<OrgClockScope>();

/** Now, on the service's clock, as the organisation of the work in hand sees it. */
export function now(): Date {
  return new Date((frozenAt ?? Date.now() + offsetMs) + (scopes.getStore()?.offsetMs ?? 0));
}

/** Now on the service clock itself, whatever organisation's work is in hand (a sandbox clock's own arithmetic). */
export function serviceNow(): Date {
  return new Date(frozenAt ?? Date.now() + offsetMs);
}

/** The organisation clock scope of the work in hand, if any. */
export function clockScope(): OrgClockScope | undefined {
  return scopes.getStore();
}

/** Runs `fn` on an organisation's clock (`offsetMs` ahead of the service clock). */
export function withOrgClock<T>(tenantId: number | null, offset: number, fn: () => T): T {
  return scopes.run({ tenantId, offsetMs: offset }, fn);
}

/**
 * Opens a scope not yet bound to an organisation, for a request: the HTTP server opens one per request before it
 * knows the caller, and bindOrgClock (from createContext) binds it once the caller's organisation is known, for
 * everything the request does after that.
 */
export function openClockScope<T>(fn: () => T): T {
  return scopes.run({ tenantId: null, offsetMs: 0 }, fn);
}

/**
 * Binds the open request scope to the caller's organisation and its clock. A no-op outside a scope, and in one
 * already bound (a sandbox advance stepping through its days keeps the day it set).
 */
export function bindOrgClock(tenantId: number, offset: number): void {
  const s = scopes.getStore();
  if (!s || s.tenantId !== null) return;
  s.tenantId = tenantId;
  s.offsetMs = offset;
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
