import { inspect } from 'node:util';

export interface WaitOptions {
  /** How long before giving up (default 20 s). */
  ms?: number;
  /** Pause between probes (default 25 ms: a probe is one small query, and waiting longer only slows the suite). */
  every?: number;
}

/**
 * Probes until `until` accepts what `probe` returns, and returns that. Past the deadline it fails, naming `what` and
 * the last value seen: a wait never passes by running out of time, and never sleeps a fixed time instead of looking.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  until: (value: T) => boolean,
  { ms = 20_000, every = 25 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (until(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`gave up after ${ms} ms waiting for ${what}; last seen: ${inspect(value, { depth: 4 })}`);
    await new Promise((res) => setTimeout(res, every));
  }
}
