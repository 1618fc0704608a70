import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { normaliseIdNo, normalisePhone } from '../../../lib/identifiers.ts';
import { AppError, type FieldError, isAppError, ValidationError } from '../../../lib/problem.ts';
import type { RateLimitRule } from '../../../lib/rate-limit.ts';
import { phoneForCodes } from '../../clients/client.service.ts';
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
    if (purpose === 'register') errors.push({ field: 'phone', code: 'required', message: 'required to register' });
    else if (!clientNo || !input.idNo) {
      errors.push({ field: 'phone', message: 'send phone, or client_no with id_no' });
    } else if (!idNo) errors.push({ field: 'idNo', message: 'a national ID or passport number' });
  }
  if (errors.length) throw new ValidationError(errors);
  return { purpose: purpose as OtpPurpose, phone, clientNo, idNo };
}

/**
 * Asks for a one-time code (docs/client-area.md "Sign-in"). The answer must not tell a client from a stranger, nor a
 * right ID number from a wrong one, in its words, its status or its timing, so the request does the same work whoever
 * is named: one lookup, the visible throttles keyed on what the caller named (the phone, or the client number whatever
 * ID number came with it), one code row written, one job queued. The row's hash is of a random code nobody is ever
 * told; the job (sendCode, after the answer) gives a client's handset, or the phone being registered, a fresh code in
 * its place and sends it by SMS, and gives a stranger nothing. The handset's own allowance (one code a cool-down, so
 * many an hour, however the client was named) is kept by the job, silently: a request it holds back is answered like
 * any other and sends nothing, and the handset's live code stays the one it has.
 */
export async function requestOtp(ctx: Context, input: OtpRequestInput): Promise<OtpRequested> {
  const p = ctx.principal!;
  const target = validate(input);
  const ip = input.customerIp?.trim() || ctx.peerIp || `api-client:${p.apiClient.id}`;
  const otpId = await ctx.tx(async (tx) => {
    const recipient = await recipientOf(tx, target);
    await throttle(ctx, target.purpose, target, ip);
    return storeCode(ctx, tx, target.purpose, recipient, ip);
  });
  await queueCode(ctx, p.tenant.id, otpId);
  return ANSWER;
}

interface Recipient {
  /** The handset: a client's registered phone, or the phone given; null for an unknown client number. */
  phone: string | null;
  clientId: number | null;
}

const HOLD_FIELDS = { id: true, phone: true, phoneHeldUntil: true, codesPhone: true } as const;

/**
 * The client named and the phone its code goes to: while the organisation's change of the phone is held, the phone
 * trusted before it (docs/motor-and-clients.md "Phone changes"), which also still names the client. A held change with
 * no trusted phone left gets a row without a handset, like an unknown client number: nothing is sent, same answer.
 */
async function recipientOf(tx: Tx, t: Target): Promise<Recipient> {
  if (t.purpose === 'register') return { phone: t.phone, clientId: null };
  const client = t.phone
    ? await tx.client.findFirst({
        where: { OR: [{ phone: t.phone }, { codesPhone: t.phone, phoneHeldUntil: { gt: clockNow() } }] },
        orderBy: { id: 'asc' },
        select: HOLD_FIELDS,
      })
    : await tx.client.findFirst({ where: { clientNo: t.clientNo!, idNo: t.idNo }, select: HOLD_FIELDS });
  if (client) return { phone: phoneForCodes(client), clientId: client.id };
  return { phone: t.phone, clientId: null };
}

/**
 * What the caller named, for the visible throttles: the phone, or the client number alone. Keyed on the handset a
 * client number leads to, a wrong ID number (no handset found) and a right one were throttled apart, and which of the
 * two answered 422 after a first request told whether an ID number was the client's.
 */
const namedKey = (t: Target) => (t.phone ? `phone:${t.phone}` : `client:${t.clientNo}`);

async function storeCode(ctx: Context, tx: Tx, purpose: OtpPurpose, r: Recipient, ip: string): Promise<number> {
  const now = clockNow();
  const uuid = randomUUID();
  const row = await tx.clientOtp.create({
    data: {
      tenantId: ctx.principal!.tenant.id,
      uuid,
      phone: r.phone,
      clientId: r.clientId,
      purpose,
      // A code nobody is told: the job replaces it with the one it sends (a stranger's row keeps it).
      codeHash: hashOtp(ctx.app.config, uuid, newOtpCode()),
      expiresAt: new Date(now.getTime() + OTP_RULES.ttlSeconds * 1000),
      requestIp: ip,
    },
  });
  return row.id;
}

