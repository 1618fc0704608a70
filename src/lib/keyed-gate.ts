/**
 * A counting semaphore with a share per key (an organisation) under an optional total: at most `perKey` holders of
 * one key and `total` in all. A caller over its key's share waits in line behind its own key only, so one key's
 * queue never stands in front of another's; waiters are served first come, first served among those whose key has
 * room. A wait longer than `waitMs` (0: no bound) is refused with the error `refuse()` makes, and nothing has run.
 */
export class KeyedGate<K = number> {
  readonly #held = new Map<K, number>();
  #total = 0;
  readonly #waiting: { key: K; start: () => void }[] = [];

  constructor(
    readonly perKey: number,
    readonly total = Number.POSITIVE_INFINITY,
  ) {
    if (!(perKey >= 1)) throw new Error(`a gate needs a share of at least 1, got ${perKey}`);
  }

  /** Holders of `key` now (tests and metrics). */
  heldBy(key: K): number {
    return this.#held.get(key) ?? 0;
  }

  async run<T>(key: K, fn: () => Promise<T>, waitMs: number, refuse: () => Error): Promise<T> {
    if (this.#hasRoom(key)) this.#take(key);
    else await this.#wait(key, waitMs, refuse);
    try {
      return await fn();
    } finally {
      this.#release(key);
    }
  }

  #hasRoom(key: K): boolean {
    return this.#total < this.total && this.heldBy(key) < this.perKey;
  }

  #take(key: K): void {
    this.#held.set(key, this.heldBy(key) + 1);
    this.#total++;
  }

  #wait(key: K, waitMs: number, refuse: () => Error): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        key,
        start: () => {
          if (timer) clearTimeout(timer);
          resolve();
        },
      };
      const timer =
        waitMs > 0
          ? setTimeout(() => {
              const i = this.#waiting.indexOf(entry);
              if (i >= 0) this.#waiting.splice(i, 1);
              reject(refuse());
            }, waitMs)
          : undefined;
      this.#waiting.push(entry);
    });
  }

  #release(key: K): void {
    const left = this.heldBy(key) - 1;
    if (left > 0) this.#held.set(key, left);
    else this.#held.delete(key);
    this.#total--;
    // The first waiter whose key now has room: the slot is handed over before anyone else can take it.
    const i = this.#waiting.findIndex((w) => this.#hasRoom(w.key));
    if (i < 0) return;
    const [next] = this.#waiting.splice(i, 1);
    this.#take(next.key);
    next.start();
  }
}
