/**
 * Retries: the same request sent again after a network error (the fetch threw: connection refused or reset, a lost
 * answer) or a 429 (rate limited) or 503 (a rail or the service busy), a bounded number of times, and only when
 * sending it twice cannot act twice:
 * - a read (GET, HEAD, OPTIONS), or
 * - a request carrying an `Idempotency-Key` (the client adds one to every operation that takes it): it is sent again
 *   with the same headers, so with the same key, and the service replays the first answer rather than acting twice.
 * A POST, PATCH, PUT or DELETE without a key (the token request included) is never sent again: its answer, or its
 * error, is the caller's.
 *
 * The wait: the server's `Retry-After` (seconds or an HTTP date) exactly, when it gives one; otherwise an exponential
 * backoff with full jitter, a random wait between 0 and 1 s, 2 s, 4 s … (capped at `maxRetryDelayMs`), so that clients
 * refused together do not come back together. A request the caller aborted is not retried.
 */

export interface RetryOptions {
  /** Further attempts after a network error, 429 or 503 (default 3; 0 turns retries off). */
  retries?: number;
  /** The backoff's first step without `Retry-After` (default 1000 ms: waits drawn from 0–1 s, 0–2 s, 0–4 s …). */
  retryBaseDelayMs?: number;
  /** The longest wait accepted: a `Retry-After` beyond it is handed to the caller instead (default 60 s). */
  maxRetryDelayMs?: number;
  /** How to wait (default a timer): a scheduler or a test may observe or replace it. */
  sleep?: (ms: number) => Promise<void>;
  /** The time in milliseconds since the epoch (default `Date.now`): an HTTP-date `Retry-After` is measured from it. */
  now?: () => number;
  /** A number in [0, 1) (default `Math.random`): the jitter's draw, replaceable to make waits predictable. */
  random?: () => number;
}

const RETRIED_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when sending `request` again cannot repeat an effect: a read, or a write carrying an Idempotency-Key. */
export function isSafeToRepeat(request: Request): boolean {
  return SAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has('idempotency-key');
}

/** Milliseconds to wait as `Retry-After` says (delta seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before retry number `attempt + 1` without `Retry-After`: full jitter over the capped exponential step. */
export function backoffMs(attempt: number, o: Pick<RetryOptions, 'retryBaseDelayMs' | 'maxRetryDelayMs' | 'random'>) {
  const step = Math.min(o.maxRetryDelayMs ?? 60_000, (o.retryBaseDelayMs ?? 1000) * 2 ** attempt);
  return Math.floor((o.random ?? Math.random)() * step);
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fetch that sends a request again after a network error, 429 or 503 when it is safe to, as RetryOptions say. */
export function retrying(
  fetchImpl: (request: Request) => Promise<Response>,
  o: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = o.retries ?? 3;
  const maxDelay = o.maxRetryDelayMs ?? 60_000;
  const sleep = o.sleep ?? timer;
  const now = o.now ?? Date.now;
  return async (request) => {
    const repeatable = isSafeToRepeat(request);
    for (let attempt = 0; ; attempt += 1) {
      const last = !repeatable || attempt >= retries;
      let response: Response;
      try {
        // A clone per attempt: the original's body stays unread for the next one.
        response = await fetchImpl(request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoffMs(attempt, o));
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'), now()) ?? backoffMs(attempt, o);
      if (wait > maxDelay) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
