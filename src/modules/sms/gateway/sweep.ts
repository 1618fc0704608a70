import type { AppServices } from '../../../context.ts';
import { deliverRecipient, STALE_SENDING_MS } from './deliver.ts';
import { confirmDelivery } from './report.ts';

/** A queued recipient with no due date this old lost its job (a crash between commit and queueing). */
const LOST_JOB_MS = 30_000;
/** A sent message with no delivery report after this long is asked about (a lost report). */
const REPORT_OVERDUE_MS = 10 * 60_000;
const BATCH = 200;

/**
 * The `sms.sweep` job (every minute): recipients whose job was lost or whose retry is due are sent, stale `sending`
 * claims are taken over (the same clientRef: the gateway answers from its first booking), and sent messages whose
 * report never came are asked about. Platform work across organisations (system transactions to find, each
 * recipient then handled in its own organisation's transactions).
 */
export async function sweepSms(app: AppServices, now = new Date()) {
  const due = await app.db.system((tx) =>
    tx.smsRecipient.findMany({
      where: {
        OR: [
          { status: 'queued', nextAttemptAt: { lte: now } },
          { status: 'queued', nextAttemptAt: null, updatedAt: { lt: new Date(now.getTime() - LOST_JOB_MS) } },
          { status: 'sending', updatedAt: { lt: new Date(now.getTime() - STALE_SENDING_MS) } },
        ],
      },
      select: { id: true },
      orderBy: { id: 'asc' },
      take: BATCH,
    }),
  );
  const overdue = await app.db.system((tx) =>
    tx.smsRecipient.findMany({
      where: { status: 'sent', sentAt: { lt: new Date(now.getTime() - REPORT_OVERDUE_MS) } },
      select: { id: true, tenantId: true, gatewayMessageId: true },
      orderBy: { id: 'asc' },
      take: BATCH,
    }),
  );
  let sent = 0;
  let confirmed = 0;
  for (const r of due) {
    const { outcome } = await deliverRecipient(app, r.id, now).catch((err) => {
      app.log.warn({ err, sms_recipient_id: r.id }, 'SMS sweep: send failed');
      return { outcome: 'skipped' as const };
    });
    if (outcome !== 'skipped') sent += 1;
  }
  for (const r of overdue) {
    const o = await confirmDelivery(app, r.tenantId, r.id, r.gatewayMessageId!);
    if (o === 'delivered' || o === 'failed') confirmed += 1;
  }
  return { sent, confirmed };
}
