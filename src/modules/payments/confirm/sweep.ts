import type { AppServices } from '../../../context.ts';
import { resolveInDoubt } from './in-doubt.ts';
import { confirmPrompt } from './prompt.ts';
import { replayCallbacks } from './replay.ts';
import { reconcileStatement } from './statement.ts';

/**
 * The payments sweep (job payments.reconcile, every PAYMENTS_SWEEP_SECONDS and once at start): stored callbacks
 * replayed, prompts pending past MPESA_RECONCILE_AFTER_MS asked of the rail, requests in doubt looked up on the
 * statement, and the statement reconciled.
 */
export async function sweepPayments(app: AppServices, now = new Date()) {
  const out = { replayed: 0, reconciled: 0, inDoubt: 0, attached: 0, unmatched: 0 };
  if (!app.mobileMoney.rail) return out;
  out.replayed = await replayCallbacks(app, now);
  const stale = await app.db.system((tx) =>
    tx.paymentRequest.findMany({
      where: {
        OR: [
          { status: 'pending', createdAt: { lte: new Date(now.getTime() - app.config.mpesaReconcileAfterMs) } },
          { status: 'sending', sendingUntil: { lte: now } },
        ],
      },
      orderBy: { createdAt: 'asc' },
      take: 200,
      select: { id: true, tenantId: true, status: true },
    }),
  );
  for (const s of stale) {
    const r = await (
      s.status === 'pending' ? confirmPrompt(app, s.tenantId, s.id) : resolveInDoubt(app, s.id, now)
    ).catch((err) => {
      app.log.warn({ err, payment_request_id: s.id }, 'payment reconciliation failed');
      return null;
    });
    if (r === 'settled' || r === 'failed' || r === 'expired') {
      if (s.status === 'pending') out.reconciled += 1;
      else out.inDoubt += 1;
    }
  }
  const st = await reconcileStatement(app, now).catch((err) => {
    app.log.warn({ err }, 'statement reconciliation failed');
    return { attached: 0, unmatched: 0 };
  });
  out.attached = st.attached;
  out.unmatched = st.unmatched;
  return out;
}
