import type { AppServices } from '../../../context.ts';
import { confirmPayout } from './confirm.ts';
import { sendPayout, staleSendingMs } from './send.ts';

/** A pending payout this old has lost its job (a crash between commit and queueing, a lost job): send it. */
export const STRANDED_PENDING_MS = 60_000;
/** A sent payout with no applied Result after this long is asked of the rail (a lost or forged-away Result). */
export const RESULT_GRACE_MS = 60_000;

/**
 * The payout sweep (`claims.payout-sweep`, every minute and at start): payouts left pending or stuck sending are
 * sent (again: our OriginatorConversationID makes the rail call idempotent, so a payout is never paid twice), and
 * payouts sent without a Result are confirmed by the rail's status query. `now` lets a test look ahead.
 */
export async function sweepPayouts(app: AppServices, now = new Date()): Promise<{ resent: number; confirmed: number }> {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const stranded = await app.db.system((tx) =>
    tx.claimPayment.findMany({
      where: {
        method: 'mpesa_b2c',
        OR: [
          { status: 'pending', requestedAt: { lte: ago(STRANDED_PENDING_MS) } },
          { status: 'sending', sentAt: { lt: ago(staleSendingMs(app)) } },
        ],
      },
      orderBy: { id: 'asc' },
      take: 100,
      select: { id: true },
    }),
  );
  let resent = 0;
  for (const { id } of stranded) {
    const out = await sendPayout(app, id, now).catch((err) => {
      app.log.warn({ err, claim_payment_id: id }, 'stranded claim payout not sent yet');
      return null;
    });
    if (out === 'sent' || out === 'refused') resent += 1;
  }
  const unanswered = await app.db.system((tx) =>
    tx.claimPayment.findMany({
      where: { method: 'mpesa_b2c', status: 'sent', sentAt: { lte: ago(RESULT_GRACE_MS) } },
      orderBy: { id: 'asc' },
      take: 200,
    }),
  );
  let confirmed = 0;
  for (const p of unanswered) {
    const out = await confirmPayout(app, p).catch((err) => {
      app.log.warn({ err, claim_payment_id: p.id }, 'claim payout not confirmed yet');
      return null;
    });
    if (out === 'paid' || out === 'failed') confirmed += 1;
    if (out === 'unknown_at_rail')
      app.log.error({ claim_payment_id: p.id }, 'the B2C rail does not know a payout it acknowledged');
  }
  return { resent, confirmed };
}
