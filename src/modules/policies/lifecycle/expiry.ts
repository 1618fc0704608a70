import { tenantWhere } from '../../../db/org-clocks.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { each, type LifecycleRun, move } from './run.ts';

/** active → expired: the end date is before asOf (the day after the last day of cover). */
export async function expireEnded(run: LifecycleRun): Promise<void> {
  const { app } = run;
  const ended = await app.db.system((tx) =>
    tx.policy.findMany({
      where: { ...tenantWhere(run.tenants), status: 'active', endDate: { lt: run.asOfDb } },
      select: { id: true, tenantId: true, endDate: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const p of ended) {
    const c = { id: p.id, tenant_id: p.tenantId };
    await each(
      run,
      c,
      move(app, c, 'active', 'expired', 'policy.expired', `cover ended ${fromDbDate(p.endDate)}`),
      'expired',
    );
  }
}
