import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import { normalisePhone } from '../../lib/identifiers.ts';
import { AppError, ValidationError } from '../../lib/problem.ts';
import { heldEarlySettlement, settleEarly, type EarlySettlement } from '../finance/loan/settlement.ts';
import { requireFinanceOffered } from '../finance/offered.ts';
import { initiateStkPush, STK_MAX_AMOUNT } from './stk/initiate.ts';
import type { IntentRow } from './stk/prompt.ts';
import { promptShillings } from '../../lib/money.ts';
import { fixSettlementAnswer, settlementAnswered } from './settlement-answer.ts';

export interface SettleIpfLoanEarlyInput {
  uuid: string;
  /** false or absent: the quote only; true: hold the figure and collect the payoff. */
  confirm?: boolean | null;
  /** The phone to prompt (default the client's). */
  phone?: string | null;
  /** The caller's Idempotency-Key (REST header): a retried confirmation answers the first and never prompts twice. */
  idempotencyKey?: string | null;
}

export type EarlySettlementAnswer = EarlySettlement & { payment: { request: IntentRow; replayed: boolean } | null };

/**
 * `POST /ipf/loans/{uuid}/early-settlement` and GraphQL `settleIpfLoanEarly` (docs/premium-finance.md "Premium finance: deposit,
 * funding, repayments and early settlement"): the quote (finance/loan/settlement.ts), or the figure held and its
 * payoff collected by an STK push (purpose ipf_repayment, account the loan number) for the payoff rounded up to a
 * whole shilling (M-Pesa's unit; the cents over go to the client's credit), at most Daraja's ceiling (a larger payoff
 * is completed by further ipf_repayment pushes before valid_until). The prompt goes out after the figure is committed,
 * no transaction open while the rail is called; a retry under the same Idempotency-Key answers the first answer
 * byte for byte: the loan and figure as first answered (settlement-answer.ts) and that push's first answer
 * (initiateStkPush's own exactly-once), whatever has been paid, settled or held since.
 */
export async function settleIpfLoanEarly(ctx: Context, input: SettleIpfLoanEarlyInput): Promise<EarlySettlementAnswer> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  requireAbility(p, 'policies.create');
  if (!input.confirm) return { ...(await settleEarly(ctx, input.uuid, false)), payment: null };
  if (input.phone != null && !normalisePhone(input.phone))
    throw new ValidationError([{ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' }]);
  const key = input.idempotencyKey ?? null;
  const replay = key ? await replayConfirmation(ctx, input.uuid, key, input.phone ?? null) : null;
  if (replay) return replay;
  const held = await settleEarly(ctx, input.uuid, true);
  if (held.loan.status !== 'active') return { ...held, payment: null };
  const shillings = promptShillings(held.figures.payoffMinor);
  const payment = await initiateStkPush(ctx, {
    phone: input.phone ?? held.loan.clientPhone,
    amount: Number(shillings < BigInt(STK_MAX_AMOUNT) ? shillings : BigInt(STK_MAX_AMOUNT)),
    account: held.loan.loanNo,
    purpose: 'ipf_repayment',
    idempotencyKey: key,
  });
  // A twin racing this attempt may have fixed its own first: every attempt answers the one that stands.
  const first = await ctx.tx((tx) => fixSettlementAnswer(tx, payment.request.id, held));
  return { ...first, payment };
}

/** The confirmation an earlier use of the key made (its figure and push, replayed), or null when the key is new. */
async function replayConfirmation(
  ctx: Context,
  uuid: string,
  key: string,
  phone: string | null,
): Promise<EarlySettlementAnswer | null> {
  const p = ctx.principal!;
  const prior = await ctx.tx((tx) =>
    tx.paymentRequest.findUnique({
      where: { apiClientId_idempotencyKey: { apiClientId: p.apiClient.id, idempotencyKey: key } },
    }),
  );
  if (!prior) return null;
  const reused = () =>
    new AppError('idempotency_key_reused', {
      detail: 'Idempotency-Key was first used for a different request; use a new key for a new request',
    });
  const stored = settlementAnswered(prior);
  // The same request is the same loan and, when one is named, the same phone (absent: the one the first chose).
  if ((stored && stored.loan.uuid !== uuid) || (phone != null && normalisePhone(phone) !== prior.phone)) throw reused();
  // Fixed by the first attempt: answered as it was, whatever the loan became since. Not fixed (the first attempt
  // died, or its push was in doubt, before it could be): the figure held then, fixed now by the first retry answered.
  const held = stored ?? (await heldEarlySettlement(ctx, uuid));
  if (!held || prior.loanId !== held.loan.id) throw reused();
  const payment = await initiateStkPush(ctx, {
    phone: prior.phone,
    amount: Number(prior.amountMinor / 100n),
    account: prior.account,
    purpose: prior.purpose,
    idempotencyKey: key,
  });
  const first = stored ?? (await ctx.tx((tx) => fixSettlementAnswer(tx, prior.id, held)));
  return { ...first, payment };
}
