import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { paymentsRuntime } from '../src/modules/payments/rail.ts';
import { reconcilePending } from '../src/modules/payments/settle.service.ts';
import { MpesaSimulator, resolvePrompt } from './rails/mpesa-simulator.ts';
import { QUEUES } from './queues.ts';

/** The simulated rail (its prompts are resolved here) and the minute sweep (payments, then due certificates). */
export async function registerPaymentWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const simQ = QUEUES.mpesaSimResolve;
  const sweepQ = QUEUES.reconcilePayments;
  const runtime = paymentsRuntime(app);
  runtime.rail = new MpesaSimulator(app, boss);

  await boss.work<{ checkoutRequestId: string }>(simQ.name, { pollingIntervalSeconds: 0.5, batchSize: 10 }, async (jobs) => {
    await Promise.all(
      jobs.map(async (job) => {
        const { checkoutRequestId } = simQ.payload.parse(job.data);
        const r = await resolvePrompt(app, checkoutRequestId);
        app.log.info({ job: simQ.name, checkout_request_id: checkoutRequestId, ...r }, 'simulated prompt resolved');
      }),
    );
  });

  await boss.work(sweepQ.name, { pollingIntervalSeconds: 5 }, async () => {
    const r = await reconcilePending(app);
    if (r.reconciled || r.certificates) app.log.info({ job: sweepQ.name, ...r }, 'payments reconciled');
  });
}
