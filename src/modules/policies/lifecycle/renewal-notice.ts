import { tenantWhere } from '../../../db/org-clocks.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import type { Tx } from '../../../db/client.ts';
import { addDays, daysBetween, fromDbDate, toDbDate } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { POLICY_RULES } from '../policy-state.ts';
import { each, type LifecycleRun } from './run.ts';

/**
 * Renewal notice: an active policy (not a single trip) ending within renewalNoticeDays of asOf, not yet renewed, gets
 * `policy.renewal_due` once (renewalNoticeAt records it).
 */
export async function sendRenewalNotices(run: LifecycleRun): Promise<void> {
  const { app, asOf, asOfDb } = run;
  const ending = await app.db.system((tx) =>
    tx.policy.findMany({
      where: {
        ...tenantWhere(run.tenants),
        status: 'active',
        renewalNoticeAt: null,
        renewal: { is: null },
        // Single trips are not renewed: no notice.
        productLine: { not: 'travel' },
        endDate: { gte: asOfDb, lte: toDbDate(addDays(asOf, POLICY_RULES.renewalNoticeDays)) },
      },
      select: { id: true, tenantId: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const p of ending) {
    await each(run, { id: p.id, tenant_id: p.tenantId }, (tx) => noticeOnce(run, tx, p), 'renewalNotices');
  }
}

/** Claims the notice on the policy row, so a rerun or an overlapping run sends none again. */
async function noticeOnce(run: LifecycleRun, tx: Tx, p: { id: number; tenantId: number }): Promise<boolean> {
  const r = await tx.policy.updateMany({
    where: { id: p.id, status: 'active', renewalNoticeAt: null },
    data: { renewalNoticeAt: clockNow() },
  });
  if (r.count !== 1) return false;
  const policy = await tx.policy.findUniqueOrThrow({
    where: { id: p.id },
    include: { client: true, insurer: true },
  });
  const end = fromDbDate(policy.endDate);
  await emitEvent(run.app, tx, p.tenantId, 'policy.renewal_due', {
    policy_no: policy.policyNo,
    policy_uuid: policy.uuid,
    client_no: policy.client.clientNo,
    end_date: end,
    days_to_expiry: daysBetween(run.asOf, end),
    insurer: policy.insurer.name,
    premium: amountOf(policy.totalMinor),
  });
  return true;
}
