import type { AppServices } from '../../../context.ts';
import type { SmsDeliveryStatus } from '../../../ports/sms-gateway.ts';
import { moveRecipient } from '../recipient-state.ts';

/** Where the gateway POSTs delivery reports (src/http/sms-delivery-report.ts), + /{callback_token}. */
export const SMS_REPORT_PATH = '/api/v1/sms/delivery-report';

export type ReportOutcome = 'delivered' | 'failed' | 'pending' | 'unknown' | 'already_final' | 'malformed';

/** The report's message id, from JSON (the simulator) or a form body (Africa's Talking posts forms). */
function reportId(raw: string): string | null {
  let id: unknown;
  try {
    id = (JSON.parse(raw) as { id?: unknown } | null)?.id;
  } catch {
    id = new URLSearchParams(raw).get('id');
  }
  return typeof id === 'string' && id.length > 0 && id.length <= 100 ? id : null;
}

/**
 * A delivery report is a hint (docs/architecture.md "The rail rule"): it names a message, and the gateway's own answer about that
 * message (`query`) is what moves the recipient sent → delivered | failed. A report naming a message this
 * organisation never sent, or one the gateway does not confirm, changes nothing. A recipient that failed after the
 * gateway accepted it was sent, and keeps its cost (the gateway charged it).
 */
export async function receiveReport(app: AppServices, tenantId: number, raw: string): Promise<ReportOutcome> {
  const id = reportId(raw);
  if (!id) return 'malformed';
  const r = await app.db.tenant(tenantId, (tx) =>
    tx.smsRecipient.findFirst({ where: { gatewayMessageId: id }, select: { id: true, status: true } }),
  );
  if (!r) return 'unknown';
  if (r.status !== 'sent') return 'already_final';
  return confirmDelivery(app, tenantId, r.id, id);
}

/** Asks the gateway about one sent message and applies its answer (the report handler and the sweep). */
export async function confirmDelivery(
  app: AppServices,
  tenantId: number,
  recipientId: number,
  gatewayMessageId: string,
): Promise<ReportOutcome> {
  const gateway = app.sms?.gateway;
  if (!gateway) return 'pending';
  let s: SmsDeliveryStatus;
  try {
    s = await gateway.query(gatewayMessageId);
  } catch (err) {
    app.log.warn({ err, gateway_message_id: gatewayMessageId }, 'SMS gateway does not know the message');
    return 'unknown';
  }
  if (s.status === 'Success')
    return app.db.tenant(tenantId, async (tx) =>
      (await moveRecipient(tx, recipientId, ['sent'], 'delivered', { deliveredAt: new Date() }))
        ? 'delivered'
        : 'already_final',
    );
  if (s.status === 'Failed' || s.status === 'Rejected')
    return app.db.tenant(tenantId, async (tx) =>
      (await moveRecipient(tx, recipientId, ['sent'], 'failed', {
        failedAt: new Date(),
        statusText: `${s.status}${s.failureReason ? `: ${s.failureReason}` : ''}`.slice(0, 200),
      }))
        ? 'failed'
        : 'already_final',
    );
  return 'pending';
}
