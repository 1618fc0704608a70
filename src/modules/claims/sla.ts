import { ALL_TENANTS, type TenantFilter, tenantWhere } from '../../db/org-clocks.ts';
import { now as clockNow } from '../../lib/clock.ts';
import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { isYmd, nairobiIso } from '../../lib/dates.ts';
import { emitEvent } from '../events/event.service.ts';
import { claimEventRef } from './claim-moves.ts';
import { CLAIM_RULES, OPEN_CLAIM_STATES } from './claim-state.ts';

export interface SlaCounts {
  breached: number;
  failures: number;
}

/**
 * The daily service-level run (queue claims.daily, 00:10 Nairobi; docs/claims.md "Claims: service levels"): every open claim
 * past its due time gets `claim.sla_breached` once for the status it is in (slaBreachNotifiedAt, cleared by each
 * move, records it in the event's transaction, so reruns and overlapping runs send nothing twice). `asOf` (Y-m-d)
 * judges as at the end of that Nairobi day; without it, now (on the clock of the organisations judged: `tenants`,
 * src/db/org-clocks.ts).
 */
export async function runClaimSla(
  app: AppServices,
  asOf?: string,
  tenants: TenantFilter = ALL_TENANTS,
): Promise<SlaCounts> {
  const at = asOf && isYmd(asOf) ? new Date(Date.parse(`${asOf}T23:59:59.999+03:00`)) : clockNow();
  const counts: SlaCounts = { breached: 0, failures: 0 };
  const due = await app.db.system((tx) =>
    tx.claim.findMany({
      where: {
        ...tenantWhere(tenants),
        status: { in: [...OPEN_CLAIM_STATES] },
        slaDueAt: { lt: at },
        slaBreachNotifiedAt: null,
      },
      select: { id: true, tenantId: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const c of due) {
    try {
      if (await app.db.tenant(c.tenantId, (tx) => noticeOnce(app, tx, c, at))) counts.breached += 1;
    } catch (err) {
      counts.failures += 1;
      app.log.error({ err, claimId: c.id }, 'claims SLA: notice failed');
    }
  }
  app.log.info({ asOf: nairobiIso(at), ...counts }, 'claims SLA run');
  return counts;
}

async function noticeOnce(app: AppServices, tx: Tx, c: { id: number; tenantId: number }, at: Date) {
  const r = await tx.claim.updateMany({
    where: { id: c.id, status: { in: [...OPEN_CLAIM_STATES] }, slaDueAt: { lt: at }, slaBreachNotifiedAt: null },
    data: { slaBreachNotifiedAt: clockNow() },
  });
  if (r.count !== 1) return false;
  const claim = await tx.claim.findUniqueOrThrow({ where: { id: c.id } });
  await emitEvent(app, tx, c.tenantId, 'claim.sla_breached', {
    ...(await claimEventRef(tx, c.id)),
    status_since: nairobiIso(claim.statusChangedAt),
    sla_due_at: nairobiIso(claim.slaDueAt!),
    target_working_days: CLAIM_RULES.slaWorkingDays[claim.status] ?? 0,
    assignee_id: claim.assigneeUserId,
  });
  return true;
}
