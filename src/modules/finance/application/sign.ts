import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { InvalidStateError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { otpMatches, OTP_RULES } from '../../sms/otp-code.ts';
import { assertIpfMove, IPF_RULES, transitionIpf } from '../ipf-state.ts';
import { createLoanFromApplication } from '../loan/create.ts';
import { requireFinanceOffered } from '../offered.ts';
import { agreementFor } from './agreement.ts';
import {
  type ApplicationRow,
  checkPolicyFinanceable,
  lockVisibleApplication,
  otpFailure,
  requireNotExpired,
  scheduleJson,
} from './common.ts';
import { signingBinding } from './signing-code.ts';

type Checked = { ok: true; application: ApplicationRow } | { ok: false; reason: string };

/** A code as typed: six digits (anything else is refused without spending an attempt). */
function parseCode(code: unknown): string {
  const c = typeof code === 'string' ? code.trim() : '';
  if (!new RegExp(`^\\d{${OTP_RULES.digits}}$`).test(c)) throw otpFailure(`${OTP_RULES.digits} digits`);
  return c;
}

/**
 * approved → signed by the client's one-time code (docs/premium-finance.md "Premium finance: signing"), which creates the loan with
 * its schedule (awaiting the deposit, due today). Refused on `otp` when no code was sent, it expired, its attempts
 * are spent, the code is wrong (an attempt is spent, and that is committed before the refusal is answered), or the
 * agreement rendered now differs from the one the code was sent with (its hash: a changed name, phone or day).
 */
export async function signIpfApplication(ctx: Context, uuid: string, code: unknown): Promise<ApplicationRow> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  requireAbility(p, 'policies.create');
  const typed = parseCode(code);
  // Its own transaction, committed either way: a wrong code's spent attempt must survive the refusal.
  const checked = await ctx.tx((tx) => checkAndSign(ctx, tx, uuid, typed));
  if (!checked.ok) throw otpFailure(checked.reason);
  return checked.application;
}

async function checkAndSign(ctx: Context, tx: Tx, uuid: string, code: string): Promise<Checked> {
  const a = await lockVisibleApplication(ctx, tx, uuid);
  assertIpfMove('application', a.status, 'signed');
  const now = clockNow();
  requireNotExpired(a, now);
  if (!a.signingCodeHash || !a.signingCodeExpires || !a.agreementSha256)
    return { ok: false, reason: 'no signing code was requested, or it was already used; request one' };
  if (a.signingCodeExpires <= now) return { ok: false, reason: 'the code has expired; request a new one' };
  if (a.signingAttempts >= OTP_RULES.maxAttempts)
    return { ok: false, reason: 'too many wrong attempts; request a new code' };
  const signedOn = todayNairobi(now);
  const agreement = await agreementFor(tx, a, signedOn);
  if (agreement.sha256 !== a.agreementSha256) {
    await tx.ipfApplication.update({ where: { id: a.id }, data: { signingCodeHash: null } });
    return { ok: false, reason: 'the agreement changed since the code was sent; request a new code' };
  }
  const binding = signingBinding(a.uuid, a.agreementSha256);
  if (!otpMatches(ctx.app.config, binding, code, a.signingCodeHash, 'ipf-sign')) {
    const left = OTP_RULES.maxAttempts - a.signingAttempts - 1;
    await tx.ipfApplication.update({ where: { id: a.id }, data: { signingAttempts: { increment: 1 } } });
    return {
      ok: false,
      reason: left > 0 ? `wrong code; ${left} attempt(s) left` : 'wrong code; no attempts left, request a new code',
    };
  }
  const policy = await tx.policy.findUniqueOrThrow({ where: { id: a.policyId } });
  checkPolicyFinanceable(policy);
  return { ok: true, application: await sign(ctx, tx, a, signedOn, now) };
}

/** The move, the signed schedule (dated from today, as the agreement shows it), the loan, the audit entry. */
async function sign(ctx: Context, tx: Tx, a: ApplicationRow, signedOn: string, now: Date): Promise<ApplicationRow> {
  const moved = await transitionIpf(tx, 'application', a.id, 'approved', 'signed', {
    tenantId: a.tenantId,
    reason: `Signed by one-time code sent to the client's phone (agreement ${a.agreementSha256!.slice(0, 12)}…)`,
    actor: 'client',
  });
  if (!moved) throw new InvalidStateError('The application changed meanwhile; read it again');
  const payments = (a.schedule as { amount_minor: string }[]).map((l) => BigInt(l.amount_minor));
  const signed = await tx.ipfApplication.update({
    where: { id: a.id },
    data: {
      signedAt: now,
      signingCodeHash: null,
      signingAttempts: { increment: 1 },
      schedule: scheduleJson({ paymentsMinor: payments }, signedOn),
      // The deposit is due today: the signed agreement is void if it is not paid within IPF_RULES.depositDays.
      expiresAt: new Date(now.getTime() + IPF_RULES.depositDays * 86_400_000),
    },
  });
  const loan = await createLoanFromApplication(tx, signed, signedOn, now);
  await recordAudit(ctx, tx, a.tenantId, {
    action: 'ipf_application.signed',
    entityType: 'ipf_application',
    entityId: a.applicationNo,
    changes: { loan_no: loan.loanNo, agreement_sha256: a.agreementSha256 },
  });
  return signed;
}
