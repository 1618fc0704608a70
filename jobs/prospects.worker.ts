import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { forEachClock } from '../src/db/org-clocks.ts';
import { isYmd } from '../src/lib/dates.ts';
import { runProspectFollowUps } from '../src/modules/prospects/prospect.service.ts';
import { QUEUES } from './queues.ts';

/** The daily prospect follow-ups (prospect.follow_up_due, once per prospect and date); `asOf` for an on-demand run. */
export async function registerProspectWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const q = QUEUES.prospectsDaily;
  await boss.work(q.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const { asOf } = q.payload.parse(job.data ?? {});
      // Each organisation on its own day (sandbox clocks: src/db/org-clocks.ts), unless `asOf` names one.
      const counts = await forEachClock(app.db.clocks, asOf && isYmd(asOf) ? asOf : undefined, (d, tenants) =>
        runProspectFollowUps(app, d, tenants),
      );
      app.log.info({ job: q.name, ...counts }, 'prospect follow-ups job done');
    }
  });
}
