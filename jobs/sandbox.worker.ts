import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { advancingClocks, runAdvance } from '../src/modules/sandbox/advance.ts';
import { QUEUES } from './queues.ts';

/** Queues an advance for the API (app.sandbox); also called by a process that only enqueues. */
export function registerSandboxQueue(boss: PgBoss, app: AppServices): void {
  app.sandbox = {
    queueAdvance: async (tenantId) => {
      await boss.send(QUEUES.sandboxAdvance.name, QUEUES.sandboxAdvance.payload.parse({ tenantId }));
    },
  };
}

/** Sandbox clock advances: the one asked for, or (the minute sweep) every advance still in hand. */
export async function registerSandboxWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  registerSandboxQueue(boss, app);
  const q = QUEUES.sandboxAdvance;
  await boss.work(q.name, { pollingIntervalSeconds: 1 }, async (jobs) => {
    for (const job of jobs) {
      const { tenantId } = q.payload.parse(job.data ?? {});
      for (const id of tenantId ? [tenantId] : await advancingClocks(app)) {
        const outcome = await runAdvance(app, id);
        if (outcome !== 'idle') app.log.info({ job: q.name, tenantId: id, outcome }, 'sandbox clock advance');
      }
    }
  });
}
