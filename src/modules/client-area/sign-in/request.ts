import { randomUUID } from 'node:crypto';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { normaliseIdNo, normalisePhone } from '../../../lib/identifiers.ts';
import { AppError, type FieldError, ValidationError } from '../../../lib/problem.ts';
import type { RateLimitRule } from '../../../lib/rate-limit.ts';
import { smsService } from '../../sms/sms.service.ts';
import { hashOtp, newOtpCode, OTP_RULES } from '../../sms/otp-code.ts';

export type OtpPurpose = 'signin' | 'register';

export interface OtpRequestInput {
  phone?: string | null;
  clientNo?: string | null;
  idNo?: string | null;
  purpose?: string | null;
  /** The customer's address as the organisation's app saw it (its own address otherwise stands for every customer). */
  customerIp?: string | null;
}

export interface OtpRequested {
  message: string;
  expiresInSeconds: number;
  resendAfterSeconds: number;
}

/** The same answer whether or not the phone (or client number and ID number) belongs to a client. */
const ANSWER: OtpRequested = {
  message: 'If the details match, a one-time code has been sent by SMS to the registered phone',
  expiresInSeconds: OTP_RULES.ttlSeconds,
  resendAfterSeconds: OTP_RULES.resendCooldownSeconds,
};

interface Target {
  purpose: OtpPurpose;
  phone: string | null;
  clientNo: string | null;
  idNo: string | null;
}

