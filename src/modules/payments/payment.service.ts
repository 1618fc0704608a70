import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { requireAbility } from '../../auth/principal.ts';
import type { AppServices, Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { faultPoint } from '../../lib/faults.ts';
import { normalisePhone } from '../../lib/identifiers.ts';
import { fromShillings } from '../../lib/money.ts';
import { AppError, type FieldError, notFound, ValidationError } from '../../lib/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { DomainRuleError } from '../motor/bind.service.ts';
import { clientVisibility } from '../clients/client.policy.ts';
import { policyVisibility } from '../policies/policy.policy.ts';
import { currentCallbackToken } from './callback-token.ts';
import { confirmPrompt, resolveInDoubt } from './confirm.service.ts';
import {
  darajaPassword,
  type DarajaStkPushResponse,
  darajaTimestamp,
  type MobileMoneyRail,
  paymentsRuntime,
  RailRefusal,
} from './rail.ts';
import { transitionPaymentRequest } from './payment-request-state.ts';
import { admitPrompt, countPrompt, type PromptTarget } from './stk-throttle.ts';

/** Daraja's ceiling for one STK push. */
export const STK_MAX_AMOUNT = 250_000;
export const CALLBACK_PATH = '/api/v1/payment/callback/mpesa';

/** Policies the caller may see: staff all; an agent those they created, sell, or whose client they may see. */
export { policyVisibility };

export function paymentRequestVisibility(p: Principal): Prisma.PaymentRequestWhereInput {
  const a = p.actor;
  if (!a?.ownRecordsOnly) return {};
  return { OR: [{ requestedByUserId: a.userId }, { policy: policyVisibility(p) }] };
}

export function receiptVisibility(p: Principal): Prisma.ReceiptWhereInput {
  const a = p.actor;
  if (!a?.ownRecordsOnly) return {};
  return { OR: [{ policy: policyVisibility(p) }, { client: clientVisibility(p) }] };
}

export interface StkPushInput {
  phone?: string | null;
  amount?: number | null;
  account?: string | null;
  purpose?: string | null;
  /** The caller's Idempotency-Key (REST header, GraphQL input): a retry with it never prompts twice. */
  idempotencyKey?: string | null;
}

function validate(input: StkPushInput): {
  phone: string;
  amount: number;
  account: string;
  purpose: 'premium' | 'ipf_repayment';
} {
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
  return { phone: phone!, amount: amount!, account, purpose: purpose as 'premium' | 'ipf_repayment' };
}

/** Daraja allows 12 characters: the account without separators, its last 12 when longer (the full one is kept). */
export function accountReference(account: string): string {
  const compact = account.replace(/[^A-Za-z0-9]/g, '');
  return compact.length > 12 ? compact.slice(-12) : compact;
}

async function resolveAccount(p: Principal, tx: Tx, account: string, purpose: 'premium' | 'ipf_repayment') {
  const unknown = (message: string) => new ValidationError([{ field: 'account', message }]);
  if (purpose === 'ipf_repayment') throw unknown('no premium-finance loan with this reference');
  const visible = policyVisibility(p);
  let debitNoteId: number | null = null;
  let policyId: number;
  // DN-<policy_no> is the whole-policy debit note of the bind answer (`debit_note.number`): the policy's account.
  const dn = account.startsWith('DN-')
    ? await tx.debitNote.findFirst({ where: { number: account, policy: visible } })
    : null;
  const wholePolicy =
    account.startsWith('DN-') && !dn
      ? await tx.policy.findFirst({ where: { policyNo: account.slice(3), ...visible } })
      : null;
  if (dn) {
    debitNoteId = dn.id;
    policyId = dn.policyId;
  } else if (wholePolicy) {
    policyId = wholePolicy.id;
  } else if (account.startsWith('DN-')) {
    throw unknown('no debit note with this number that you can see');
  } else {
    const pol = await tx.policy.findFirst({ where: { policyNo: account, ...visible } });
    if (!pol) throw unknown('no policy or debit note with this number that you can see');
    policyId = pol.id;
  }
  const policy = await tx.policy.findUniqueOrThrow({ where: { id: policyId } });
  // Premium is taken while pending, active or lapsed (paying the arrears reinstates a lapse); a cancelled, expired
  // or renewed policy takes only what its open debit notes still owe; a policy never taken up takes nothing.
  if (policy.status !== 'pending_payment' && policy.status !== 'active' && policy.status !== 'lapsed') {
    const open =
      policy.status === 'not_taken_up'
        ? []
        : await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM debit_notes WHERE policy_id = ${policy.id} AND amount_minor > paid_minor + credited_minor LIMIT 1`;
    if (!open.length)
      throw new DomainRuleError(
        `Policy ${policy.policyNo} is ${policy.status.replace(/_/g, ' ')} with nothing owed: it takes no premium`,
      );
  }
  return { policyId, debitNoteId, clientId: policy.clientId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type IntentRow = Awaited<ReturnType<Tx['paymentRequest']['findUniqueOrThrow']>>;

/**
 * Steps 2 and 3 of a push: the rail call (no transaction open) and the record of its acknowledgement. A refusal by
 * the rail fails the request; a call that throws without an answer (timeout, connection lost) leaves it `sending`,
 * in doubt, for the statement to settle.
 */
async function sendPrompt(
  ctx: Context,
  rail: MobileMoneyRail,
  origin: string,
  intent: IntentRow,
  token: string,
  target: PromptTarget,
) {
  const config = ctx.app.config;
  const timestamp = darajaTimestamp();
  const shortcode = intent.shortcode;
  let ack: DarajaStkPushResponse;
  try {
    ack = await withTimeout(
      rail.stkPush({
        BusinessShortCode: shortcode,
        Password: darajaPassword(shortcode, config.mpesaPasskey, timestamp),
        Timestamp: timestamp,
        TransactionType: 'CustomerPayBillOnline',
        Amount: Number(intent.amountMinor / 100n),
        PartyA: intent.phone,
        PartyB: shortcode,
        PhoneNumber: intent.phone,
        CallBackURL: `${origin.replace(/\/$/, '')}${CALLBACK_PATH}/${token}`,
        AccountReference: intent.accountReference,
        TransactionDesc: intent.purpose === 'premium' ? 'Premium' : 'IPF repayment',
      }),
      config.mpesaRailTimeoutMs,
    );
  } catch (err) {
    if (err instanceof RailRefusal) {
      // Nothing reached the phone: the key is freed, so a corrected retry with it is a new request (as for any refused write).
      await ctx.app.db.tenant(intent.tenantId, (tx) =>
        transitionPaymentRequest(tx, intent.id, 'sending', 'failed', {
          resultDesc: err.detail,
          resolvedVia: 'push',
          resolvedAt: new Date(),
          sendingUntil: null,
          idempotencyKey: null,
        }),
      );
      throw new AppError('service_unavailable', { detail: err.detail });
    }
    ctx.log.warn(
      { err, payment_request_id: intent.id },
      'STK push unanswered: the request is in doubt until the statement settles it',
    );
    throw new AppError('service_unavailable', {
      detail: `The mobile-money rail did not answer; the prompt may still reach the phone. Retry with the same Idempotency-Key, or follow /api/v1/payment/stk/${intent.id}`,
      headers: { 'Retry-After': '5' },
    });
  }
  faultPoint(config, 'stk.after-rail-call');
  // The phone has been prompted once the rail accepts, whatever happens after.
  await countPrompt(ctx.app, target);
  const request = await ctx.app.db.tenant(intent.tenantId, async (tx) => {
    // Recorded even when the statement settled the request first (the ids are the rail's either way).
    const acknowledged = {
      merchantRequestId: ack.MerchantRequestID,
      checkoutRequestId: ack.CheckoutRequestID,
      responseCode: ack.ResponseCode,
      responseDesc: ack.ResponseDescription,
      customerMessage: ack.CustomerMessage,
    };
    if (
      !(await transitionPaymentRequest(tx, intent.id, 'sending', 'pending', { ...acknowledged, sendingUntil: null }))
    ) {
      await tx.paymentRequest.updateMany({ where: { id: intent.id, checkoutRequestId: null }, data: acknowledged });
    }
    return tx.paymentRequest.findUniqueOrThrow({ where: { id: intent.id } });
  });
  return { request, replayed: false };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`rail call timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export const paymentService = {
  /**
   * Sends an STK push in three steps, none holding a connection while the rail is called (README "Payments"):
   *  1. a short transaction checks the account and the prompt limits and commits the intent (status `sending`,
   *     with the caller's Idempotency-Key);
   *  2. the rail is called, outside any transaction;
   *  3. a short transaction records the acknowledgement (status `pending`).
   * A retry with the same key finds the attempt instead of prompting again: it waits (no connection held) while the
   * first is still calling the rail, answers the recorded attempt once it has, and, when the first died between
   * steps 2 and 3, confirms the attempt from the rail's statement (confirm.service resolveInDoubt).
   */
  async initiate(ctx: Context, input: StkPushInput): Promise<{ request: IntentRow; replayed: boolean }> {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const v = validate(input);
    const key = input.idempotencyKey ?? null;
    const requestHash = sha256Hex(`${v.phone}|${v.amount}|${v.account}|${v.purpose}|${actor.userId}`);
    const runtime = paymentsRuntime(ctx.app);
    const rail = runtime.rail;
    const origin = ctx.app.config.publicBaseUrl ?? runtime.origin;
    if (!rail || !origin)
      throw new AppError('service_unavailable', { detail: 'The mobile-money rail is not running in this deployment' });
    const config = ctx.app.config;
    const deadline = Date.now() + config.mpesaRailTimeoutMs + 5_000;
    for (;;) {
      const step = await ctx.app.db.tenant(
        p.tenant.id,
        async (tx): Promise<{ prior: IntentRow } | { intent: IntentRow; token: string; target: PromptTarget }> => {
          if (key) {
            // Serialises twins of one key for the length of this short transaction only.
            await tx.$executeRaw`SELECT pg_advisory_xact_lock(${p.apiClient.id}::int, hashtext(${`stk:${key}`}))`;
            const prior = await tx.paymentRequest.findUnique({
              where: { apiClientId_idempotencyKey: { apiClientId: p.apiClient.id, idempotencyKey: key } },
            });
            if (prior) {
              if (prior.requestHash !== requestHash) {
                throw new AppError('idempotency_key_reused', {
                  detail:
                    'Idempotency-Key was first used for a different payment request; use a new key for a new request',
                });
              }
              return { prior };
            }
          }
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
              requestedByUserId: actor.userId,
              apiClientId: p.apiClient.id,
              idempotencyKey: key,
              requestHash,
              sendingUntil: new Date(Date.now() + config.mpesaRailTimeoutMs),
            },
          });
          await recordAudit(ctx, tx, p.tenant.id, {
            action: 'payment.requested',
            entityType: 'payment_request',
            entityId: pr.id,
            changes: { account: v.account, amount: v.amount, purpose: v.purpose },
          });
          return { intent: pr, token, target };
        },
      );
      if (!('prior' in step)) return sendPrompt(ctx, rail, origin, step.intent, step.token, step.target);
      const prior = step.prior;
      if (prior.status !== 'sending') return { request: prior, replayed: true };
      if (prior.sendingUntil && prior.sendingUntil.getTime() > Date.now() && Date.now() < deadline) {
        // The first attempt is still calling the rail: wait for it without holding a connection.
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      // In doubt (the first attempt died before recording the rail's answer): the statement may settle it now.
      await resolveInDoubt(ctx.app, prior.id).catch((err) =>
        ctx.log.warn({ err, payment_request_id: prior.id }, 'statement lookup failed'),
      );
      const now = await ctx.tx((tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id: prior.id } }));
      return { request: now, replayed: true };
    }
  },

  /**
   * The prompt's state, by checkout request id or by payment request id. A request pending past
   * MPESA_RECONCILE_AFTER_MS is first confirmed with the rail; one in doubt (`sending` past its call) is looked up on
   * the rail's statement.
   */
  async status(ctx: Context, ref: string) {
    const p = ctx.principal!;
    const byId = UUID.test(ref);
    const find = () =>
      ctx.tx((tx) =>
        tx.paymentRequest.findFirst({
          where: { ...(byId ? { id: ref.toLowerCase() } : { checkoutRequestId: ref }), ...paymentRequestVisibility(p) },
        }),
      );
    let pr = await find();
    if (!pr) throw notFound('Payment request');
    const due = Date.now() - pr.createdAt.getTime() >= ctx.app.config.mpesaReconcileAfterMs;
    if (pr.status === 'pending' && due) {
      await confirmPrompt(ctx.app, pr.tenantId, pr.id).catch((err) =>
        ctx.log.warn({ err, payment_request_id: pr!.id }, 'rail query failed'),
      );
      pr = (await find())!;
    } else if (pr.status === 'sending' && pr.sendingUntil && pr.sendingUntil.getTime() <= Date.now()) {
      await resolveInDoubt(ctx.app, pr.id).catch((err) =>
        ctx.log.warn({ err, payment_request_id: pr!.id }, 'statement lookup failed'),
      );
      pr = (await find())!;
    }
    const receipt = pr.receiptId
      ? await ctx.tx((tx) => tx.receipt.findUnique({ where: { id: pr.receiptId! } }))
      : null;
    return { ...pr, receiptNo: receipt?.receiptNo ?? null };
  },

  async balance(ctx: Context, clientNo: string) {
    const p = ctx.principal!;
    return ctx.tx(async (tx) => {
      const client = await tx.client.findFirst({ where: { clientNo, ...clientVisibility(p) } });
      if (!client) throw notFound('Client');
      const notes = await tx.debitNote.findMany({
        // Every policy's notes but those never taken up (nothing is owed on cover that never started); a credit note
        // settles part of a note as payment does.
        where: { policy: { clientId: client.id, status: { not: 'not_taken_up' } } },
        orderBy: [{ dueOn: 'asc' }, { id: 'asc' }],
      });
      const open = notes.filter((n) => n.paidMinor + n.creditedMinor < n.amountMinor);
      const outstanding = open.reduce((s, n) => s + (n.amountMinor - n.paidMinor - n.creditedMinor), 0n);
      const credit = await tx.clientCredit.aggregate({ where: { clientId: client.id }, _sum: { amountMinor: true } });
      return {
        clientNo: client.clientNo,
        outstandingMinor: outstanding,
        creditMinor: credit._sum.amountMinor ?? 0n,
        openDebitNotes: open,
      };
    });
  },
};
