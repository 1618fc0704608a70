import { type Context, runAfterCommit } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { AppError } from '../lib/problem.ts';

export const IDEMPOTENCY_KEY_MAX = 255;

export function checkIdempotencyKey(raw: string | string[] | undefined): string {
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined)
    throw new AppError('idempotency_key_required', {
      detail: 'This write needs an Idempotency-Key header (e.g. a UUID)',
    });
  if (key.trim() === '' || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('idempotency_key_invalid', {
      detail: `Idempotency-Key must be 1–${IDEMPOTENCY_KEY_MAX} visible ASCII characters`,
    });
  }
  return key;
}

export interface StoredResponse {
  status: number;
  bodyText: string;
  replayed: boolean;
}

type IdempotencyOpts = { key: string; requestHash: string; operation: string; redact?: (body: unknown) => unknown };
type Run = () => Promise<{ status: number; body: unknown }>;

/**
 * Exactly-once for a write: the key is locked (transaction-scoped advisory lock on API client + key), so concurrent
 * retries queue behind the first; the business write runs in that same transaction (the context's ambient
 * transaction) and its response is stored before commit. Later requests with the key replay the stored bytes.
 * A failed write (any problem document) rolls back everything, stores nothing, and may be retried with the key.
 *
 * `outsideTransaction`: for an operation that calls an outside rail (the certificate registry), which must not run
 * inside a transaction (docs/architecture.md "The rail rule"). The stored answer is checked under the lock, the operation runs with
 * no transaction open, and its answer is stored under the lock again: a twin that ran meanwhile finds the first
 * stored answer and replays it. Such operations are exactly-once by their own state (a claimed or cancelled row is
 * not acted on twice), so a twin running concurrently changes nothing.
 */
export async function withIdempotency(
  ctx: Context,
  opts: IdempotencyOpts & { outsideTransaction?: boolean },
  run: Run,
): Promise<StoredResponse> {
  if (opts.outsideTransaction) return outsideTransaction(ctx, opts, run);
  const p = ctx.principal!;
  const { db } = ctx.app;
  ctx.pendingAfterCommit = undefined;
  const stored = await db
    .tenant(
      p.tenant.id,
      async (tx) => {
        const prior = await lockAndFind(ctx, tx, opts);
        if (prior) return prior;
        ctx.ambientTx = tx;
        let out: { status: number; body: unknown };
        try {
          out = await run();
        } finally {
          ctx.ambientTx = undefined;
        }
        return store(ctx, tx, opts, out);
      },
      { timeout: 60_000, maxWait: 30_000 },
    )
    .catch((err) => {
      // Rolled back: nothing it deferred may run.
      ctx.pendingAfterCommit = undefined;
      throw err;
    });
  await runAfterCommit(ctx);
  return stored;
}

async function outsideTransaction(ctx: Context, opts: IdempotencyOpts, run: Run): Promise<StoredResponse> {
  const tenantId = ctx.principal!.tenant.id;
  const prior = await ctx.app.db.tenant(tenantId, (tx) => lockAndFind(ctx, tx, opts));
  if (prior) return prior;
  const out = await run();
  return ctx.app.db.tenant(tenantId, async (tx) => (await lockAndFind(ctx, tx, opts)) ?? store(ctx, tx, opts, out));
}

/**
 * Takes the key's lock and answers the stored response, if any (refusing it for a different request): one round trip,
 * the lock then the read in the database function app_idempotency_lock_and_find (its migration says why the read there
 * sees a twin's answer committed while this call waited).
 */
async function lockAndFind(ctx: Context, tx: Tx, opts: IdempotencyOpts): Promise<StoredResponse | null> {
  const p = ctx.principal!;
  const [found] = await tx.$queryRaw<
    {
      id: bigint;
      request_hash: string;
      operation: string;
      response_status: number;
      response_body: string;
      expires_at: Date;
    }[]
  >`SELECT * FROM app_idempotency_lock_and_find(${p.apiClient.id}::int, ${opts.key}::text)`;
  const prior = found && {
    id: found.id,
    requestHash: found.request_hash,
    operation: found.operation,
    responseStatus: found.response_status,
    responseBody: found.response_body,
    expiresAt: found.expires_at,
  };
  if (prior && prior.expiresAt.getTime() > Date.now()) {
    if (prior.requestHash !== opts.requestHash) {
      throw new AppError('idempotency_key_reused', {
        detail: `Idempotency-Key was first used for a different request (${prior.operation}); use a new key for a new request`,
      });
    }
    return { status: prior.responseStatus, bodyText: prior.responseBody, replayed: true };
  }
  if (prior) await tx.idempotencyKey.delete({ where: { id: prior.id } });
  return null;
}

async function store(
  ctx: Context,
  tx: Tx,
  opts: IdempotencyOpts,
  out: { status: number; body: unknown },
): Promise<StoredResponse> {
  const p = ctx.principal!;
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
      expiresAt: new Date(Date.now() + ctx.app.config.idempotencyTtlHours * 3_600_000),
    },
  });
  return { status: out.status, bodyText, replayed: false };
}
