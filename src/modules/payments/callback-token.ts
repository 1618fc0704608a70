import { createHmac } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { requireAbility } from '../../auth/principal.ts';
import type { AppServices, Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { Config } from '../../lib/config.ts';
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { masterKey } from '../../lib/secret-box.ts';

/**
 * The organisation's M-Pesa callback token: the last path segment of the CallBackURL given to the rail. It is
 * derived (HMAC-SHA256 of the master key over the organisation and the channel's generation), so it is stored
 * nowhere: the channel row keeps only its SHA-256, for lookup. Rotation bumps the generation; the previous token is
 * honoured for MPESA_CALLBACK_TOKEN_GRACE_SECONDS because prompts already sent carry it. A callback is a hint in any
 * case (confirm.service.ts): the token keeps strangers from filling the callback table, it does not make a callback
 * true.
 */
export const CALLBACK_TOKEN_PATTERN = /^mcb_[A-Za-z0-9_-]{20,100}$/;

export function deriveCallbackToken(
  config: Pick<Config, 'secretsKey' | 'dataDir'>,
  tenantId: number,
  generation: number,
): string {
  const mac = createHmac('sha256', masterKey(config))
    .update(`mpesa-callback:${tenantId}:${generation}`)
    .digest('base64url');
  return `mcb_${mac}`;
}

/** The token the next prompt carries; creates the channel (generation 1) on first use and fills a missing hash. */
export async function currentCallbackToken(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  shortcode: string,
): Promise<string> {
  // The organisation's channel row, made on its first push (every later push finds it with one statement).
  let ch = await tx.mpesaChannel.findUnique({ where: { tenantId } });
  if (!ch) {
    await tx.$executeRaw`
      INSERT INTO mpesa_channels (tenant_id, shortcode) VALUES (${tenantId}, ${shortcode}) ON CONFLICT (tenant_id) DO NOTHING`;
    ch = await tx.mpesaChannel.findUniqueOrThrow({ where: { tenantId } });
  }
  const token = deriveCallbackToken(app.config, tenantId, ch.generation);
  if (ch.callbackTokenHash !== sha256Hex(token)) {
    await tx.mpesaChannel.update({ where: { tenantId }, data: { callbackTokenHash: sha256Hex(token) } });
  }
  return token;
}

/**
 * The organisation a callback token belongs to (the current token, or the previous one within its grace), or null.
 * The lookup is by SHA-256 of the token (an index probe reveals nothing about the stored hash); the final comparison
 * is constant-time.
 */
export async function tenantForCallbackToken(app: AppServices, token: string): Promise<number | null> {
  if (!CALLBACK_TOKEN_PATTERN.test(token)) return null;
  const hash = sha256Hex(token);
  const row = await app.db.system((tx) =>
    tx.mpesaChannel.findFirst({ where: { OR: [{ callbackTokenHash: hash }, { previousTokenHash: hash }] } }),
  );
  if (!row) return null;
  if (row.callbackTokenHash && constantTimeEqual(row.callbackTokenHash, hash)) return row.tenantId;
  const previousLive = row.previousValidUntil != null && row.previousValidUntil.getTime() > Date.now();
  return previousLive && row.previousTokenHash && constantTimeEqual(row.previousTokenHash, hash) ? row.tenantId : null;
}

/** Rotates the caller's callback token: new prompts carry the next generation; the old one lapses after the grace. */
export async function rotateCallbackToken(ctx: Context) {
  const p: Principal = ctx.principal!;
  requireAbility(p, 'api_clients.manage');
  const graceMs = ctx.app.config.mpesaCallbackTokenGraceSeconds * 1000;
  return ctx.tx(async (tx) => {
    await currentCallbackToken(ctx.app, tx, p.tenant.id, p.tenant.paybill);
    const ch = await tx.mpesaChannel.findUniqueOrThrow({ where: { tenantId: p.tenant.id } });
    const now = new Date();
    const generation = ch.generation + 1;
    const updated = await tx.mpesaChannel.update({
      where: { tenantId: p.tenant.id },
      data: {
        generation,
        callbackTokenHash: sha256Hex(deriveCallbackToken(ctx.app.config, p.tenant.id, generation)),
        previousTokenHash: ch.callbackTokenHash,
        previousValidUntil: new Date(now.getTime() + graceMs),
        rotatedAt: now,
      },
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'mpesa_callback_token.rotated',
      entityType: 'mpesa_channel',
      entityId: String(p.tenant.id),
      changes: { generation, previous_valid_until: updated.previousValidUntil!.toISOString() },
    });
    return updated;
  });
}
