import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { newSecret, sha256Hex } from '../../../lib/crypto.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { otpMatches, OTP_RULES } from '../../sms/otp-code.ts';
import type { OtpPurpose } from './request.ts';

export type CodeCheck = { ok: true; otpId: number; clientId: number | null } | { ok: false };

/**
 * Every refusal of a well-formed code reads exactly the same (docs/client-area.md "Sign-in"): a wrong code, an
 * expired, used-up or superseded one, a phone or client number nobody asked a code for, or one that is no client's.
 * Saying which (or how many attempts are left) would tell a caller whether the number named is a client's.
 */
export const CODE_REFUSED = 'wrong code, or no live code for these details; check it or request a new one';

/** Every one-time-code failure reads the same way: 422 validation_failed with the reason on `otp`. */
export function otpFailure(reason: string = CODE_REFUSED): ValidationError {
  return new ValidationError([{ field: 'otp', message: reason }]);
}

/** A code as typed: six digits (anything else is refused without spending an attempt). */
export function parseCode(code: unknown): string {
  const c = typeof code === 'string' ? code.trim() : '';
  if (!new RegExp(`^\\d{${OTP_RULES.digits}}$`).test(c)) throw otpFailure(`${OTP_RULES.digits} digits`);
  return c;
}

/**
 * Checks `code` against the phone's newest live code for `purpose` that was sent (a row the job held back or that is
 * still waiting for it is no code: the handset's earlier one stays live), under a row lock so concurrent guesses are
 * counted one by one. A wrong code spends an attempt of that code, whichever way the caller named the client (phone
 * or client number: both check the handset's code); the caller commits that and then refuses. The right one is
 * consumed. Expired, exhausted, superseded and never-requested codes are refused whatever is typed.
 */
export async function checkCode(
  ctx: Context,
  tx: Tx,
  q: { phone: string; purpose: OtpPurpose; code: string },
): Promise<CodeCheck> {
  const [latest] = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM client_otps WHERE phone = ${q.phone} AND purpose = ${q.purpose} AND consumed_at IS NULL
       AND sms_message_id IS NOT NULL
     ORDER BY id DESC LIMIT 1 FOR UPDATE`;
  if (!latest) return { ok: false };
  const otp = await tx.clientOtp.findUniqueOrThrow({ where: { id: latest.id } });
  const now = clockNow();
  if (otp.expiresAt <= now || otp.attempts >= OTP_RULES.maxAttempts) return { ok: false };
  if (!otpMatches(ctx.app.config, otp.uuid, q.code, otp.codeHash)) {
    await tx.clientOtp.update({ where: { id: otp.id }, data: { attempts: { increment: 1 } } });
    return { ok: false };
  }
  await tx.clientOtp.update({ where: { id: otp.id }, data: { consumedAt: now, attempts: { increment: 1 } } });
  return { ok: true, otpId: otp.id, clientId: otp.clientId };
}

/**
 * A new client-area sign-in: the client's earlier app keys are revoked and a new 256-bit key issued (shown once,
 * stored as SHA-256). Keys from policy saves are left alone: they are replaced only by a later policy save.
 */
export async function issueAppKey(
  ctx: Context,
  tx: Tx,
  client: { id: number; clientNo: string },
  how: 'verify_otp' | 'register',
): Promise<string> {
  const tenantId = ctx.principal!.tenant.id;
  const revoked = await tx.clientKey.updateMany({
    where: { clientId: client.id, kind: 'app', revokedAt: null },
    data: { revokedAt: new Date() },
  });
  const key = newSecret('cak');
  await tx.clientKey.create({ data: { tenantId, clientId: client.id, keyHash: sha256Hex(key), kind: 'app' } });
  await recordAudit(ctx, tx, tenantId, {
    action: 'client_area.signed_in',
    entityType: 'client',
    entityId: client.clientNo,
    changes: { via: how, app_keys_revoked: revoked.count },
  });
  return key;
}
