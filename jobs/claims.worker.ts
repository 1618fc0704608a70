import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { forEachClock } from '../src/db/org-clocks.ts';
import { isYmd } from '../src/lib/dates.ts';
import { claimPaymentService } from '../src/modules/claims/claim-payment.service.ts';
import { claimService } from '../src/modules/claims/claim.service.ts';
import { B2cSimulator, resolveB2c } from './rails/b2c-simulator.ts';
import { QUEUES } from './queues.ts';

/** The claims module's workers: payouts, and the daily service-level run. */
export async function registerClaimWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  await registerClaimPayoutWorkers(boss, app);
  await registerClaimSlaWorker(boss, app);
}

/** The daily claims run (service levels); `asOf` (Y-m-d) for an on-demand run. */
async function registerClaimSlaWorker(boss: PgBoss, app: AppServices): Promise<void> {
  const q = QUEUES.claimsDaily;
  await boss.work(q.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const { asOf } = q.payload.parse(job.data ?? {});
      const day = asOf && isYmd(asOf) ? asOf : undefined;
      // Each organisation judged at its own now (sandbox clocks: src/db/org-clocks.ts), or at the end of `asOf`.
      const counts = await forEachClock(app.db.clocks, day, (d, tenants) =>
        claimService.runSla(app, day ? d : undefined, tenants),
      );
      app.log.info({ job: q.name, ...counts }, 'claims daily job done');
    }
  });
}

/**
 * The B2C rail (the simulator until a real adapter replaces it) and the payout queue's sender, on the app's
 * mobile-money port. Also called by a process that only enqueues (src/process/enqueue.ts): its payouts are queued at
 * once and its Results confirmed with the rail's book, while the simulator's bookings resolve where the jobs run.
 */
export function registerB2cRail(boss: PgBoss, app: AppServices): void {
  app.mobileMoney.b2c = new B2cSimulator(app, boss);
  app.mobileMoney.sendB2cPayout = async (paymentId) => {
    await boss.send(QUEUES.claimPayout.name, QUEUES.claimPayout.payload.parse({ paymentId }));
  };
}

/** Payouts sent, the simulator's bookings resolved, and the payout sweep (every minute, and once at start). */
export async function registerClaimPayoutWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const payoutQ = QUEUES.claimPayout;
  const simQ = QUEUES.b2cSimResolve;
  const sweepQ = QUEUES.sweepClaimPayouts;
  registerB2cRail(boss, app);

  await boss.work<{ paymentId: number }>(payoutQ.name, { pollingIntervalSeconds: 0.5, batchSize: 5 }, async (jobs) => {
    await Promise.all(
      jobs.map(async (job) => {
        const { paymentId } = payoutQ.payload.parse(job.data);
        const outcome = await claimPaymentService.send(app, paymentId);
        app.log.info({ job: payoutQ.name, claim_payment_id: paymentId, outcome }, 'claim payout sent');
      }),
    );
  });

  await boss.work<{ originatorConversationId: string }>(
    simQ.name,
    { pollingIntervalSeconds: 0.5, batchSize: 10 },
    async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const { originatorConversationId } = simQ.payload.parse(job.data);
          const r = await resolveB2c(app, originatorConversationId);
          app.log.info({ job: simQ.name, ...r }, 'simulated B2C payout resolved');
        }),
      );
    },
  );

  await boss.work(sweepQ.name, { pollingIntervalSeconds: 0.5 }, async () => {
    const r = await claimPaymentService.sweep(app);
    if (r.resent || r.confirmed) app.log.info({ job: sweepQ.name, ...r }, 'claim payouts swept');
  });
  await boss
    .send(sweepQ.name, {}, { singletonKey: 'claim-payout-sweep', singletonSeconds: 30 })
    .catch((err) => app.log.warn({ err }, 'claim payout sweep not queued'));
}
