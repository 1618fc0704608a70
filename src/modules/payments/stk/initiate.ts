import { randomUUID } from 'node:crypto';
import { type Actor, type Principal, requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { fromShillings } from '../../../lib/money.ts';
import { AppError, type FieldError, ValidationError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { currentCallbackToken } from '../callback-token.ts';
import { resolveInDoubt } from '../confirm/in-doubt.ts';
import { admitPrompt, type PromptTarget } from '../stk-throttle.ts';
import { faultPoint } from '../../../lib/faults.ts';
import { accountReference, type PaymentPurpose, resolveAccount } from './account.ts';
import { answered, fixAnswer, inDoubt } from './answer.ts';
import { type IntentRow, sendPrompt } from './prompt.ts';

/** Daraja's ceiling for one STK push. */
export const STK_MAX_AMOUNT = 250_000;

export interface StkPushInput {
  phone?: string | null;
  amount?: number | null;
  account?: string | null;
  purpose?: string | null;
  /** The caller's Idempotency-Key (REST header, GraphQL input): a retry with it never prompts twice. */
  idempotencyKey?: string | null;
}

interface ValidPush {
  phone: string;
  amount: number;
  account: string;
  purpose: PaymentPurpose;
}

function validate(input: StkPushInput): ValidPush {
  const errors: FieldError[] = [];
  const phone = typeof input.phone === 'string' ? normalisePhone(input.phone) : null;
  if (!phone) errors.push({ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' });
  const amount = input.amount;
  if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > STK_MAX_AMOUNT) {
    errors.push({ field: 'amount', message: `whole shillings from 1 to ${STK_MAX_AMOUNT.toLocaleString('en-KE')}` });
  }
  const account = typeof input.account === 'string' ? input.account.trim().toUpperCase() : '';
  if (!account)
    errors.push({ field: 'account', message: 'a policy number, debit note number or premium-finance loan reference' });
  const purpose = input.purpose ?? 'premium';
  if (purpose !== 'premium' && purpose !== 'ipf_repayment')
    errors.push({ field: 'purpose', message: 'premium or ipf_repayment' });
  const key = input.idempotencyKey;
  if (key != null && (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))) {
    errors.push({ field: 'idempotencyKey', message: '1–255 visible ASCII characters' });
  }
  if (errors.length) throw new ValidationError(errors);
  return { phone: phone!, amount: amount!, account, purpose: purpose as PaymentPurpose };
}

/** One push as step 1 sees it: who asks, what, and under which key. */
interface PushRequest {
  p: Principal;
  actor: Actor;
  v: ValidPush;
  key: string | null;
  requestHash: string;
}

type Step = { prior: IntentRow } | { intent: IntentRow; token: string; target: PromptTarget };

/**
 * Sends an STK push in three steps, none holding a connection while the rail is called (docs/payments.md "Payments"):
 *  1. a short transaction checks the account and the prompt limits and commits the intent (status `sending`,
 *     with the caller's Idempotency-Key);
 *  2. the rail is called, outside any transaction;
 *  3. a short transaction records the acknowledgement (status `pending`).
 * A retry with the same key finds the attempt instead of prompting again: it waits (no connection held) while the
 * first is still calling the rail, answers the recorded attempt once it has, and, when the first died between
 * steps 2 and 3, confirms the attempt from the rail's statement (confirm/in-doubt.ts resolveInDoubt).
 */
export async function initiateStkPush(
  ctx: Context,
  input: StkPushInput,
): Promise<{ request: IntentRow; replayed: boolean }> {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  const v = validate(input);
  const key = input.idempotencyKey ?? null;
  const requestHash = sha256Hex(`${v.phone}|${v.amount}|${v.account}|${v.purpose}|${actor.userId}`);
  const runtime = ctx.app.mobileMoney;
  const rail = runtime.rail;
  const origin = ctx.app.config.publicBaseUrl ?? runtime.origin;
  if (!rail || !origin)
    throw new AppError('service_unavailable', { detail: 'The mobile-money rail is not running in this deployment' });
  const config = ctx.app.config;
  const deadline = Date.now() + config.mpesaRailTimeoutMs + 5_000;
  for (;;) {
    const step = await ctx.app.db.tenant(p.tenant.id, (tx) =>
      priorOrIntent(ctx, tx, { p, actor, v, key, requestHash }),
    );
    if (!('prior' in step)) {
      faultPoint(config, 'stk.after-intent');
      return sendPrompt(ctx, rail, origin, step.intent, step.token, step.target);
    }
    const answer = await answerPrior(ctx, step.prior, deadline);
    if (answer) return answer;
  }
}

/**
 * The push an earlier use of the key made, for an operation that derives its push from state that the push itself
 * changes (the client area's amount due): it must replay before judging that state (docs/api-conventions.md).
 */
export async function priorPush(ctx: Context, key: string): Promise<IntentRow | null> {
  const p = ctx.principal!;
  return ctx.tx((tx) =>
    tx.paymentRequest.findUnique({
      where: { apiClientId_idempotencyKey: { apiClientId: p.apiClient.id, idempotencyKey: key } },
    }),
  );
}

/** Step 1, in one short transaction: the attempt an earlier use of the key made, or a new intent committed. */
async function priorOrIntent(ctx: Context, tx: Tx, push: PushRequest): Promise<Step> {
  const { p, key } = push;
  if (key) {
    // Serialises twins of one key for the length of this short transaction only; the lock and the look-up of an
    // earlier push with the key are one round trip (app_stk_push_lock_and_find: the look-up sees a twin's push
    // committed while this one waited), and only a push found is read in full.
    const [found] = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM app_stk_push_lock_and_find(${p.apiClient.id}::int, ${key}::text)`;
    const prior = found ? await tx.paymentRequest.findUniqueOrThrow({ where: { id: found.id } }) : null;
    if (prior) {
      if (prior.requestHash !== push.requestHash) {
        throw new AppError('idempotency_key_reused', {
          detail: 'Idempotency-Key was first used for a different payment request; use a new key for a new request',
        });
      }
      return { prior };
    }
  }
  return recordIntent(ctx, tx, push);
}

async function recordIntent(ctx: Context, tx: Tx, { p, actor, v, key, requestHash }: PushRequest): Promise<Step> {
  const acct = await resolveAccount(p, tx, v.account, v.purpose);
  // Prompt-bombing guard (stk-throttle.ts): a committed `sending` intent counts as pending for the next push.
  const target = { tenantId: p.tenant.id, phone: v.phone, policyId: acct.policyId };
  await admitPrompt(ctx.app, tx, target);
  const token = await currentCallbackToken(ctx.app, tx, p.tenant.id, p.tenant.paybill);
  const pr = await tx.paymentRequest.create({
    data: {
      id: randomUUID(),
      tenantId: p.tenant.id,
      status: 'sending',
      phone: v.phone,
      amountMinor: fromShillings(v.amount),
      account: v.account,
      accountReference: accountReference(v.account),
      shortcode: p.tenant.paybill,
      purpose: v.purpose,
      policyId: acct.policyId,
      debitNoteId: acct.debitNoteId,
      clientId: acct.clientId,
      loanId: acct.loanId,
      requestedByUserId: actor.userId,
      apiClientId: p.apiClient.id,
      idempotencyKey: key,
      requestHash,
      sendingUntil: new Date(Date.now() + ctx.app.config.mpesaRailTimeoutMs),
    },
  });
  await recordAudit(ctx, tx, p.tenant.id, {
    action: 'payment.requested',
    entityType: 'payment_request',
    entityId: pr.id,
    changes: { account: v.account, amount: v.amount, purpose: v.purpose },
  });
  return { intent: pr, token, target };
}

/**
 * A retry's answer: the first answer (stk/answer.ts), fixed now if the request was settled before any attempt could
 * answer; null to look again once the first attempt has had time to hear the rail. A request still in doubt has no
 * answer to replay: 503 with Retry-After, as the first attempt's own answer was (never a 202 without the rail's ids).
 */
async function answerPrior(
  ctx: Context,
  prior: IntentRow,
  deadline: number,
): Promise<{ request: IntentRow; replayed: boolean } | null> {
  const first = answered(prior);
  if (first) return { request: first, replayed: true };
  if (prior.status !== 'sending') return { request: await fixed(ctx, prior), replayed: true };
  if (prior.sendingUntil && prior.sendingUntil.getTime() > Date.now() && Date.now() < deadline) {
    // The first attempt is still calling the rail: wait for it without holding a connection.
    await new Promise((r) => setTimeout(r, 200));
    return null;
  }
  // In doubt (the first attempt died before recording the rail's answer): the rail's statement may settle it now.
  await resolveInDoubt(ctx.app, prior.id).catch((err) =>
    ctx.log.warn({ err, payment_request_id: prior.id }, 'statement lookup failed'),
  );
  const now = await ctx.app.db.tenant(prior.tenantId, (tx) =>
    tx.paymentRequest.findUniqueOrThrow({ where: { id: prior.id } }),
  );
  if (now.status === 'sending' && !answered(now)) throw inDoubt(prior.id);
  return { request: answered(now) ?? (await fixed(ctx, now)), replayed: true };
}

const fixed = (ctx: Context, row: IntentRow) => ctx.app.db.tenant(row.tenantId, (tx) => fixAnswer(tx, row.id));
