import type { TenantFilter } from '../../../db/org-clocks.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { PolicyStatus } from '../../../generated/prisma/enums.ts';
import { nairobiIso } from '../../../lib/dates.ts';
import { emitEvent } from '../../events/event.service.ts';
import { transitionPolicy } from '../policy-state.ts';

/** What the steps of one lifecycle run share: the day judged, the counts, and how one policy is moved. */

export interface LifecycleCounts {
  notTakenUp: number;
  expired: number;
  lapsed: number;
  renewalNotices: number;
  endorsementsExpired: number;
  cancellationsExpired: number;
  renewalQuotesExpired: number;
  failures: number;
}

export interface Candidate {
  id: number;
  tenant_id: number;
}

export interface LifecycleRun {
  app: AppServices;
  /** The day being judged, Y-m-d (Nairobi). */
  asOf: string;
  /** asOf as a database date. */
  asOfDb: Date;
  /** The organisations judged on this day (src/db/org-clocks.ts forEachClock). */
  tenants: TenantFilter;
  counts: LifecycleCounts;
}

/** One policy, one transaction; a failure is logged and counted, the run goes on. */
export async function each(
  run: LifecycleRun,
  c: Candidate,
  fn: (tx: Tx) => Promise<boolean>,
  counter: keyof LifecycleCounts,
) {
  try {
    const moved = await run.app.db.tenant(c.tenant_id, fn);
    if (moved) run.counts[counter] += 1;
  } catch (err) {
    run.counts.failures += 1;
    run.app.log.error({ err, policyId: c.id }, `lifecycle: ${counter} failed`);
  }
}

/** A guarded status move of one policy with its event; false when the policy is no longer in `from`. */
export const move =
  (
    app: AppServices,
    c: Candidate,
    from: PolicyStatus,
    to: PolicyStatus,
    event: 'policy.not_taken_up' | 'policy.expired' | 'policy.lapsed',
    why: string,
  ) =>
  async (tx: Tx) => {
    const policy = await tx.policy.findUnique({
      where: { id: c.id },
      include: { client: true, renewalOf: { select: { id: true } } },
    });
    if (!policy || policy.status !== from) return false;
    // A renewal never taken up lets go of the policy it would have renewed, which may then be renewed again; the
    // history says so in words that name no policy (its reader may not see that one).
    const reason = to === 'not_taken_up' && policy.renewalOf ? `${why}; the policy it renewed is released` : why;
    if (!(await transitionPolicy(tx, c.id, from, to, { tenantId: c.tenant_id, source: 'schedule', reason })))
      return false;
    if (to === 'not_taken_up' && policy.renewalOfId)
      await tx.policy.update({ where: { id: c.id }, data: { renewalOfId: null } });
    await emitEvent(app, tx, c.tenant_id, event, {
      policy_no: policy.policyNo,
      policy_uuid: policy.uuid,
      client_no: policy.client.clientNo,
      status: to,
      previous_status: from,
      reason,
      changed_at: nairobiIso(clockNow()),
    });
    return true;
  };
