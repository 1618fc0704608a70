import { tenantWhere } from '../../../db/org-clocks.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import type { LifecycleRun } from './run.ts';

/**
 * Previews past their validity become `expired`: pending endorsements and quoted cancellations whose expiresAt has
 * passed, and quoted renewal quotes whose valid_until is before asOf. Status updates only.
 */
export async function expireStalePreviews(run: LifecycleRun): Promise<void> {
  const { counts, asOfDb } = run;
  const now = clockNow();
  await run.app.db.system(async (tx) => {
    counts.endorsementsExpired = (
      await tx.endorsement.updateMany({
        where: { ...tenantWhere(run.tenants), status: 'pending', expiresAt: { lt: now } },
        data: { status: 'expired' },
      })
    ).count;
    counts.cancellationsExpired = (
      await tx.cancellation.updateMany({
        where: { ...tenantWhere(run.tenants), status: 'quoted', expiresAt: { lt: now } },
        data: { status: 'expired' },
      })
    ).count;
    counts.renewalQuotesExpired = (
      await tx.renewalQuote.updateMany({
        where: { ...tenantWhere(run.tenants), status: 'quoted', validUntil: { lt: asOfDb } },
        data: { status: 'expired' },
      })
    ).count;
  });
}
