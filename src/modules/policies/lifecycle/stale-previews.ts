import type { LifecycleRun } from './run.ts';

/**
 * Previews past their validity become `expired`: pending endorsements and quoted cancellations whose expiresAt has
 * passed, and quoted renewal quotes whose valid_until is before asOf. Status updates only.
 */
export async function expireStalePreviews(run: LifecycleRun): Promise<void> {
  const { counts, asOfDb } = run;
  const now = new Date();
  await run.app.db.system(async (tx) => {
    counts.endorsementsExpired = (
      await tx.endorsement.updateMany({
        where: { status: 'pending', expiresAt: { lt: now } },
        data: { status: 'expired' },
      })
    ).count;
    counts.cancellationsExpired = (
      await tx.cancellation.updateMany({
        where: { status: 'quoted', expiresAt: { lt: now } },
        data: { status: 'expired' },
      })
    ).count;
    counts.renewalQuotesExpired = (
      await tx.renewalQuote.updateMany({
        where: { status: 'quoted', validUntil: { lt: asOfDb } },
        data: { status: 'expired' },
      })
    ).count;
  });
}
