import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { requireAbility } from '../../auth/principal.ts';
import type { AppServices, Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { constantTimeEqual, newSecret, sha256Hex } from '../../lib/crypto.ts';
import { normalisePhone } from '../../lib/identifiers.ts';
import { fromShillings } from '../../lib/money.ts';
import { AppError, type FieldError, notFound, ValidationError } from '../../lib/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { DomainRuleError } from '../motor/bind.service.ts';
import { clientVisibility } from '../clients/client.policy.ts';
import { policyVisibility } from '../policies/policy.policy.ts';
import { decryptSecret, encryptSecret, masterKey } from '../webhooks/secret-box.ts';
import { darajaPassword, darajaTimestamp, paymentsRuntime } from './rail.ts';
import { applyRailResult, pushLock } from './settle.service.ts';
import { admitPrompt, countPrompt } from './stk-throttle.ts';

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
}

function validate(input: StkPushInput): { phone: string; amount: number; account: string; purpose: 'premium' | 'ipf_repayment' } {
  const errors: FieldError[] = [];
  const phone = typeof input.phone === 'string' ? normalisePhone(input.phone) : null;
  if (!phone) errors.push({ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' });
  const amount = input.amount;
  if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > STK_MAX_AMOUNT) {
    errors.push({ field: 'amount', message: `whole shillings from 1 to ${STK_MAX_AMOUNT.toLocaleString('en-KE')}` });
  }
  const account = typeof input.account === 'string' ? input.account.trim().toUpperCase() : '';
  if (!account) errors.push({ field: 'account', message: 'a policy number, debit note number or premium-finance loan reference' });
  const purpose = input.purpose ?? 'premium';
  if (purpose !== 'premium' && purpose !== 'ipf_repayment') errors.push({ field: 'purpose', message: 'premium or ipf_repayment' });
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
  const dn = account.startsWith('DN-') ? await tx.debitNote.findFirst({ where: { number: account, policy: visible } }) : null;
  const wholePolicy = account.startsWith('DN-') && !dn ? await tx.policy.findFirst({ where: { policyNo: account.slice(3), ...visible } }) : null;
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
    const open = policy.status === 'not_taken_up' ? [] : await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM debit_notes WHERE policy_id = ${policy.id} AND amount_minor > paid_minor + credited_minor LIMIT 1`;
    if (!open.length) throw new DomainRuleError(`Policy ${policy.policyNo} is ${policy.status.replace(/_/g, ' ')} with nothing owed: it takes no premium`);
  }
  return { policyId, debitNoteId, clientId: policy.clientId };
}

/** The organisation's rail channel; created with a random callback token on first use. Returns the plaintext token. */
async function channelToken(app: AppServices, tx: Tx, tenantId: number, shortcode: string): Promise<string> {
  const key = masterKey(app.config);
  const aad = `mpesa-channel:${tenantId}`;
  const existing = await tx.mpesaChannel.findUnique({ where: { tenantId } });
  if (existing) return decryptSecret(key, existing.callbackTokenEnc, aad);
  const token = newSecret('mcb');
  await tx.$executeRaw`
    INSERT INTO mpesa_channels (tenant_id, shortcode, callback_token_hash, callback_token_enc)
    VALUES (${tenantId}, ${shortcode}, ${sha256Hex(token)}, ${encryptSecret(key, token, aad)})
    ON CONFLICT (tenant_id) DO NOTHING`;
  const row = await tx.mpesaChannel.findUniqueOrThrow({ where: { tenantId } });
  return decryptSecret(key, row.callbackTokenEnc, aad);
}

/**
 * The organisation a callback token belongs to, or null. The lookup is by SHA-256 of the token (an index probe
 * reveals nothing about the stored hash); the final comparison is constant-time.
 */
export async function tenantForCallbackToken(app: AppServices, token: string): Promise<number | null> {
  if (!/^mcb_[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const hash = sha256Hex(token);
  const row = await app.db.system((tx) => tx.mpesaChannel.findUnique({ where: { callbackTokenHash: hash } }));
  return row && constantTimeEqual(row.callbackTokenHash, hash) ? row.tenantId : null;
}

export const paymentService = {
  async initiate(ctx: Context, input: StkPushInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const v = validate(input);
    const runtime = paymentsRuntime(ctx.app);
    const rail = runtime.rail;
    const origin = ctx.app.config.publicBaseUrl ?? runtime.origin;
    if (!rail || !origin) throw new AppError('service_unavailable', { detail: 'The mobile-money rail is not running in this deployment' });
    return ctx.tx(async (tx) => {
      // Held until commit: a callback for a checkout id not yet visible waits for this push (settle.service).
      await pushLock(tx, p.tenant.id, 'shared');
      const acct = await resolveAccount(p, tx, v.account, v.purpose);
      // Prompt-bombing guard (stk-throttle.ts); its locks on the phone and the account are held until commit.
      const target = { tenantId: p.tenant.id, phone: v.phone, policyId: acct.policyId };
      await admitPrompt(ctx.app, tx, target);
      const token = await channelToken(ctx.app, tx, p.tenant.id, p.tenant.paybill);
      const timestamp = darajaTimestamp();
      const shortcode = p.tenant.paybill;
      const ack = await rail.stkPush({
        BusinessShortCode: shortcode,
        Password: darajaPassword(shortcode, ctx.app.config.mpesaPasskey, timestamp),
        Timestamp: timestamp,
        TransactionType: 'CustomerPayBillOnline',
        Amount: v.amount,
        PartyA: v.phone,
        PartyB: shortcode,
        PhoneNumber: v.phone,
        CallBackURL: `${origin.replace(/\/$/, '')}${CALLBACK_PATH}/${token}`,
        AccountReference: accountReference(v.account),
        TransactionDesc: v.purpose === 'premium' ? 'Premium' : 'IPF repayment',
      });
      // The phone has been prompted once the rail accepts, whatever happens to this transaction after.
      await countPrompt(ctx.app, target);
      const pr = await tx.paymentRequest.create({
        data: {
          id: randomUUID(),
          tenantId: p.tenant.id,
          merchantRequestId: ack.MerchantRequestID,
          checkoutRequestId: ack.CheckoutRequestID,
          phone: v.phone,
          amountMinor: fromShillings(v.amount),
          account: v.account,
          purpose: v.purpose,
          policyId: acct.policyId,
          debitNoteId: acct.debitNoteId,
          clientId: acct.clientId,
          requestedByUserId: actor.userId,
          apiClientId: p.apiClient.id,
        },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'payment.requested',
        entityType: 'payment_request',
        entityId: pr.id,
        changes: { checkout_request_id: pr.checkoutRequestId, account: v.account, amount: v.amount, purpose: v.purpose },
      });
      return { request: pr, ack };
    });
  },

  /** The prompt's state; a request pending past MPESA_RECONCILE_AFTER_MS is first reconciled with the rail. */
  async status(ctx: Context, checkoutRequestId: string) {
    const p = ctx.principal!;
    const find = () =>
      ctx.tx((tx) => tx.paymentRequest.findFirst({ where: { checkoutRequestId, ...paymentRequestVisibility(p) } }));
    let pr = await find();
    if (!pr) throw notFound('Payment request');
    const rail = paymentsRuntime(ctx.app).rail;
    if (pr.status === 'pending' && rail && Date.now() - pr.createdAt.getTime() >= ctx.app.config.mpesaReconcileAfterMs) {
      const q = await rail.query(checkoutRequestId).catch((err) => {
        ctx.log.warn({ err, checkout_request_id: checkoutRequestId }, 'rail query failed');
        return null;
      });
      if (q && q.ResultCode != null) {
        await applyRailResult(ctx.app, p.tenant.id, checkoutRequestId, { resultCode: q.ResultCode, resultDesc: q.ResultDesc ?? '', items: q.CallbackMetadata?.Item }, 'query');
        pr = (await find())!;
      }
    }
    const receipt = pr.receiptId ? await ctx.tx((tx) => tx.receipt.findUnique({ where: { id: pr!.receiptId! } })) : null;
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
      return { clientNo: client.clientNo, outstandingMinor: outstanding, creditMinor: credit._sum.amountMinor ?? 0n, openDebitNotes: open };
    });
  },
};
