import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { AppError } from '../../lib/problem.ts';
import type { RateLimitRule } from '../../lib/rate-limit.ts';

/**
 * An STK push puts a PIN prompt on somebody's phone: a caller holding the bind scope could bomb a stranger with
 * prompts, or stack prompts for one account. Per organisation, every prompt is checked against:
 *  - one pending prompt per phone and per account: while an earlier prompt to the same phone, or for the same account,
 *    is pending and younger than STK_PENDING_HOLD_SECONDS (after which the handset no longer shows it), another is
 *    refused;
 *  - STK_PHONE_LIMIT prompts per phone per STK_PHONE_WINDOW_SECONDS and STK_ACCOUNT_LIMIT per account per
 *    STK_ACCOUNT_WINDOW_SECONDS, on the shared rate-limit store (exact sliding log; across processes with Redis).
 * The account is the policy the given account resolves to, so its spellings (policy number, DN-<policy>, an
 * instalment's note) share one allowance. Refusals are 429 rate_limited with Retry-After. Only a prompt the rail
 * accepted is counted: refused and failed requests spend nothing.
 *
 * Race-free: the check happens under transaction-scoped advisory locks on the phone and the account, held until the
 * push's intent (status `sending`, which counts as pending here) commits, so each push sees the prompts recorded
 * before it; the rail is called only after that commit. A push that finds either lock taken is refused at once
 * (Retry-After 1 s) rather than queued: waiting would hold a database connection per queued request. The allowance
 * is spent once the rail accepts the prompt.
 */
export interface PromptTarget {
  tenantId: number;
  phone: string;
  policyId: number;
}

/** Counters may live in a shared Redis: keep phone numbers (personal data) out of its key names. */
const phoneKey = (phone: string) => sha256Hex(`stk-phone:${phone}`).slice(0, 32);

function rules(app: AppServices, t: PromptTarget): { rule: RateLimitRule; key: string; what: string }[] {
  const c = app.config;
  const out = [];
  if (c.stkPhoneLimit > 0) {
    out.push({
      rule: { name: 'stk-phone', limit: c.stkPhoneLimit, windowSeconds: Math.max(1, c.stkPhoneWindowSeconds) },
      key: `${t.tenantId}:${phoneKey(t.phone)}`,
      what: 'this phone',
    });
  }
  if (c.stkAccountLimit > 0) {
    out.push({
      rule: { name: 'stk-account', limit: c.stkAccountLimit, windowSeconds: Math.max(1, c.stkAccountWindowSeconds) },
      key: `${t.tenantId}:p${t.policyId}`,
      what: 'this account',
    });
  }
  return out;
}

const refused = (detail: string, retryAfterSeconds: number) =>
  new AppError('rate_limited', { detail, headers: { 'Retry-After': String(Math.max(1, retryAfterSeconds)) } });

/** Takes the phone's and the account's locks, then refuses the prompt if one is pending for either or an allowance is spent. */
export async function admitPrompt(app: AppServices, tx: Tx, t: PromptTarget): Promise<void> {
  const holdMs = app.config.stkPendingHoldSeconds * 1000;
  if (holdMs <= 0 && rules(app, t).length === 0) return;
  // Both try-locks in one statement (a try-lock never waits, so the look-up below, a statement of its own, still sees
  // what a prompt that held either lock committed).
  const [locked] = await tx.$queryRaw<{ phone: boolean; account: boolean }[]>`SELECT
    pg_try_advisory_xact_lock(hashtext(${`stk-phone:${t.tenantId}:${t.phone}`})) AS phone,
    pg_try_advisory_xact_lock(hashtext(${`stk-account:${t.tenantId}:${t.policyId}`})) AS account`;
  if (!locked?.phone) throw refused('Another payment prompt to this phone is being sent right now', 1);
  if (!locked.account) throw refused('Another payment prompt for this account is being sent right now', 1);
  if (holdMs > 0) {
    const now = Date.now();
    const pending = await tx.paymentRequest.findMany({
      where: {
        tenantId: t.tenantId,
        status: { in: ['sending', 'pending'] },
        createdAt: { gt: new Date(now - holdMs) },
        OR: [{ phone: t.phone }, { policyId: t.policyId }],
      },
      select: { phone: true, createdAt: true },
      orderBy: { createdAt: 'desc' },
    });
    if (pending.length) {
      const what = pending.some((p) => p.phone === t.phone) ? 'to this phone' : 'for this account';
      const wait = Math.ceil((pending[0].createdAt.getTime() + holdMs - now) / 1000);
      throw refused(
        `An earlier payment prompt ${what} is still pending; send another once it is answered, or after ${wait} s`,
        wait,
      );
    }
  }
  for (const { rule, key, what } of rules(app, t)) {
    const d = await app.rateLimits.peek(rule, key);
    if (!d.allowed) {
      const window = rule.windowSeconds % 60 ? `${rule.windowSeconds} s` : `${rule.windowSeconds / 60} min`;
      throw refused(
        `${what[0].toUpperCase()}${what.slice(1)} has had ${rule.limit} payment prompts in the last ${window}; retry after ${d.retryAfterSeconds} s`,
        d.retryAfterSeconds,
      );
    }
  }
}

/** Counts a prompt the rail accepted against the phone's and the account's allowances (under admitPrompt's locks). */
export async function countPrompt(app: AppServices, t: PromptTarget): Promise<void> {
  for (const { rule, key } of rules(app, t)) await app.rateLimits.hit(rule, key);
}
