import type { AppServices } from '../../../context.ts';
import { faultPoint } from '../../../lib/faults.ts';
import { confirmCallback } from './callback.ts';

/**
 * A rail callback that passed the gate (its token named organisation `tenantId`): the raw body is committed to
 * mpesa_callbacks first, then confirmed with the rail (callback.ts); one the rail cannot confirm yet stays open for
 * the sweep's replay. Called by the HTTP callback route (src/http/mpesa-callback.ts) and by `admin trigger`, which
 * takes its own flow's callback.
 */
export async function receiveCallback(app: AppServices, tenantId: number, raw: string): Promise<void> {
  let checkoutRequestId: string | null = null;
  try {
    const parsed = JSON.parse(raw) as { Body?: { stkCallback?: { CheckoutRequestID?: unknown } } } | null;
    const id = parsed?.Body?.stkCallback?.CheckoutRequestID;
    checkoutRequestId = typeof id === 'string' ? id.slice(0, 200) : null;
  } catch {
    /* kept as received; closed as malformed */
  }
  // PostgreSQL text cannot hold U+0000; keep the rest of the body verbatim.
  const rawBody = raw.replaceAll('\u0000', '');
  faultPoint(app.config, 'callback.before-store');
  const stored = await app.db.tenant(tenantId, (tx) =>
    tx.mpesaCallback.create({ data: { tenantId, checkoutRequestId, rawBody } }),
  );
  faultPoint(app.config, 'callback.after-store');
  await confirmCallback(app, stored.id, stored).catch((err) => {
    app.log.error({ err, callback_id: String(stored.id) }, 'mpesa callback not confirmed yet (kept for replay)');
  });
}
