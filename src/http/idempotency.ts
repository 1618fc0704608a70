import { type Context, runAfterCommit } from '../context.ts';
import { AppError } from '../lib/problem.ts';

export const IDEMPOTENCY_KEY_MAX = 255;

export function checkIdempotencyKey(raw: string | string[] | undefined): string {
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined) throw new AppError('idempotency_key_required', { detail: 'This write needs an Idempotency-Key header (e.g. a UUID)' });
  if (key.trim() === '' || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('idempotency_key_invalid', { detail: `Idempotency-Key must be 1–${IDEMPOTENCY_KEY_MAX} visible ASCII characters` });
  }
  return key;
}

export interface StoredResponse {
  status: number;
  bodyText: string;
  replayed: boolean;
}

/**
 * Exactly-once for a write: the key is locked (transaction-scoped advisory lock on API client + key), so concurrent
 * retries queue behind the first; the business write runs in that same transaction (the context's ambient
 * transaction) and its response is stored before commit. Later requests with the key replay the stored bytes.
 * A failed write (any problem document) rolls back everything, stores nothing, and may be retried with the key.
 */
export async function withIdempotency(
  ctx: Context,
  opts: { key: string; requestHash: string; operation: string; redact?: (body: any) => unknown },
  run: () => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const p = ctx.principal!;
  const { db, config } = ctx.app;
  ctx.pendingAfterCommit = undefined;
  const stored = await db.tenant(
    p.tenant.id,
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${p.apiClient.id}::int, hashtext(${opts.key}))`;
      const prior = await tx.idempotencyKey.findUnique({ where: { apiClientId_key: { apiClientId: p.apiClient.id, key: opts.key } } });
      if (prior && prior.expiresAt.getTime() > Date.now()) {
        if (prior.requestHash !== opts.requestHash) {
          throw new AppError('idempotency_key_reused', {
            detail: `Idempotency-Key was first used for a different request (${prior.operation}); use a new key for a new request`,
          });
        }
        return { status: prior.responseStatus, bodyText: prior.responseBody, replayed: true };
      }
      if (prior) await tx.idempotencyKey.delete({ where: { id: prior.id } });
      ctx.ambientTx = tx;
      let out: { status: number; body: unknown };
      try {
        out = await run();
      } finally {
        ctx.ambientTx = undefined;
      }
      const bodyText = JSON.stringify(out.body);
      await tx.idempotencyKey.create({
        data: {
          tenantId: p.tenant.id,
          apiClientId: p.apiClient.id,
          key: opts.key,
          requestHash: opts.requestHash,
          operation: opts.operation,
          responseStatus: out.status,
          responseBody: opts.redact ? JSON.stringify(opts.redact(out.body)) : bodyText,
          expiresAt: new Date(Date.now() + config.idempotencyTtlHours * 3_600_000),
        },
      });
      return { status: out.status, bodyText, replayed: false };
    },
    { timeout: 60_000, maxWait: 30_000 },
  ).catch((err) => {
    // Rolled back: nothing it deferred may run.
    ctx.pendingAfterCommit = undefined;
    throw err;
  });
  await runAfterCommit(ctx);
  return stored;
}
