import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { segmentsOf } from '../../../lib/sms-segments.ts';
import { reserveUnits } from '../balance.ts';

/** The longest message taken: 10 segments (1,530 GSM-7 characters, 670 UCS-2 units). */
export const MAX_SEGMENTS = 10;
/** Recipients per message. */
export const MAX_RECIPIENTS = 1000;

/** A recipient as sent: its normalised number, or the text as given when it is not a Kenyan mobile number. */
export interface Addressee {
  phone: string;
  valid: boolean;
}

/** Normalises and de-duplicates the numbers as given (a number given twice is one recipient, charged once). */
export function addressees(to: readonly string[]): Addressee[] {
  const seen = new Map<string, Addressee>();
  for (const raw of to) {
    const n = normalisePhone(raw);
    const a = n ? { phone: n, valid: true } : { phone: raw.trim().slice(0, 32) || '(empty)', valid: false };
    if (!seen.has(a.phone)) seen.set(a.phone, a);
  }
  return [...seen.values()];
}

export interface NewMessage {
  tenantId: number;
  /** Given when the caller sealed a text to this uuid (sealed-body.ts); otherwise a new one. */
  uuid?: string;
  senderId: string;
  /** The text as shown: a one-time code in it already masked (sealed-body.ts). */
  body: string;
  /** The text as the gateway is to send it, sealed to `uuid`, when it differs from `body`. */
  bodySealed?: string | null;
  purpose: string;
  templateCode?: string | null;
  eventId?: string | null;
  clientId?: number | null;
  createdByUserId?: number | null;
  createdByApiClientId?: number | null;
  to: Addressee[];
}

/**
 * Records a message and its recipients in `tx` and reserves its cost: segments × the recipients that can be sent
 * to. A number that is not a Kenyan mobile number is recorded as a recipient already failed with the gateway's 403
 * InvalidPhoneNumber and costs nothing (it would never reach the gateway). When nothing can be sent, or the balance
 * cannot cover the cost, it throws 422 and the caller's transaction records nothing.
 */
export async function recordMessage(tx: Tx, m: NewMessage): Promise<{ id: number; uuid: string; queued: number[] }> {
  const seg = segmentsOf(m.body);
  if (!m.body.trim()) throw new ValidationError([{ field: 'message', message: 'the message is empty' }]);
  if (seg.segments > MAX_SEGMENTS)
    throw new ValidationError([
      { field: 'message', message: `${seg.segments} segments (${seg.encoding}); at most ${MAX_SEGMENTS}` },
    ]);
  const sendable = m.to.filter((a) => a.valid);
  if (!sendable.length)
    throw new ValidationError([{ field: 'to', message: 'no Kenyan mobile number to send to (2547…, 2541…, 07…)' }]);
  const units = seg.segments * sendable.length;
  const now = new Date();
  const message = await tx.smsMessage.create({
    data: {
      tenantId: m.tenantId,
      uuid: m.uuid ?? randomUUID(),
      senderId: m.senderId,
      body: m.body,
      bodySealed: m.bodySealed ?? null,
      encoding: seg.encoding,
      segments: seg.segments,
      purpose: m.purpose,
      templateCode: m.templateCode ?? null,
      eventId: m.eventId ?? null,
      recipientCount: m.to.length,
      unitsReserved: units,
      clientId: m.clientId ?? null,
      createdByUserId: m.createdByUserId ?? null,
      createdByApiClientId: m.createdByApiClientId ?? null,
      recipients: {
        create: m.to.map((a) =>
          a.valid
            ? { tenantId: m.tenantId, phone: a.phone, units: seg.segments }
            : {
                tenantId: m.tenantId,
                phone: a.phone,
                units: 0,
                released: true,
                status: 'failed',
                statusCode: 403,
                statusText: 'InvalidPhoneNumber',
                failedAt: now,
              },
        ),
      },
    },
    include: { recipients: { select: { id: true, status: true } } },
  });
  const detail = `${units} units (${seg.segments} segment${seg.segments > 1 ? 's' : ''} × ${sendable.length} recipient${sendable.length > 1 ? 's' : ''})`;
  await reserveUnits(tx, m.tenantId, units, message.id, detail);
  return {
    id: message.id,
    uuid: message.uuid,
    queued: message.recipients.filter((r) => r.status === 'queued').map((r) => r.id),
  };
}

/** Hands recipients to the gateway's queue; without a port (no pg-boss here) the minute sweep sends them. */
export async function queueRecipients(app: AppServices, ids: number[], startAfter?: Date): Promise<void> {
  const port = app.sms;
  if (!port) return;
  for (const id of ids)
    await port.queueSend(id, startAfter).catch((err) => app.log.warn({ err, sms_recipient_id: id }, 'SMS not queued'));
}

/**
 * Queues recipients recorded in `tx` once it commits: through the context's after-commit list when `tx` is its
 * ambient transaction; otherwise (a caller's own transaction, or no context) the job is queued to start a second
 * later, and a job that finds no row yet is retried by pg-boss; the minute sweep catches anything left queued.
 */
export async function queueAfterCommit(from: Context | AppServices, tx: Tx, ids: number[]): Promise<void> {
  if ('afterCommit' in from && from.ambientTx === tx) {
    await from.afterCommit(() => queueRecipients(from.app, ids));
    return;
  }
  const app = 'afterCommit' in from ? from.app : from;
  await queueRecipients(app, ids, new Date(Date.now() + 1000));
}
