import { ALL_TENANTS, type TenantFilter } from '../../db/org-clocks.ts';
import type { AppServices } from '../../context.ts';
import { todayNairobi, toDbDate } from '../../lib/dates.ts';
import { expireEnded } from './lifecycle/expiry.ts';
import { lapseOverdue } from './lifecycle/lapse.ts';
import { markNotTakenUp } from './lifecycle/not-taken-up.ts';
import { sendRenewalNotices } from './lifecycle/renewal-notice.ts';
import type { LifecycleCounts, LifecycleRun } from './lifecycle/run.ts';
import { expireStalePreviews } from './lifecycle/stale-previews.ts';

export type { LifecycleCounts } from './lifecycle/run.ts';

/**
 * The daily lifecycle run (queue policies.lifecycle, 00:05 Nairobi), documented in the docs/policy-lifecycle.md "Policy lifecycle".
 * Candidates are found across organisations (system lookup); each move runs in its own transaction on the policy's
 * organisation and is a guarded transition, so a rerun (or two overlapping runs) changes nothing the first did not.
 *
 * With `asOf` the day being judged (Y-m-d, Nairobi), the steps in ./lifecycle/, in this order:
 * - pending_payment → not_taken_up (not-taken-up.ts). A renewal never taken up releases the policy it renews
 *   (renewalOfId cleared, the history says which), so that policy can be renewed again.
 * - active → expired (expiry.ts), then active → lapsed (lapse.ts): expiry is judged first, so a policy past its end
 *   expires rather than lapses.
 * - renewal notices, once per policy (renewal-notice.ts).
 * - previews past their validity become `expired` (stale-previews.ts).
 */
export async function runLifecycle(
  app: AppServices,
  asOf: string = todayNairobi(),
  tenants: TenantFilter = ALL_TENANTS,
): Promise<LifecycleCounts> {
  const run: LifecycleRun = {
    app,
    asOf,
    asOfDb: toDbDate(asOf),
    tenants,
    counts: {
      notTakenUp: 0,
      expired: 0,
      lapsed: 0,
      renewalNotices: 0,
      endorsementsExpired: 0,
      cancellationsExpired: 0,
      renewalQuotesExpired: 0,
      failures: 0,
    },
  };
  await markNotTakenUp(run);
  await expireEnded(run);
  await lapseOverdue(run);
  await sendRenewalNotices(run);
  await expireStalePreviews(run);
  app.log.info({ asOf, ...run.counts }, 'policy lifecycle run');
  return run.counts;
}
