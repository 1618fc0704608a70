import type { AppServices } from '../../../context.ts';
import { confirmCallback } from './callback.ts';

/** Stored callbacks not yet closed (a crash while confirming, a rail that could not be asked): confirmed again. */
export async function replayCallbacks(app: AppServices, now = new Date()): Promise<number> {
  const open = await app.db.system((tx) =>
    tx.mpesaCallback.findMany({
      // Not the ones a request is confirming right now; then back off by the attempts made.
      where: { processedAt: null, receivedAt: { lte: new Date(now.getTime() - 2_000) } },
      orderBy: { id: 'asc' },
      take: 200,
      select: { id: true, attempts: true, lastAttemptAt: true },
    }),
  );
  let closed = 0;
  for (const c of open) {
    const backoffMs = Math.min(60_000, 1_000 * 2 ** Math.min(c.attempts, 6));
    if (c.lastAttemptAt && now.getTime() - c.lastAttemptAt.getTime() < backoffMs) continue;
    const outcome = await confirmCallback(app, c.id).catch((err) => {
      app.log.warn({ err, callback_id: String(c.id) }, 'callback replay failed');
      return null;
    });
    if (outcome) closed += 1;
  }
  return closed;
}
