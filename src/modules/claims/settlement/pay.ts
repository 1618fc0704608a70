import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { AppServices, Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Claim, ClaimPayment } from '../../../generated/prisma/client.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { fromShillings, toShillings } from '../../../lib/money.ts';
import { type FieldError, InvalidStateError, ValidationError } from '../../../lib/problem.ts';
import { B2C_MAX_AMOUNT, B2C_MIN_AMOUNT } from '../../../ports/mobile-money-b2c.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { claimActor } from '../claim-moves.ts';
import { lockVisibleClaim } from '../adjudication/common.ts';
import { applyPaid } from './apply.ts';
import { commitPayout, remainingMinor } from './reconcile.ts';

/** payClaim's input (GraphQL names; REST spells them in snake case). Amounts are whole shillings. */
export interface PayClaimInput {
  amount?: number | null;
  /** Pay exactly what remains (net payable − paid − instructed), cents included. */
  final?: boolean | null;
  method?: string | null;
  payeeType?: string | null;
  payeeName?: string | null;
  phone?: string | null;
  bankName?: string | null;
  bankAccount?: string | null;
  bankReference?: string | null;
  note?: string | null;
}

export const PAYEE_TYPES = ['claimant', 'garage', 'other'] as const;
export const PAYMENT_METHODS = ['mpesa_b2c', 'bank_transfer'] as const;

type Method = (typeof PAYMENT_METHODS)[number];
type Payee = { payeeType: string; payeeName: string; note: string | null };
type Valid = Payee &
  (
    | { method: 'mpesa_b2c'; phone: string }
    | { method: 'bank_transfer'; bankName: string; bankAccount: string; bankReference: string }
  ) & {
    amount: number | null;
    final: boolean;
  };

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The request's shape; what the claim allows (state, remainder) is checked under its lock. */
function validate(input: PayClaimInput): Valid {
  const errors: FieldError[] = [];
  const need = (field: keyof PayClaimInput, max: number, message: string) => {
    const v = text(input[field]);
    if (!v || v.length > max) errors.push({ field, message });
    return v;
  };
  const refuse = (fields: (keyof PayClaimInput)[], why: string) => {
    for (const f of fields) if (input[f] != null) errors.push({ field: f, message: why });
  };
  const method = (input.method ?? '') as Method;
  if (!PAYMENT_METHODS.includes(method)) errors.push({ field: 'method', message: 'mpesa_b2c or bank_transfer' });
  const payeeType = input.payeeType ?? 'claimant';
  if (!(PAYEE_TYPES as readonly string[]).includes(payeeType))
    errors.push({ field: 'payeeType', message: 'claimant, garage or other' });
  const payeeName = need('payeeName', 200, 'who is paid: 1–200 characters');
  const note = text(input.note) || null;
  if (note && note.length > 1000) errors.push({ field: 'note', message: 'at most 1,000 characters' });
  const final = input.final === true;
  const amount = input.amount ?? null;
  if (amount == null ? !final : !Number.isInteger(amount) || amount < 1)
    errors.push({ field: 'amount', message: 'whole shillings, at least 1 (or final: true to pay what remains)' });
  const payee = { payeeType, payeeName, note, amount, final };
  let valid: Valid | null = null;
  if (method === 'mpesa_b2c') {
    const phone = normalisePhone(text(input.phone));
    if (!phone) errors.push({ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' });
    refuse(['bankName', 'bankAccount', 'bankReference'], 'only for bank_transfer');
    valid = { ...payee, method, phone: phone! };
  } else if (method === 'bank_transfer') {
    const bankName = need('bankName', 100, 'the bank: 1–100 characters');
    const bankAccount = need('bankAccount', 50, 'the account paid: 1–50 characters');
    const bankReference = need('bankReference', 100, "the transfer's reference: 1–100 characters");
    refuse(['phone'], 'only for mpesa_b2c');
    valid = { ...payee, method, bankName, bankAccount, bankReference };
  }
  if (errors.length || !valid) throw new ValidationError(errors);
  return valid;
}

const kes = (cents: bigint) =>
  `KES ${(Number(cents) / 100).toLocaleString('en-KE', { minimumFractionDigits: cents % 100n ? 2 : 0 })}`;

/** The amount to pay in cents, within what the claim still allows (422 on `amount` otherwise). */
function amountToPay(claim: Claim, v: Valid): bigint {
  const rest = remainingMinor(claim);
  const refuse = (message: string) => new ValidationError([{ field: 'amount', message }]);
  if (rest <= 0n)
    throw refuse(`nothing remains to pay: ${kes(claim.paidMinor)} paid and ${kes(claim.committedMinor)} instructed`);
  const asked = v.amount == null ? null : fromShillings(v.amount);
  if (v.final && asked != null && asked !== rest) throw refuse(`final pays what remains: ${kes(rest)}`);
  const cents = v.final ? rest : asked!;
  if (cents > rest) throw refuse(`at most ${kes(rest)} remains (net payable less paid and instructed)`);
  if (v.method === 'mpesa_b2c') {
    if (cents % 100n) throw refuse(`M-Pesa pays whole shillings; ${kes(cents)} has cents: pay them by bank transfer`);
    const whole = toShillings(cents);
    if (whole < B2C_MIN_AMOUNT || whole > B2C_MAX_AMOUNT)
      throw refuse(`an M-Pesa payout is KES ${B2C_MIN_AMOUNT}–${B2C_MAX_AMOUNT.toLocaleString('en-KE')}`);
  }
  return cents;
}

/**
 * Pays a claim: a B2C payout is recorded `pending` with its amount committed, and sent by the `claims.payout` job
 * after commit (no rail call here); a bank transfer is recorded and applied at once (the recorded transfer is the
 * proof). Ability claims.manage; the claim must be visible and approved. Under the claim's lock, so two payouts
 * cannot both take the same remainder.
 */
export async function pay(ctx: Context, claimUuid: string, input: PayClaimInput): Promise<ClaimPayment> {
  const actor = requireAbility(ctx.principal!, 'claims.manage');
  const v = validate(input);
  const payment = await ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, claimUuid);
    if (claim.status !== 'approved' || claim.netPayableMinor == null)
      throw new InvalidStateError(`Only an approved claim is paid; this one is ${claim.status}`, {
        claim_status: claim.status,
      });
    const amountMinor = amountToPay(claim, v);
    if (v.method === 'bank_transfer') await refuseRecordedReference(tx, v.bankReference);
    const row = await record(ctx, tx, claim, v, amountMinor, actor.userId);
    if (v.method === 'bank_transfer') await applyPaid(ctx, tx, row.id, bankConfirmation(), claimActor(ctx));
    return tx.claimPayment.findUniqueOrThrow({ where: { id: row.id } });
  });
  if (payment.method === 'mpesa_b2c') await ctx.afterCommit(() => queuePayout(ctx.app, payment.id));
  return payment;
}

