import type { AppServices } from '../../../context.ts';
import { transitionPaymentRequest } from '../payment-request-state.ts';
import { applyRailResult, type SettleOutcome, shillingsToMinor } from '../settle.service.ts';
import { lineItems, pull, receipted, sameMsisdn } from './rail.ts';

/**
 * A request left `sending` past its call (the process died between the push and recording its acknowledgement, or
 * the rail never answered): the rail's statement says whether its prompt was paid. Paid → receipted from the
 * statement line; not on the statement once MPESA_PROMPT_TTL_SECONDS have passed → failed (the prompt, if it ever
 * reached the phone, has expired); otherwise it stays in doubt for the next look.
 */
export async function resolveInDoubt(
  app: AppServices,
  paymentRequestId: string,
  now = new Date(),
): Promise<SettleOutcome | 'in_doubt' | 'expired' | 'not_in_doubt'> {
  const pr = await app.db.system((tx) => tx.paymentRequest.findUnique({ where: { id: paymentRequestId } }));
  if (!pr || pr.status !== 'sending' || (pr.sendingUntil && pr.sendingUntil > now)) return 'not_in_doubt';
  const lines = await pull(
    app,
    pr.shortcode,
    new Date(pr.createdAt.getTime() - 60_000),
    new Date(now.getTime() + 60_000),
  );
  for (const line of lines) {
    const amountMinor = shillingsToMinor(line.amount);
    if (
      !sameMsisdn(line, pr.phone) ||
      line.billreference !== pr.accountReference ||
      amountMinor == null ||
      amountMinor > pr.amountMinor
    )
      continue;
    if (await receipted(app, line.transactionId)) continue;
    return applyRailResult(
      app,
      pr.tenantId,
      pr.id,
      { resultCode: 0, resultDesc: 'Confirmed from the paybill statement', items: lineItems(line) },
      'statement',
    );
  }
  if (now.getTime() - pr.createdAt.getTime() < app.config.mpesaPromptTtlSeconds * 1000) return 'in_doubt';
  await app.db.tenant(pr.tenantId, (tx) =>
    transitionPaymentRequest(tx, pr.id, 'sending', 'failed', {
      resultDesc: `Not confirmed: the rail never acknowledged this prompt and no payment for it reached the statement within ${app.config.mpesaPromptTtlSeconds} s`,
      resolvedVia: 'statement',
      resolvedAt: new Date(),
      sendingUntil: null,
    }),
  );
  return 'expired';
}
