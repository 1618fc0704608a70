/**
 * Where the bytes of uploaded documents (claim documents first) are kept, behind one interface so a bucket can
 * replace the default later. Keys are opaque to callers: the store returns one from `put` and is given it back.
 * `put` inside a transaction (`tx`) must take part in it where the store can (PostgreSQL), so a rolled-back upload
 * leaves nothing behind; a store that cannot (files) writes first and is cleaned by `remove` on failure.
 */
export interface DocumentStore {
  readonly kind: 'postgres' | 'filesystem';
  put(
    tx: unknown,
    input: { tenantId: number; name: string; bytes: Uint8Array },
  ): Promise<{ key: string }>;
  get(tx: unknown, key: string): Promise<Uint8Array | null>;
  remove(tx: unknown, key: string): Promise<void>;
}
