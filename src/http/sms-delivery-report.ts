import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppServices } from '../context.ts';
import { SMS_REPORT_PATH, smsService } from '../modules/sms/sms.service.ts';
import { railCallback } from './mpesa-callback.ts';
import { sendJson } from './respond.ts';

export const isSmsReportPath = (pathname: string) => pathname.startsWith(`${SMS_REPORT_PATH}/`);

/**
 * POST /api/v1/sms/delivery-report/{callback_token}: the SMS gateway's delivery report, a hint and never proof. The
 * token is the organisation's M-Pesa callback token (unknown, or a source outside MPESA_CALLBACK_ALLOWED_IPS → 404,
 * nothing read). The report only names a message: the gateway's own answer about it moves the recipient
 * (src/modules/sms/gateway/report.ts). The gateway is answered 200 whatever the outcome, a body we cannot read
 * included, so it does not retry a report we have no use for.
 */
export async function handleSmsReport(
  app: AppServices,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const { tenantId, raw } = await railCallback(
    app,
    req,
    pathname.slice(SMS_REPORT_PATH.length + 1),
    'SMS delivery report',
  );
  const outcome = await smsService.receiveReport(app, tenantId, raw);
  app.log.info({ outcome }, 'SMS delivery report received');
  sendJson(res, 200, { status: 'accepted', outcome });
}
