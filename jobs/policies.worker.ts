import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { forEachClock } from '../src/db/org-clocks.ts';
import { isYmd } from '../src/lib/dates.ts';
import { runLifecycle } from '../src/modules/policies/lifecycle.service.ts';
import { QUEUES } from './queues.ts';

/** The daily policy lifecycle job (time-based states, renewal notices, stale previews); `asOf` for an on-demand run. */
export async function registerPolicyWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const q = QUEUES.policyLifecycle;
  await boss.work(q.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const { asOf } = q.payload.parse(job.data ?? {});
      // Each organisation on its own day (sandbox clocks: src/db/org-clocks.ts), unless `asOf` names one.
      const counts = await forEachClock(app.db.clocks, asOf && isYmd(asOf) ? asOf : undefined, (d, tenants) =>
        runLifecycle(app, d, tenants),
      );
      app.log.info({ job: q.name, ...counts }, 'policy lifecycle job done');
    }
  });
}
