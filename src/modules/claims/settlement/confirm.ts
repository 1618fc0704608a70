import type { AppServices } from '../../../context.ts';
import type { ClaimPayment } from '../../../generated/prisma/client.ts';
import { type DarajaB2cStatus, resultParameter } from '../../../ports/mobile-money-b2c.ts';
import { RailRefusal } from '../../../ports/mobile-money.ts';
import { SYSTEM_ACTOR } from '../claim-moves.ts';
import { type ApplyOutcome, applyFailed, applyPaid } from './apply.ts';
import { OPEN_PAYMENT_STATES } from './payment-state.ts';

/**
 * How a confirmation ends: applied (paid, failed), already final (duplicate), or nothing moved: the rail has no
 * result yet (processing), does not know the payout (unknown_at_rail), names another conversation than the Result
 * did (denied), or confirms an amount other than the payout's (mismatch: logged for a person, the row stays sent).
 */
export type ConfirmOutcome = ApplyOutcome | 'processing' | 'unknown_at_rail' | 'denied' | 'mismatch' | 'no_rail';

/**
 * Asks the rail what happened to payout `p` (by our OriginatorConversationID, never by anything a Result said) and
 * applies that answer. `conversationId`: the one a Result named; a rail that answers with another denies the Result,
 * and nothing moves (the sweep asks again on its own). The rail call is made outside any transaction.
 */
export async function confirmPayout(
  app: AppServices,
  p: ClaimPayment,
  conversationId: string | null = null,
): Promise<ConfirmOutcome> {
  if (!OPEN_PAYMENT_STATES.includes(p.status as never)) return 'duplicate';
  const rail = app.mobileMoney.b2c;
  if (!rail) return 'no_rail';
  let q: DarajaB2cStatus;
  try {
    q = await rail.query(p.reference);
  } catch (err) {
    if (err instanceof RailRefusal) return 'unknown_at_rail';
    throw err;
  }
  if (conversationId != null && q.ConversationID !== conversationId) return 'denied';
  if (q.ResultCode == null) return 'processing';
  const conf = {
    transactionId: null,
    resultCode: q.ResultCode,
    resultDesc: q.ResultDesc ?? null,
    conversationId: q.ConversationID,
  };
  if (q.ResultCode !== 0) return app.db.tenant(p.tenantId, (tx) => applyFailed(tx, p.id, conf));
  const amount = Number(resultParameter(q.ResultParameters, 'TransactionAmount'));
  if (amount * 100 !== Number(p.amountMinor)) {
    app.log.error(
      { claim_payment_id: p.id, rail_amount: amount, amount_minor: Number(p.amountMinor) },
      'the B2C rail confirmed a payout of another amount: left sent for a person to reconcile',
    );
    return 'mismatch';
  }
  const transactionId = String(resultParameter(q.ResultParameters, 'TransactionReceipt') ?? q.TransactionID ?? '');
  return app.db.tenant(p.tenantId, (tx) =>
    applyPaid(app, tx, p.id, { ...conf, transactionId: transactionId || null }, SYSTEM_ACTOR),
  );
}

/** What a Result (or queue-timeout notice) claims, read leniently: only the ids are acted on, and only as a hint. */
export interface ResultHint {
  originatorConversationId: string;
  conversationId: string;
  resultCode: number | null;
  resultDesc: string | null;
  transactionId: string | null;
}

export function hintOf(raw: string): ResultHint | null {
  let r: Record<string, unknown> | undefined;
  try {
    r = (JSON.parse(raw) as { Result?: Record<string, unknown> } | null)?.Result;
  } catch {
    return null;
  }
  // PostgreSQL text cannot hold U+0000 nor a lone surrogate (the round trip through UTF-8 replaces it); anything longer
  // than Daraja's ids is cut (it names no payout of ours then).
  const s = (v: unknown) =>
    typeof v === 'string' ? Buffer.from(v.replaceAll('\u0000', '').slice(0, 200)).toString() || null : null;
  const ocid = s(r?.OriginatorConversationID);
  const conversationId = s(r?.ConversationID);
  if (!r || !ocid || !conversationId) return null;
  return {
    originatorConversationId: ocid,
    conversationId,
    resultCode: typeof r.ResultCode === 'number' ? r.ResultCode : null,
    resultDesc: s(r.ResultDesc),
    transactionId: s(r.TransactionID),
  };
}
