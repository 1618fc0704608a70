import { ALL_TENANTS, type TenantFilter, tenantWhere } from '../../../db/org-clocks.ts';
import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { fromDbDate, todayNairobi } from '../../../lib/dates.ts';
import { emitEvent } from '../../events/event.service.ts';
import { followUpDueWhere } from './read.ts';

export interface FollowUpCounts {
  notified: number;
  failures: number;
}

/**
 * The daily follow-up run (queue prospects.daily, 00:15 Nairobi): every open prospect whose next follow-up date is
 * on or before `asOf` gets `prospect.follow_up_due` once for that date. The date notified is recorded in the event's
 * own transaction, by a guarded update, so a rerun or an overlapping run sends nothing twice; a new date is a new
 * notice. Candidates are found across organisations (system lookup); each is handled in its organisation's
 * transaction, and one failure is logged and counted without stopping the run.
 */
export async function runProspectFollowUps(
  app: AppServices,
  asOf: string = todayNairobi(),
  tenants: TenantFilter = ALL_TENANTS,
): Promise<FollowUpCounts> {
  const counts: FollowUpCounts = { notified: 0, failures: 0 };
  const due = await app.db.system((tx) =>
    tx.prospect.findMany({
      where: {
        ...tenantWhere(tenants),
        ...followUpDueWhere(asOf),
        OR: [
          { followUpNotifiedOn: null },
          { NOT: { followUpNotifiedOn: { equals: tx.prospect.fields.nextFollowUpOn } } },
        ],
      },
      select: { id: true, tenantId: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const c of due) {
    try {
      if (await app.db.tenant(c.tenantId, (tx) => notifyOnce(app, tx, c.id, asOf))) counts.notified += 1;
    } catch (err) {
      counts.failures += 1;
      app.log.error({ err, prospectId: c.id }, 'prospect follow-up failed');
    }
  }
  app.log.info({ asOf, ...counts }, 'prospect follow-ups run');
  return counts;
}

/** Claims the notice for the prospect's current date, then announces it; false when there is nothing to send. */
async function notifyOnce(app: AppServices, tx: Tx, id: number, asOf: string): Promise<boolean> {
  const row = await tx.prospect.findUnique({
    where: { id },
    include: { assignee: { select: { id: true, name: true } } },
  });
  const date = row?.nextFollowUpOn;
  if (!row || !date) return false;
  // Guarded on what was read: the same date still set and not yet notified (a concurrent run or edit loses here).
  const claimed = await tx.prospect.updateMany({
    where: {
      id,
      AND: [followUpDueWhere(asOf), { nextFollowUpOn: date }],
      OR: [{ followUpNotifiedOn: null }, { followUpNotifiedOn: { not: date } }],
    },
    data: { followUpNotifiedOn: date },
  });
  if (claimed.count !== 1) return false;
  await emitEvent(app, tx, row.tenantId, 'prospect.follow_up_due', {
    prospect_no: row.prospectNo,
    prospect_uuid: row.uuid,
    name: row.name,
    status: row.status,
    next_follow_up_on: fromDbDate(date),
    assignee_id: row.assignee?.id ?? null,
    assignee_name: row.assignee?.name ?? null,
  });
  return true;
}
