import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { AppError, isAppError } from '../../../lib/problem.ts';
import type { RateLimitRule } from '../../../lib/rate-limit.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { hashOtp, newOtpCode, OTP_RULES } from '../../sms/otp-code.ts';
import { requirePhoneForCodes } from '../../clients/client.service.ts';
import { smsService } from '../../sms/sms.service.ts';
import { assertIpfMove } from '../ipf-state.ts';
import { requireFinanceOffered } from '../offered.ts';
import { agreementFor, kes } from './agreement.ts';
import { type ApplicationRow, lockVisibleApplication, otpFailure, requireNotExpired } from './common.ts';

export interface SigningCodeSent {
  application: ApplicationRow;
  phone: string;
  expiresAt: Date;
  expiresInSeconds: number;
  resendAfterSeconds: number;
  agreementSha256: string;
}

const HOUR = 3600;
/** Codes per phone per hour, counted with the client area's sign-in codes (one allowance per handset). */
const PER_PHONE: RateLimitRule = { name: 'otp-phone', limit: OTP_RULES.perPhonePerHour, windowSeconds: HOUR };

/**
 * Sends the client the code that signs an approved application (docs/premium-finance.md "Premium finance: signing"). Renders the
 * agreement for today and stores it with its SHA-256; the code (OTP_RULES: 6 digits, 5 minutes, 5 attempts) is kept
 * only as an HMAC bound to the application's uuid and that hash, and goes by SMS (template `ipf_sign`, through the
 * outbox in the same transaction, where it is recorded masked and sealed for the gateway alone) to the client's
 * registered phone: staff can never read it. A new code replaces the previous one. One code
 * per application per cool-down (60 s), and at most OTP_RULES.perPhonePerHour codes per phone per hour: either
 * refusal is 422 validation_failed on `otp` with Retry-After, as the client area answers.
 */
export async function requestSigningCode(ctx: Context, uuid: string): Promise<SigningCodeSent> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  requireAbility(p, 'policies.create');
  const sent = await ctx.tx(async (tx) => {
    const a = await lockVisibleApplication(ctx, tx, uuid);
    assertIpfMove('application', a.status, 'signed');
    const now = clockNow();
    requireNotExpired(a, now);
    coolDown(a, now);
    const client = await tx.client.findUniqueOrThrow({ where: { id: a.clientId } });
    // Never a phone the organisation set less than PHONE_HOLD_HOURS ago (docs/premium-finance.md, signing).
    const phone = requirePhoneForCodes(client, now);
    await throttle(ctx, phone, 'peek');
    const agreement = await agreementFor(tx, a, todayNairobi(now));
    const code = newOtpCode();
    const expiresAt = new Date(now.getTime() + OTP_RULES.ttlSeconds * 1000);
    const row = await tx.ipfApplication.update({
      where: { id: a.id },
      data: {
        agreementText: agreement.text,
        agreementSha256: agreement.sha256,
        signingPhone: phone,
        signingCodeHash: hashOtp(ctx.app.config, signingBinding(a.uuid, agreement.sha256), code, 'ipf-sign'),
        signingCodeExpires: expiresAt,
        signingCodeSentAt: now,
        signingAttempts: 0,
      },
    });
    await sendCode(ctx, tx, row, code);
    await recordAudit(ctx, tx, a.tenantId, {
      action: 'ipf_application.signing_code_sent',
      entityType: 'ipf_application',
      entityId: a.applicationNo,
      changes: { agreement_sha256: agreement.sha256 },
    });
    return { application: row, phone, expiresAt, agreementSha256: agreement.sha256 };
  });
  await throttle(ctx, sent.phone, 'hit');
  return {
    ...sent,
    expiresInSeconds: OTP_RULES.ttlSeconds,
    resendAfterSeconds: OTP_RULES.resendCooldownSeconds,
  };
}

/** What the code's HMAC is bound to: this application and this very agreement text. */
export const signingBinding = (applicationUuid: string, agreementSha256: string) =>
  `${applicationUuid}:${agreementSha256}`;

/** The outbox message (queued for the gateway after commit); a refusal of the SMS service reads as an otp failure. */
async function sendCode(ctx: Context, tx: Tx, a: ApplicationRow, code: string): Promise<void> {
  const lender = await tx.ipfLender.findUniqueOrThrow({ where: { id: a.lenderId }, select: { name: true } });
  try {
    await smsService.sendServiceMessage(ctx, tx, {
      tenantId: a.tenantId,
      phone: a.signingPhone!,
      templateCode: 'ipf_sign',
      // The code for the gateway alone: the outbox shows it masked (docs/sms.md "One-time codes").
      secrets: { code },
      vars: {
        minutes: OTP_RULES.ttlSeconds / 60,
        application_no: a.applicationNo,
        lender: lender.name,
        total: kes(a.totalRepayableMinor),
      },
      purpose: 'ipf_sign',
      clientId: a.clientId,
    });
  } catch (err) {
    if (!isAppError(err) || err.code !== 'validation_failed') throw err;
    throw otpFailure(`the code could not be sent by SMS: ${err.detail}`);
  }
}

/** One code per application per cool-down, decided on the locked row (so two requests at once send one code). */
function coolDown(a: ApplicationRow, now: Date): void {
  if (!a.signingCodeSentAt) return;
  const waited = (now.getTime() - a.signingCodeSentAt.getTime()) / 1000;
  if (waited >= OTP_RULES.resendCooldownSeconds) return;
  refuse('a code was sent moments ago; wait before asking for another', OTP_RULES.resendCooldownSeconds - waited);
}

/** The per-phone hourly allowance: checked before anything is written, counted once the code is committed. */
async function throttle(ctx: Context, phone: string, mode: 'peek' | 'hit'): Promise<void> {
  // Hashed as the client area hashes it: one allowance per phone, never a phone number in the store.
  const key = `otp:phone:${ctx.principal!.tenant.id}:${sha256Hex(phone).slice(0, 32)}`;
  if (mode === 'hit') {
    await ctx.app.rateLimits.hit(PER_PHONE, key);
    return;
  }
  const d = await ctx.app.rateLimits.peek(PER_PHONE, key);
  if (!d.allowed) refuse(`at most ${OTP_RULES.perPhonePerHour} codes per phone per hour`, d.retryAfterSeconds);
}

/**
 * An AppError, not a ValidationError: it keeps its Retry-After header through the REST facade (a typed GraphQL
 * result would drop it), exactly as the client area's refusals do.
 */
function refuse(message: string, retryAfter: number): never {
  const seconds = Math.max(1, Math.ceil(retryAfter));
  throw new AppError('validation_failed', {
    detail: `otp: ${message}; retry after ${seconds} s`,
    errors: [{ field: 'otp', message: `${message}; retry after ${seconds} s` }],
    headers: { 'retry-after': String(seconds) },
  });
}