/** After commit, for every request alike: the job decides whether anything is sent. */
async function queueCode(ctx: Context, tenantId: number, otpId: number): Promise<void> {
  const port = ctx.app.clientArea;
  if (!port) {
    ctx.log.warn({ otp_id: otpId }, 'no job queue here: the one-time code is not sent');
    return;
  }
  await port
    .queueCode(tenantId, otpId)
    .catch((err) => ctx.log.warn({ err, otp_id: otpId }, 'one-time code not queued'));
}

/**
 * The `client-area.otp` job: a live code row of a client's handset (or of a phone being registered) gets a fresh
 * code, which goes by SMS with the code masked in the outbox (sealed for the gateway alone: docs/sms.md "One-time
 * codes"); a stranger's row, or one superseded, used or expired meanwhile, gets nothing. A refusal of the SMS service
 * (no balance) is logged for the organisation: the customer was answered long ago. Safe to repeat: a row that has its
 * message is left alone.
 */
export async function sendCode(
  app: AppServices,
  tenantId: number,
  otpId: number,
): Promise<'sent' | 'held' | 'nothing'> {
  try {
    return await app.db.tenant(tenantId, async (tx) => {
      const [otp] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM client_otps WHERE id = ${otpId} FOR UPDATE`;
      const row = otp && (await tx.clientOtp.findUniqueOrThrow({ where: { id: otp.id } }));
      const sendable = row && row.phone && (row.clientId !== null || row.purpose === 'register');
      if (!sendable || row.consumedAt || row.smsMessageId || row.expiresAt <= clockNow()) return 'nothing';
      if (!(await handsetAllows(app, row.tenantId, row.purpose, row.phone!))) return 'held';
      // The code sent supersedes the handset's earlier ones for the purpose (a held request superseded nothing).
      await tx.clientOtp.updateMany({
        where: { phone: row.phone, purpose: row.purpose, consumedAt: null, id: { lt: row.id } },
        data: { consumedAt: clockNow() },
      });
      const code = newOtpCode();
      const { messageId } = await smsService.sendServiceMessage(app, tx, {
        tenantId: row.tenantId,
        phone: row.phone!,
        templateCode: 'otp',
        vars: { minutes: OTP_RULES.ttlSeconds / 60 },
        secrets: { code },
        purpose: 'otp',
        clientId: row.clientId,
      });
      await tx.clientOtp.update({
        where: { id: row.id },
        data: { codeHash: hashOtp(app.config, row.uuid, code), smsMessageId: messageId },
      });
      return 'sent';
    });
  } catch (err) {
    if (!isAppError(err)) throw err;
    app.log.warn({ err, otp_id: otpId }, 'one-time code could not be sent by SMS');
    return 'nothing';
  }
}

const HOUR = 3600;

/**
 * The handset's own allowance, kept by the job whichever way the client was named: one code a cool-down and so many an
 * hour. Silent: the caller was answered before this runs, alike for every request.
 */
async function handsetAllows(app: AppServices, tenant: number, purpose: string, phone: string): Promise<boolean> {
  const who = sha256Hex(phone).slice(0, 32);
  const rules: { rule: RateLimitRule; key: string }[] = [
    {
      rule: { name: 'otp-handset-resend', limit: 1, windowSeconds: OTP_RULES.resendCooldownSeconds },
      key: `otp:handset-cool:${tenant}:${purpose}:${who}`,
    },
    {
      // The same hourly allowance as the premium-finance signing code's (finance/application/signing-code.ts).
      rule: { name: 'otp-phone', limit: OTP_RULES.perPhonePerHour, windowSeconds: HOUR },
      key: `otp:phone:${tenant}:${who}`,
    },
  ];
  for (const r of rules) if (!(await app.rateLimits.peek(r.rule, r.key)).allowed) return false;
  for (const r of rules) await app.rateLimits.hit(r.rule, r.key);
  return true;
}

/** Cool-down and hourly allowances per name asked by (phone or client number) and per address, per organisation. */
async function throttle(ctx: Context, purpose: OtpPurpose, t: Target, ip: string): Promise<void> {
  const tenant = ctx.principal!.tenant.id;
  // Hashed: the rate-limit store (possibly Redis) never holds phone numbers in the clear.
  const who = sha256Hex(namedKey(t)).slice(0, 32);
  const name = t.phone ? 'phone' : 'client number';
  const checks: { rule: RateLimitRule; key: string; message: string }[] = [
    {
      rule: { name: 'otp-resend', limit: 1, windowSeconds: OTP_RULES.resendCooldownSeconds },
      key: `otp:cool:${tenant}:${purpose}:${who}`,
      message: 'a code was sent moments ago; wait before asking for another',
    },
    {
      rule: { name: 'otp-named', limit: OTP_RULES.perPhonePerHour, windowSeconds: HOUR },
      key: `otp:named:${tenant}:${who}`,
      message: `at most ${OTP_RULES.perPhonePerHour} codes per ${name} per hour`,
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
