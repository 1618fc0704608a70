import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppServices } from '../context.ts';
import { B2C_RESULT_PATH, B2C_TIMEOUT_PATH, claimPaymentService } from '../modules/claims/claim-payment.service.ts';
import { railCallback } from './mpesa-callback.ts';
import { sendJson } from './respond.ts';

const kindOf = (pathname: string): { kind: 'result' | 'timeout'; prefix: string } | null =>
  pathname.startsWith(`${B2C_RESULT_PATH}/`)
    ? { kind: 'result', prefix: B2C_RESULT_PATH }
    : pathname.startsWith(`${B2C_TIMEOUT_PATH}/`)
      ? { kind: 'timeout', prefix: B2C_TIMEOUT_PATH }
      : null;

export const isB2cResultPath = (pathname: string) => kindOf(pathname) !== null;

/**
 * POST /api/v1/payment/b2c/result/{callback_token} (and …/b2c/timeout/{callback_token}, Daraja's QueueTimeOutURL):
 * the B2C rail's Result for a claim payout, a hint and never proof. The token is the organisation's M-Pesa callback
 * token (the same as the STK callback's; unknown, or a source outside MPESA_CALLBACK_ALLOWED_IPS → 404, nothing
 * recorded). What the body claims is recorded, then the rail's status query says what happened to the payout it
 * names, and only that is applied (claims/settlement/result.ts). The rail is answered
 * {"ResultCode": 0, "ResultDesc": "Accepted"} whatever the outcome, a body we cannot read included.
 */
export async function handleB2cResult(
  app: AppServices,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const route = kindOf(pathname)!;
  const { tenantId, raw } = await railCallback(app, req, pathname.slice(route.prefix.length + 1), 'B2C Result');
  const outcome = await claimPaymentService.receiveResult(app, tenantId, raw, route.kind);
  app.log.info({ kind: route.kind, outcome }, 'B2C Result received');
  sendJson(res, 200, { ResultCode: 0, ResultDesc: 'Accepted' });
}
