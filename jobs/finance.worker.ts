import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { forEachClock } from '../src/db/org-clocks.ts';
import { isYmd } from '../src/lib/dates.ts';
import { decideApplication } from '../src/modules/finance/application/decide.ts';
import { runIpfDaily } from '../src/modules/finance/loan/daily.ts';
import { sweepIpf } from '../src/modules/finance/sweep.ts';
import { fundLoan } from '../src/modules/payments/ledger/disbursement.ts';
import { LenderSimulator } from './rails/lender-simulator.ts';
import { QUEUES } from './queues.ts';

/**
 * The lender rail (the simulator until a real adapter replaces it) and its queues on the app's port. Also called by a
 * process that only enqueues (src/process/enqueue.ts).
 */
export function registerLenderRail(boss: PgBoss, app: AppServices): void {
  app.lender = {
    rail: new LenderSimulator(),
    queueDecision: async (applicationId) => {
      await boss.send(QUEUES.ipfDecide.name, QUEUES.ipfDecide.payload.parse({ applicationId }), {
        singletonKey: `ipf-decide:${applicationId}`,
        singletonSeconds: 10,
      });
    },
    queueDisbursement: async (loanId) => {
      await boss.send(QUEUES.ipfDisburse.name, QUEUES.ipfDisburse.payload.parse({ loanId }), {
        singletonKey: `ipf-disburse:${loanId}`,
        singletonSeconds: 10,
      });
    },
  };
}

/** Decisions, disbursements, the minute sweep and the daily run. */
export async function registerFinanceWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  registerLenderRail(boss, app);
  const decideQ = QUEUES.ipfDecide;
  await boss.work<{ applicationId: number }>(
    decideQ.name,
    { pollingIntervalSeconds: 0.5, batchSize: 5 },
    async (jobs) => {
      for (const job of jobs) {
        const { applicationId } = decideQ.payload.parse(job.data);
        const outcome = await decideApplication(app, applicationId);
        app.log.info({ job: decideQ.name, application_id: applicationId, outcome }, 'premium-finance decision');
      }
    },
  );
  const disburseQ = QUEUES.ipfDisburse;
  await boss.work<{ loanId: number }>(disburseQ.name, { pollingIntervalSeconds: 0.5, batchSize: 5 }, async (jobs) => {
    for (const job of jobs) {
      const { loanId } = disburseQ.payload.parse(job.data);
      const outcome = await fundLoan(app, loanId);
      app.log.info({ job: disburseQ.name, loan_id: loanId, outcome }, 'premium-finance disbursement');
    }
  });
  const sweepQ = QUEUES.sweepIpf;
  await boss.work(sweepQ.name, { pollingIntervalSeconds: 2 }, async () => {
    const r = await sweepIpf(app);
    if (r.decisions || r.disbursements) app.log.info({ job: sweepQ.name, ...r }, 'premium finance swept');
  });
  const dailyQ = QUEUES.ipfDaily;
  await boss.work(dailyQ.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const { asOf } = dailyQ.payload.parse(job.data ?? {});
      // Each organisation on its own day (sandbox clocks: src/db/org-clocks.ts), unless `asOf` names one.
      const counts = await forEachClock(app.db.clocks, asOf && isYmd(asOf) ? asOf : undefined, (d, tenants) =>
        runIpfDaily(app, d, tenants),
      );
      app.log.info({ job: dailyQ.name, ...counts }, 'premium-finance daily job done');
    }
  });
  await boss
    .send(sweepQ.name, {}, { singletonKey: 'ipf-sweep', singletonSeconds: 30 })
    .catch((err) => app.log.warn({ err }, 'premium-finance sweep not queued'));
}