function validate(input: OtpRequestInput): Target {
  const purpose = input.purpose ?? 'signin';
  const errors: FieldError[] = [];
  if (purpose !== 'signin' && purpose !== 'register') errors.push({ field: 'purpose', message: 'signin or register' });
  const phone = input.phone ? normalisePhone(input.phone) : null;
  if (input.phone && !phone) errors.push({ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' });
  const clientNo = input.clientNo?.trim().toUpperCase() || null;
  const idNo = input.idNo ? normaliseIdNo(input.idNo) : null;
  if (!input.phone) {
    if (purpose === 'register') errors.push({ field: 'phone', message: 'required to register' });
    else if (!clientNo || !input.idNo) {
      errors.push({ field: 'phone', message: 'send phone, or client_no with id_no' });
    } else if (!idNo) errors.push({ field: 'idNo', message: 'a national ID or passport number' });
  }
  if (errors.length) throw new ValidationError(errors);
  return { purpose: purpose as OtpPurpose, phone, clientNo, idNo };
}

/**
 * Sends a one-time code (docs/client-area.md "Client area"). Throttles come first and are keyed on what was sent, never on what
 * exists, so an unknown phone is refused and answered exactly like a known one; for an unknown phone a code row is
 * still written (never sent), so verifying against it reads "wrong code" as for a client. A new code supersedes the
 * phone's earlier ones for the same purpose.
 */
export async function requestOtp(ctx: Context, input: OtpRequestInput): Promise<OtpRequested> {
  const p = ctx.principal!;
  const target = validate(input);
  const ip = input.customerIp?.trim() || ctx.peerIp || `api-client:${p.apiClient.id}`;
  await throttle(ctx, target, ip);
  const issued = await ctx.tx(async (tx) => {
    const recipient = await recipientOf(tx, target);
    if (!recipient.phone) return null;
    return { ...(await storeCode(ctx, tx, target.purpose, recipient, ip)), recipient };
  });
  if (issued?.recipient.send) await sendCode(ctx, issued.otpId, issued.code, issued.recipient);
  return ANSWER;
}

interface Recipient {
  phone: string | null;
  clientId: number | null;
  /** Only a client's phone (sign-in) or the phone being registered gets an SMS. */
  send: boolean;
}

async function recipientOf(tx: Tx, t: Target): Promise<Recipient> {
  if (t.purpose === 'register') return { phone: t.phone, clientId: null, send: true };
  const client = t.phone
    ? await tx.client.findFirst({
        where: { phone: t.phone },
        orderBy: { id: 'asc' },
        select: { id: true, phone: true },
      })
    : await tx.client.findFirst({ where: { clientNo: t.clientNo!, idNo: t.idNo }, select: { id: true, phone: true } });
  if (client) return { phone: client.phone, clientId: client.id, send: true };
  return { phone: t.phone, clientId: null, send: false };
}

async function storeCode(ctx: Context, tx: Tx, purpose: OtpPurpose, r: Recipient, ip: string) {
  const now = clockNow();
  await tx.clientOtp.updateMany({
    where: { phone: r.phone!, purpose, consumedAt: null },
    data: { consumedAt: now },
  });
  const uuid = randomUUID();
  const code = newOtpCode();
  const row = await tx.clientOtp.create({
    data: {
      tenantId: ctx.principal!.tenant.id,
      uuid,
      phone: r.phone!,
      clientId: r.clientId,
      purpose,
      codeHash: hashOtp(ctx.app.config, uuid, code),
      expiresAt: new Date(now.getTime() + OTP_RULES.ttlSeconds * 1000),
      requestIp: ip,
    },
  });
  return { otpId: row.id, code };
}

/**
 * The SMS goes in its own transaction after the code is stored: a send the SMS service refuses (no balance) must not
 * change the answer (that would tell a client's phone from a stranger's); it is logged for the organisation instead.
 */
async function sendCode(ctx: Context, otpId: number, code: string, r: Recipient): Promise<void> {
  try {
    await ctx.tx(async (tx) => {
      const { messageId } = await smsService.sendServiceMessage(ctx, tx, {
        tenantId: ctx.principal!.tenant.id,
        phone: r.phone!,
        templateCode: 'otp',
        vars: { code, minutes: OTP_RULES.ttlSeconds / 60 },
        purpose: 'otp',
        clientId: r.clientId,
      });
      await tx.clientOtp.update({ where: { id: otpId }, data: { smsMessageId: messageId } });
    });
  } catch (err) {
    ctx.log.warn({ err, otp_id: otpId }, 'one-time code could not be sent by SMS');
  }
}

const HOUR = 3600;

/** Cool-down and hourly allowances per phone (or client number) and per address, per organisation. */
async function throttle(ctx: Context, t: Target, ip: string): Promise<void> {
  const tenant = ctx.principal!.tenant.id;
  // Hashed: the rate-limit store (possibly Redis) never holds phone numbers in the clear.
  const who = sha256Hex(t.phone ?? `client:${t.clientNo}`).slice(0, 32);
  const checks: { rule: RateLimitRule; key: string; message: string }[] = [
    {
      rule: { name: 'otp-resend', limit: 1, windowSeconds: OTP_RULES.resendCooldownSeconds },
      key: `otp:cool:${tenant}:${t.purpose}:${who}`,
      message: 'a code was sent moments ago; wait before asking for another',
    },
    {
      rule: { name: 'otp-phone', limit: OTP_RULES.perPhonePerHour, windowSeconds: HOUR },
      key: `otp:phone:${tenant}:${who}`,
      message: `at most ${OTP_RULES.perPhonePerHour} codes per phone per hour`,
    },
    {
      rule: { name: 'otp-ip', limit: OTP_RULES.perIpPerHour, windowSeconds: HOUR },
      key: `otp:ip:${tenant}:${sha256Hex(ip).slice(0, 32)}`,
      message: `at most ${OTP_RULES.perIpPerHour} codes per address per hour`,
    },
  ];
  for (const c of checks) {
    const d = await ctx.app.rateLimits.peek(c.rule, c.key);
    if (!d.allowed) {
      // The spec: every one-time-code failure is validation_failed on `otp`; Retry-After says when to ask again.
      throw new AppError('validation_failed', {
        detail: `otp: ${c.message}; retry after ${d.retryAfterSeconds} s`,
        errors: [{ field: 'otp', message: `${c.message}; retry after ${d.retryAfterSeconds} s` }],
        headers: { 'retry-after': String(d.retryAfterSeconds) },
      });
    }
  }
  for (const c of checks) await ctx.app.rateLimits.hit(c.rule, c.key);
}
