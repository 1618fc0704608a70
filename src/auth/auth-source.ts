import type { Caches } from '../db/caches.ts';
import type { AuthRow } from '../db/client.ts';

/** Where authenticate() reads a bearer token's row from: the database itself, or the process's cache of it. */
export interface AuthSource {
  authLookup(tokenHash: string, agentCode: string | null): Promise<AuthRow | null>;
}

/**
 * Token rows from memory, for at most `ttlSeconds`, dropped in every process the moment anything they were built from
 * changes: a trigger NOTIFYs on any update of the token, its API client (revocation, rotation, scopes, limit), a
 * user of the organisation (an acting user or agent disabled, renamed, re-keyed) or the organisation itself (status,
 * type). Unknown tokens are not kept, so a flood of made-up tokens costs lookups, not memory. Judging a row (expiry,
 * revocation, the agent key) stays in authenticate() and runs on every request, cached row or not.
 */
export function cachedAuthSource(db: AuthSource, caches: Caches, ttlSeconds: number): AuthSource {
  if (ttlSeconds <= 0) return db;
  const cache = caches.define<string, AuthRow | null>('principals', ['principal'], {
    ttlMs: ttlSeconds * 1000,
    maxEntries: 10_000,
  });
  return {
    authLookup: (tokenHash, agentCode) =>
      cache.get(`${tokenHash}\u0000${agentCode ?? ''}`, async () => {
        const row = await db.authLookup(tokenHash, agentCode);
        return { value: row, scope: row ? row.tenant_id : null };
      }),
  };
}
