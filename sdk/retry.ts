/**
 * Retries of 429 (rate limited) and 503 (a rail or the service busy): the same request again, after the server's
 * `Retry-After` (seconds or an HTTP date) or, without one, after 1 s, 2 s, 4 s …; a bounded number of times. A write
 * is sent again with the same headers, so with the same Idempotency-Key: the server replays it rather than acting
 * twice.
 */

export interface RetryOptions {
  /** Further attempts after a 429 or 503 (default 3; 0 turns retries off). */
  retries?: number;
  /** The longest wait accepted: a `Retry-After` beyond it is handed to the caller instead (default 60 s). */
  maxRetryDelayMs?: number;
  /** How to wait (default a timer): a scheduler or a test may observe or replace it. */
  sleep?: (ms: number) => Promise<void>;
  /** The time in milliseconds since the epoch (default `Date.now`): an HTTP-date `Retry-After` is measured from it. */
  now?: () => number;
}

const RETRIED = new Set([429, 503]);

/** Milliseconds to wait as `Retry-After` says (delta seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fetch that sends a request again on 429 or 503, as RetryOptions say. */
export function retrying(
  fetchImpl: (request: Request) => Promise<Response>,
  o: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = o.retries ?? 3;
  const maxDelay = o.maxRetryDelayMs ?? 60_000;
  const sleep = o.sleep ?? timer;
  const now = o.now ?? Date.now;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await fetchImpl(request.clone());
      if (!RETRIED.has(response.status) || attempt >= retries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'), now()) ?? 1000 * 2 ** attempt;
      if (wait > maxDelay) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
