import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { purgeExpired } from '../src/modules/maintenance/maintenance.service.ts';
import { QUEUES } from './queues.ts';

export async function registerMaintenanceWorker(boss: PgBoss, app: AppServices): Promise<void> {
  const q = QUEUES.purgeExpired;
  await boss.work(q.name, { pollingIntervalSeconds: 30 }, async (jobs) => {
    for (const job of jobs) {
      q.payload.parse(job.data ?? {});
      const r = await purgeExpired(app.db);
      app.log.info({ job: q.name, ...r }, 'purged expired records');
    }
  });
}
