import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import {
  SMS_ACCEPTED,
  SMS_TRANSIENT,
  type SmsRecipientAnswer,
  type SmsSendRequest,
} from '../../../ports/sms-gateway.ts';
import { bodyToSend } from '../message/sealed-body.ts';
import { failUnsent, moveRecipient } from '../recipient-state.ts';

/** Attempts per recipient before transient answers (500/501, or no answer) fail it for good, units released. */
export const MAX_ATTEMPTS = 4;
/** Calls to the gateway are bounded; a `sending` row older than this was left by a caller that died mid-call. */
export const GATEWAY_TIMEOUT_MS = 15_000;
export const STALE_SENDING_MS = GATEWAY_TIMEOUT_MS + 30_000;

/** Backoff after the n-th failed attempt: 30 s, 2 min, 8 min … (in test mode 200 ms, 400 ms …). */
export function backoffMs(app: AppServices, attempts: number): number {
  const base = app.config.testMode ? 200 : 30_000;
  return Math.min(base * 4 ** Math.max(0, attempts - 1), 3_600_000);
}

export type DeliverOutcome = 'sent' | 'refused' | 'retry' | 'failed' | 'skipped' | 'no_gateway' | 'missing';

/**
 * Hands one recipient to the gateway (the `sms.send` job, and the sweep), by the rail rule, in three steps:
 *  1. a short transaction claims it (queued and due → sending, one more attempt; or a stale sending again with the
 *     same attempt, so the same clientRef);
 *  2. the gateway is called outside any transaction, with our clientRef: a repeat of it is answered from the
 *     gateway's first booking, so an attempt whose answer was lost is simply sent again, never twice;
 *  3. a short transaction records the answer: 101 → sent; a permanent refusal → failed, units released; a transient
 *     one (or none) → queued again after a backoff, or failed and released after MAX_ATTEMPTS.
 * Returns the outcome and, for a retry, when it is due (the caller queues it then).
 */
export async function deliverRecipient(
  app: AppServices,
  recipientId: number,
  now = new Date(),
): Promise<{ outcome: DeliverOutcome; retryAt?: Date }> {
  const port = app.sms;
  if (!port) return { outcome: 'no_gateway' };
  const head = await app.db.system((tx) =>
    tx.smsRecipient.findUnique({ where: { id: recipientId }, select: { tenantId: true } }),
  );
  if (!head) return { outcome: 'missing' };
  const { tenantId } = head;
  const reportUrl = await port.reportUrl(tenantId);
  const req = await app.db.tenant(tenantId, (tx) => claim(app, tx, recipientId, reportUrl, now));
  if (!req) return { outcome: 'skipped' };
  let answer: SmsRecipientAnswer | undefined;
  try {
    const res = await withTimeout(port.gateway.send(req.request), GATEWAY_TIMEOUT_MS);
    answer = res.SMSMessageData.Recipients.find((r) => r.number.replace(/^\+/, '') === req.phone);
  } catch (err) {
    app.log.warn({ err, sms_recipient_id: recipientId }, 'SMS gateway did not answer');
  }
  return app.db.tenant(tenantId, (tx) => record(app, tx, recipientId, req.attempts, answer));
}

async function claim(app: AppServices, tx: Tx, id: number, reportUrl: string, now: Date) {
  const fresh = await moveRecipient(
    tx,
    id,
    ['queued'],
    'sending',
    { attempts: { increment: 1 }, nextAttemptAt: null },
    { OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }] },
  );
  const stale =
    !fresh &&
    (await moveRecipient(
      tx,
      id,
      ['sending'],
      'sending',
      {},
      {
        updatedAt: { lt: new Date(now.getTime() - STALE_SENDING_MS) },
      },
    ));
  if (!fresh && !stale) return null;
  const r = await tx.smsRecipient.findUniqueOrThrow({ where: { id }, include: { message: true } });
  const tenant = await tx.tenant.findUniqueOrThrow({ where: { id: r.tenantId }, select: { code: true } });
  const request: SmsSendRequest = {
    username: tenant.code.toLowerCase(),
    to: `+${r.phone}`,
    // The text as sent: a one-time code is opened here, for the gateway alone (docs/sms.md "One-time codes").
    message: bodyToSend(app.config, r.message),
    from: r.message.senderId,
    clientRef: `${r.tenantId}-${r.id}-${r.attempts}`,
    reportUrl,
  };
  return { request, phone: r.phone, attempts: r.attempts };
}

async function record(
  app: AppServices,
  tx: Tx,
  id: number,
  attempts: number,
  a: SmsRecipientAnswer | undefined,
): Promise<{ outcome: DeliverOutcome; retryAt?: Date }> {
  if (a && SMS_ACCEPTED.includes(a.statusCode)) {
    const moved = await moveRecipient(tx, id, ['sending'], 'sent', {
      gatewayMessageId: a.messageId,
      statusCode: a.statusCode,
      statusText: a.status,
      sentAt: new Date(),
    });
    await forgetSealedBody(tx, id);
    return { outcome: moved ? 'sent' : 'skipped' };
  }
  const outcome = a ? { statusCode: a.statusCode, statusText: a.status } : { statusCode: null, statusText: 'NoAnswer' };
  if (a && !SMS_TRANSIENT.includes(a.statusCode)) {
    await failUnsent(tx, id, ['sending'], outcome);
    await forgetSealedBody(tx, id);
    return { outcome: 'refused' };
  }
  if (attempts >= MAX_ATTEMPTS) {
    await failUnsent(tx, id, ['sending'], outcome);
    await forgetSealedBody(tx, id);
    return { outcome: 'failed' };
  }
  const retryAt = new Date(Date.now() + backoffMs(app, attempts));
  await moveRecipient(tx, id, ['sending'], 'queued', { ...outcome, nextAttemptAt: retryAt });
  return { outcome: 'retry', retryAt };
}

/** Once no recipient of the message is left to send, its sealed text (a one-time code) is kept no longer. */
async function forgetSealedBody(tx: Tx, recipientId: number): Promise<void> {
  const r = await tx.smsRecipient.findUniqueOrThrow({ where: { id: recipientId }, select: { messageId: true } });
  await tx.smsMessage.updateMany({
    where: {
      id: r.messageId,
      bodySealed: { not: null },
      recipients: { none: { status: { in: ['queued', 'sending'] } } },
    },
    data: { bodySealed: null },
  });
}

function withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, no) => (timer = setTimeout(() => no(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
