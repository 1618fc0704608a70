/**
 * Where the bytes of uploaded documents (claim documents first) are kept, behind one interface so a bucket can
 * replace the default later. Keys are opaque to callers: the store returns one from `put` and is given it back; a
 * key never holds anything the caller sent (no file name, no path).
 *
 * `T` is the caller's transaction (the Prisma transaction client in src/context.ts; the port names no database
 * type). The PostgreSQL store (`kind: 'postgres'`) takes part in it, so a rolled-back upload leaves nothing behind.
 * A store that cannot (`kind: 'filesystem'`) writes at once; the caller removes what it put when its transaction
 * fails (a failure after the caller's own work, at commit, can still leave an unreferenced file: harmless, unread).
 */
export interface DocumentStore<T = unknown> {
  readonly kind: 'postgres' | 'filesystem';
  put(tx: T, input: { tenantId: number; bytes: Uint8Array }): Promise<{ key: string }>;
  /** The bytes under `key`, or null when the store has none. */
  get(tx: T, key: string): Promise<Uint8Array | null>;
  /**
   * At most `length` bytes under `key` from byte `offset` (fewer at the end, none past it), or null when the store has
   * nothing under `key`: what a reader streams by, one short transaction per range, never the whole file at once.
   */
  read(tx: T, key: string, offset: number, length: number): Promise<Uint8Array | null>;
  /** `tx` null: cleaning up after the caller's transaction failed, which only a store outside it has to do. */
  remove(tx: T | null, key: string): Promise<void>;
}
