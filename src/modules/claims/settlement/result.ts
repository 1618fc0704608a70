import { type AppServices, createContext } from '../../../context.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { type ConfirmOutcome, confirmPayout, hintOf, type ResultHint } from './confirm.ts';

export type ResultOutcome = ConfirmOutcome | 'malformed' | 'unknown' | 'error';

/**
 * A Result (or queue-timeout notice) POSTed to the organisation's ResultURL: a hint, never proof (docs/claims.md "Claim
 * payouts"). What it claims is recorded in the audit trail (who said what, before anything acts on it); then the
 * rail's status query says what happened to the payout it names, and only that is applied (confirm.ts). A body that
 * names no payout of ours, that the rail denies, or that repeats a final result changes nothing. Nothing needs
 * replaying if the process dies here: the sweep asks the rail about every payout left `sent`.
 */
export async function receiveResult(
  app: AppServices,
  tenantId: number,
  raw: string,
  kind: 'result' | 'timeout',
): Promise<ResultOutcome> {
  const hint = hintOf(raw);
  if (!hint) {
    app.log.warn({ tenant_id: tenantId, kind }, 'B2C Result without an OriginatorConversationID and ConversationID');
    return 'malformed';
  }
  const payment = await app.db.tenant(tenantId, (tx) =>
    tx.claimPayment.findFirst({ where: { reference: hint.originatorConversationId, method: 'mpesa_b2c' } }),
  );
  await recordHint(app, tenantId, hint, kind, payment?.uuid ?? null);
  if (!payment) return 'unknown';
  // A confirmation that fails (the rail cannot be asked now) is left to the sweep: the Result is still accepted.
  const outcome: ResultOutcome = await confirmPayout(app, payment, hint.conversationId).catch((err) => {
    app.log.error({ err, claim_payment_id: payment.id }, 'B2C Result not confirmed yet (the sweep asks the rail)');
    return 'error' as const;
  });
  const claimed = hint.resultCode === 0 ? 'paid' : 'failed';
  if ((outcome === 'paid' || outcome === 'failed') && hint.resultCode != null && outcome !== claimed)
    app.log.warn(
      { claim_payment_id: payment.id, claimed: hint.resultCode, outcome },
      'a B2C Result contradicted the rail: the rail was applied',
    );
  if (outcome === 'denied')
    app.log.warn({ claim_payment_id: payment.id }, 'the rail denies the ConversationID of a B2C Result: ignored');
  return outcome;
}

async function recordHint(
  app: AppServices,
  tenantId: number,
  hint: ResultHint,
  kind: 'result' | 'timeout',
  paymentUuid: string | null,
): Promise<void> {
  const ctx = await createContext({ app, transport: 'job' });
  await app.db.tenant(tenantId, (tx) =>
    recordAudit(ctx, tx, tenantId, {
      action: kind === 'result' ? 'claim_payment.result_received' : 'claim_payment.timeout_received',
      entityType: 'claim_payment',
      entityId: paymentUuid ?? hint.originatorConversationId,
      changes: {
        originator_conversation_id: hint.originatorConversationId,
        conversation_id: hint.conversationId,
        result_code: hint.resultCode,
        result_desc: hint.resultDesc,
        transaction_id: hint.transactionId,
        known_payment: paymentUuid != null,
      },
    }),
  );
}
