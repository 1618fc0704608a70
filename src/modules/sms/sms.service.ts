import type { AppServices, Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { getBalance, ledger, topUp } from './balance.ts';
import { deliverRecipient } from './gateway/deliver.ts';
import { handsetMessages } from './gateway/handset.ts';
import { receiveReport } from './gateway/report.ts';
import { sweepSms } from './gateway/sweep.ts';
import { getMessage, listMessages } from './message/read.ts';
import { queueRecipients } from './message/record.ts';
import { sendSms } from './message/send.ts';
import { sendServiceMessage, type ServiceMessage } from './message/service-message.ts';
import { noticeForEvent } from './notices.ts';
import { createSenderId, listSenderIds, updateSenderId } from './sender-ids.ts';
import { listTemplates, saveTemplate } from './templates.ts';

/**
 * The SMS operations (docs/sms.md "SMS"): one file each under ./message/ (record, send, service messages, read) and
 * ./gateway/ (deliver to the gateway, delivery reports, sweep); the balance ledger, sender IDs and templates beside
 * them; recipient-state.ts is the only writer of a recipient's status.
 */

export { SMS_REPORT_PATH } from './gateway/report.ts';
export { type ServiceMessage } from './message/service-message.ts';
export { type SmsListFilters, type SmsMessageQuery } from './message/read.ts';
export { type SmsBalanceView } from './balance.ts';

export const smsService = {
  /**
   * Records a service message in the outbox inside `tx` (reserving its units from the balance; queued for the
   * gateway after commit) and returns its id. Refused with 422 when the balance cannot cover it. Queued after commit
   * when `tx` is the context's ambient transaction; otherwise the job starts a second later (and retries while the
   * row is not visible yet): a caller that wants it sent at once may call `queueMessage` after its commit.
   */
  sendServiceMessage: (from: Context | AppServices, tx: Tx, m: ServiceMessage): Promise<{ messageId: number }> =>
    sendServiceMessage(from, tx, m),
  /** Queues a committed message's queued recipients for the gateway now. */
  async queueMessage(app: AppServices, messageId: number): Promise<void> {
    const rows = await app.db.system((tx) =>
      tx.smsRecipient.findMany({ where: { messageId, status: 'queued' }, select: { id: true } }),
    );
    await queueRecipients(
      app,
      rows.map((r) => r.id),
    );
  },
  send: sendSms,
  list: listMessages,
  get: getMessage,
  balance: getBalance,
  ledger,
  topUp,
  senderIds: listSenderIds,
  createSenderId,
  updateSenderId,
  templates: listTemplates,
  saveTemplate,
  /** The `sms.send` job: one recipient to the gateway. */
  deliver: deliverRecipient,
  /** POST /api/v1/sms/delivery-report/{callback_token} (src/http/sms-delivery-report.ts). */
  receiveReport,
  /** The `sms.sweep` job. */
  sweep: sweepSms,
  /** The simulated gateway's handset inspection (simulator only, never in production). */
  handsetMessages,
  /** The event dispatcher (jobs/events.worker.ts): the client's notice for payment.received, policy.* events. */
  noticeForEvent,
};