/** A bank reference is recorded once per organisation (two claims racing for one reference queue on its lock). */
async function refuseRecordedReference(tx: Tx, reference: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`claim-payment-ref:${reference}`}))`;
  if (await tx.claimPayment.findFirst({ where: { reference }, select: { id: true } }))
    throw new ValidationError([{ field: 'bankReference', message: 'a payment with this reference is recorded' }]);
}

const bankConfirmation = () => ({ transactionId: null, resultCode: null, resultDesc: null });

async function record(ctx: Context, tx: Tx, claim: Claim, v: Valid, amountMinor: bigint, userId: number) {
  const b2c = v.method === 'mpesa_b2c';
  const row = await tx.claimPayment.create({
    data: {
      tenantId: claim.tenantId,
      uuid: randomUUID(),
      claimId: claim.id,
      payeeType: v.payeeType,
      payeeName: v.payeeName,
      method: v.method,
      phone: b2c ? v.phone : null,
      bankName: b2c ? null : v.bankName,
      bankAccount: b2c ? null : v.bankAccount,
      amountMinor,
      status: 'pending',
      // Our OriginatorConversationID: a repeat of it at the rail is the same request, never a second payment.
      reference: b2c ? randomUUID() : v.bankReference,
      note: v.note,
      requestedByUserId: userId,
    },
  });
  if (b2c) {
    const committed = commitPayout(claim, amountMinor).committedMinor;
    await tx.claim.update({ where: { id: claim.id }, data: { committedMinor: committed } });
  }
  await recordAudit(ctx, tx, claim.tenantId, {
    action: b2c ? 'claim_payment.requested' : 'claim_payment.recorded',
    entityType: 'claim_payment',
    entityId: row.uuid,
    changes: { claim_no: claim.claimNo, method: v.method, amount_minor: Number(amountMinor), payee_type: v.payeeType },
  });
  return row;
}

/** After commit: the payout job sends it. Never throws; a payout whose job was lost is sent by the sweep. */
export async function queuePayout(app: AppServices, paymentId: number): Promise<void> {
  const send = app.mobileMoney.sendB2cPayout;
  if (!send) return;
  await send(paymentId).catch((err) => app.log.error({ err, claim_payment_id: paymentId }, 'claim payout not queued'));
}
