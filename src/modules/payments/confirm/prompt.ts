import type { AppServices } from '../../../context.ts';
import { applyRailResult, type SettleOutcome } from '../settle.service.ts';
import { railOf } from './rail.ts';

/** Asks the rail about a pending prompt and applies its answer; 'processing' while the customer has not answered. */
export async function confirmPrompt(
  app: AppServices,
  tenantId: number,
  paymentRequestId: string,
  via: 'query' | 'callback' = 'query',
): Promise<SettleOutcome | 'processing'> {
  const pr = await app.db.tenant(tenantId, (tx) =>
    tx.paymentRequest.findUniqueOrThrow({ where: { id: paymentRequestId } }),
  );
  if (pr.status !== 'pending' && pr.status !== 'sending') return 'duplicate';
  if (!pr.checkoutRequestId) return 'processing';
  const q = await railOf(app).query(pr.checkoutRequestId);
  if (q.ResultCode == null) return 'processing';
  return applyRailResult(
    app,
    tenantId,
    pr.id,
    { resultCode: q.ResultCode, resultDesc: q.ResultDesc ?? '', items: q.CallbackMetadata?.Item },
    via,
  );
}
