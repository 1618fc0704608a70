import type { Prisma, Tx } from '../../db/client.ts';
import { releaseUnits } from './balance.ts';

/**
 * The one writer of an SMS recipient's status (docs/sms.md "SMS"):
 *
 *   queued → sending → sent → delivered | failed
 *   queued | sending → failed     (refused for good: 403, 406 …, or transient answers past the last attempt)
 *   sending → queued              (a transient answer 500/501, or no answer: tried again after a backoff)
 *   sending → sending             (a stale claim taken over: the caller died during the gateway call)
 *
 * Every move is guarded by the state it leaves (an UPDATE … WHERE status IN (…)), so two workers, a report and a
 * sweep racing each other move a recipient once. A recipient that fails before the gateway accepted it gives its
 * units back to the balance, once (`released`); one the gateway accepted and could not deliver was sent, and costs.
 */
export type RecipientStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'failed';

export const RECIPIENT_MOVES: Record<RecipientStatus, readonly RecipientStatus[]> = {
  queued: ['sending', 'failed'],
  // sending → sending: a claim left stale by a caller that died mid-call, taken over (the same attempt).
  sending: ['sending', 'sent', 'queued', 'failed'],
  sent: ['delivered', 'failed'],
  delivered: [],
  failed: [],
};

export const canMove = (from: RecipientStatus, to: RecipientStatus) => RECIPIENT_MOVES[from].includes(to);

/**
 * Moves recipient `id` from one of `from` to `to` (each pair allowed by RECIPIENT_MOVES), with `data`; `where` narrows
 * further. True when this call moved it.
 */
export async function moveRecipient(
  tx: Tx,
  id: number,
  from: readonly RecipientStatus[],
  to: RecipientStatus,
  data: Omit<Prisma.SmsRecipientUpdateManyMutationInput, 'status'> = {},
  where: Prisma.SmsRecipientWhereInput = {},
): Promise<boolean> {
  for (const f of from) if (!canMove(f, to)) throw new Error(`SMS recipient move ${f} → ${to} is not allowed`);
  const r = await tx.smsRecipient.updateMany({
    where: { id, status: { in: [...from] }, ...where },
    data: { ...data, status: to },
  });
  return r.count === 1;
}

/**
 * Fails a recipient the gateway never accepted (from queued or sending) and gives its units back, in the caller's
 * transaction: the move, the recipient's `released`, the message's `unitsReleased`, the balance and its ledger line.
 */
export async function failUnsent(
  tx: Tx,
  id: number,
  from: readonly ('queued' | 'sending')[],
  outcome: { statusCode: number | null; statusText: string },
): Promise<boolean> {
  const moved = await moveRecipient(tx, id, from, 'failed', {
    statusCode: outcome.statusCode,
    statusText: outcome.statusText,
    failedAt: new Date(),
    nextAttemptAt: null,
  });
  if (!moved) return false;
  const r = await tx.smsRecipient.findUniqueOrThrow({ where: { id } });
  const released = await tx.smsRecipient.updateMany({ where: { id, released: false }, data: { released: true } });
  if (released.count === 1 && r.units > 0) {
    await tx.smsMessage.update({ where: { id: r.messageId }, data: { unitsReleased: { increment: r.units } } });
    await releaseUnits(tx, r.tenantId, r.units, r.messageId, `${r.phone}: ${outcome.statusText}`);
  }
  return true;
}
