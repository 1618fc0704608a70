import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppServices } from '../context.ts';
import { AppError } from '../lib/problem.ts';
import { CALLBACK_PATH, tenantForCallbackToken } from '../modules/payments/payment.service.ts';
import type { DarajaCallback } from '../modules/payments/rail.ts';
import { applyRailResult, type SettleOutcome } from '../modules/payments/settle.service.ts';
import { readBody } from './body.ts';
import { sendJson } from './respond.ts';

export const isMpesaCallbackPath = (pathname: string) => pathname.startsWith(`${CALLBACK_PATH}/`);

/**
 * POST /api/v1/payment/callback/mpesa/{callback_token}: the rail's callback. No bearer token: the per-organisation
 * callback token in the path authenticates it (unknown → 404, nothing recorded). The raw body is committed to
 * mpesa_callbacks before anything acts on it, so a failure while acting loses nothing; acting is idempotent.
 */
export async function handleMpesaCallback(app: AppServices, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (req.method !== 'POST') throw new AppError('method_not_allowed', { detail: 'Use POST', headers: { allow: 'POST' } });
  // Malformed percent-encoding cannot name any organisation's callback URL: the same 404 as an unknown token.
  let token: string | null;
  try {
    token = decodeURIComponent(pathname.slice(CALLBACK_PATH.length + 1));
  } catch {
    token = null;
  }
  const tenantId = token === null ? null : await tenantForCallbackToken(app, token);
  if (tenantId == null) {
    req.resume();
    throw new AppError('not_found', { detail: 'Unknown callback URL' });
  }
  const raw = (await readBody(req, 64 * 1024)).toString('utf8');
  let cb: DarajaCallback['Body']['stkCallback'] | undefined;
  try {
    cb = (JSON.parse(raw) as DarajaCallback)?.Body?.stkCallback;
  } catch {
    cb = undefined;
  }
  const checkoutRequestId = typeof cb?.CheckoutRequestID === 'string' ? cb.CheckoutRequestID : null;
  // PostgreSQL text cannot hold U+0000; keep the rest of the body verbatim.
  const stored = await app.db.tenant(tenantId, (tx) =>
    tx.mpesaCallback.create({ data: { tenantId, checkoutRequestId, rawBody: raw.replace(/\u0000/g, '') } }),
  );
  let outcome: SettleOutcome | 'error';
  let error: string | null = null;
  if (!cb || !checkoutRequestId || typeof cb.ResultCode !== 'number') outcome = 'malformed';
  else {
    try {
      outcome = await applyRailResult(app, tenantId, checkoutRequestId, { resultCode: cb.ResultCode, resultDesc: String(cb.ResultDesc ?? ''), items: cb.CallbackMetadata?.Item }, 'callback');
    } catch (err) {
      app.log.error({ err, callback_id: String(stored.id) }, 'mpesa callback not applied (kept for replay)');
      outcome = 'error';
      error = (err as Error).message.slice(0, 500);
    }
  }
  await app.db.tenant(tenantId, (tx) => tx.mpesaCallback.update({ where: { id: stored.id }, data: { processedAt: new Date(), outcome, error } }));
  if (outcome === 'error') throw new AppError('internal_error', { detail: 'The callback was recorded but not applied' });
  sendJson(res, 200, { ResultCode: 0, ResultDesc: 'Accepted' });
}
