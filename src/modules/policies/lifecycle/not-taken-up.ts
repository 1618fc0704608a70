import { tenantWhere } from '../../../db/org-clocks.ts';
import { addDays, fromDbDate, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { POLICY_RULES } from '../policy-state.ts';
import { each, type LifecycleRun, move } from './run.ts';

/** The Nairobi calendar day of a timestamp as a database date. */
const bindDay = (d: Date) => todayNairobi(d);

/**
 * pending_payment → not_taken_up: instalment 1 not paid in full and asOf is more than notTakenUpDays after the later
 * of the start date and the bind date.
 */
export async function markNotTakenUp(run: LifecycleRun): Promise<void> {
  const { app, asOf } = run;
  const pending = await app.db.system((tx) =>
    tx.policy.findMany({
      where: {
        ...tenantWhere(run.tenants),
        status: 'pending_payment',
        startDate: { lt: toDbDate(addDays(asOf, -POLICY_RULES.notTakenUpDays)) },
      },
      select: {
        id: true,
        tenantId: true,
        startDate: true,
        createdAt: true,
        debitNotes: { where: { instalmentNo: 1 } },
      },
      orderBy: { id: 'asc' },
    }),
  );
  for (const p of pending) {
    const start = fromDbDate(p.startDate);
    const bound = bindDay(p.createdAt);
    const from = start > bound ? start : bound;
    const deadline = addDays(from, POLICY_RULES.notTakenUpDays);
    if (!(deadline < asOf)) continue;
    const first = p.debitNotes[0];
    if (first && first.paidMinor + first.creditedMinor >= first.amountMinor) continue;
    const reason = `first instalment unpaid ${POLICY_RULES.notTakenUpDays} days after ${from} (deadline ${deadline})`;
    const c = { id: p.id, tenant_id: p.tenantId };
    await each(run, c, move(app, c, 'pending_payment', 'not_taken_up', 'policy.not_taken_up', reason), 'notTakenUp');
  }
}
