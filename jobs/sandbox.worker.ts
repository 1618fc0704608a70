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

/**
 * Days of one organisation's advance a job runs before it queues the rest behind the other organisations' jobs:
 * advances share this queue, and a two-year one (about two and a half minutes of daily jobs) run in one go held up
 * every other organisation's advance until it was done (found by an outside check). A month is a few seconds.
 */
export const ADVANCE_DAYS_PER_TURN = 31;

/** Sandbox clock advances: the one asked for, or (the minute sweep) every advance still in hand, a turn at a time. */
export async function registerSandboxWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  registerSandboxQueue(boss, app);
  const q = QUEUES.sandboxAdvance;
  await boss.work(q.name, { pollingIntervalSeconds: 1 }, async (jobs) => {
    for (const job of jobs) {
      const { tenantId } = q.payload.parse(job.data ?? {});
      for (const id of tenantId ? [tenantId] : await advancingClocks(app)) {
        const outcome = await runAdvance(app, id, { maxDays: ADVANCE_DAYS_PER_TURN });
        // The next turn joins the back of the queue (the minute sweep would pick the advance up anyway).
        if (outcome === 'more') await boss.send(q.name, q.payload.parse({ tenantId: id }));
        if (outcome !== 'idle') app.log.info({ job: q.name, tenantId: id, outcome }, 'sandbox clock advance');
      }
    }
  });
}
