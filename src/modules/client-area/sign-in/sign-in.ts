import type { Context } from '../../../context.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { AppError, DuplicateClientError, ValidationError } from '../../../lib/problem.ts';
import { clientService, phoneForCodes } from '../../clients/client.service.ts';
import { type CodeCheck, checkCode, issueAppKey, otpFailure, parseCode } from './verify.ts';

export interface ClientAreaSession {
  clientNo: string;
  clientKey: string;
}

export interface VerifyInput {
  phone?: string | null;
  clientNo?: string | null;
  code?: string | null;
}

/**
 * verify-otp: the code sent for sign-in proves the phone; the answer is the client's number and a new app key. By
 * `client_no` the code is the one sent to that client's phone (several clients may share one phone); by `phone` it
 * signs in the client the code was sent for.
 */
export async function verifyOtp(ctx: Context, input: VerifyInput): Promise<ClientAreaSession> {
  const code = parseCode(input.code);
  const clientNo = input.clientNo?.trim().toUpperCase() || null;
  const phone = input.phone ? normalisePhone(input.phone) : null;
  if (!clientNo && !phone) {
    throw new ValidationError([{ field: 'phone', message: 'send the phone, or client_no, the code was sent for' }]);
  }
  const out = await ctx.tx(async (tx) => {
    const named = clientNo
      ? await tx.client.findFirst({
          where: { clientNo },
          select: { id: true, clientNo: true, phone: true, phoneHeldUntil: true, codesPhone: true },
        })
      : null;
    // By client number, the handset its codes go to (while a change of phone is held, the phone trusted before it).
    const target = (named ? phoneForCodes(named) : null) ?? (clientNo ? null : phone);
    // An unknown client number has no code to spend: refused with the very words of a wrong code.
    if (!target) return { check: { ok: false } as CodeCheck };
    const check = await checkCode(ctx, tx, { phone: target, purpose: 'signin', code });
    if (!check.ok) return { check };
    const client =
      named ??
      (check.clientId !== null
        ? await tx.client.findUnique({ where: { id: check.clientId }, select: { id: true, clientNo: true } })
        : null);
    // A code for a phone that is no client's was never sent; typing it right is a guess and reads as wrong.
    if (!client) return { check: { ok: false } as CodeCheck };
    return {
      check,
      session: { clientNo: client.clientNo, clientKey: await issueAppKey(ctx, tx, client, 'verify_otp') },
    };
  });
  // Thrown after the transaction committed, so the spent attempt counts.
  if (!out.session) throw otpFailure();
  return out.session;
}

export interface RegisterInput {
  name?: string | null;
  phone?: string | null;
  idNo?: string | null;
  email?: string | null;
  kraPin?: string | null;
  dateOfBirth?: string | null;
  physicalAddress?: string | null;
  code?: string | null;
}

/**
 * register: a self-registered client (`onboarded_via: client_area`) after the phone is proven by a code requested
 * with purpose `register`, through the clients service (numbering, normalisation, duplicate checks, audit). A phone
 * or ID number already on the books is 409 duplicate_client with no matches listed: the customer signs in instead.
 */
export async function registerClient(ctx: Context, input: RegisterInput): Promise<ClientAreaSession> {
  const code = parseCode(input.code);
  const phone = input.phone ? normalisePhone(input.phone) : null;
  if (!phone) throw new ValidationError([{ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' }]);
  const { code: _c, ...fields } = input;
  const out = await ctx.tx(async (tx) => {
    const check = await checkCode(ctx, tx, { phone, purpose: 'register', code });
    if (!check.ok) return { check };
    const client = await clientService
      .createInTx(ctx, tx, { ...fields, type: 'individual' }, { onboardedVia: 'client_area' })
      .catch((e: unknown) => {
        if (!(e instanceof DuplicateClientError)) throw e;
        // Never list who matched: the caller is a member of the public.
        throw new AppError('duplicate_client', {
          detail: 'This phone or ID number is already registered: sign in with a one-time code instead',
          extra: { matches: [] },
        });
      });
    return { check, session: { clientNo: client.clientNo, clientKey: await issueAppKey(ctx, tx, client, 'register') } };
  });
  if (!out.session) throw otpFailure();
  return out.session;
}
