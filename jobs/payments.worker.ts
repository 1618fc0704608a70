import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { paymentsRuntime } from '../src/modules/payments/rail.ts';
import { markCertificateQueued, reconcilePending } from '../src/modules/payments/settle.service.ts';
import { MpesaSimulator, resolvePrompt } from './rails/mpesa-simulator.ts';
import { QUEUES } from './queues.ts';

/** The simulated rail (its prompts are resolved here) and certificate issuance requests. */
export async function registerPaymentWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const simQ = QUEUES.mpesaSimResolve;
  const certQ = QUEUES.issueCertificate;
  const sweepQ = QUEUES.reconcilePayments;
  const runtime = paymentsRuntime(app);
  runtime.rail = new MpesaSimulator(app, boss);
  runtime.queueCertificate = async (policyId, certificateRequestId) => {
    await boss.send(certQ.name, { policyId, certificateRequestId });
  };

  await boss.work<{ checkoutRequestId: string }>(simQ.name, { pollingIntervalSeconds: 0.5, batchSize: 10 }, async (jobs) => {
    await Promise.all(
      jobs.map(async (job) => {
        const { checkoutRequestId } = simQ.payload.parse(job.data);
        const r = await resolvePrompt(app, checkoutRequestId);
        app.log.info({ job: simQ.name, checkout_request_id: checkoutRequestId, ...r }, 'simulated prompt resolved');
      }),
    );
  });

  // The registry is a later issue: for now the request is acknowledged and waits for it.
  await boss.work<{ policyId: number; certificateRequestId: number }>(certQ.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const { certificateRequestId } = certQ.payload.parse(job.data);
      await markCertificateQueued(app, certificateRequestId);
    }
  });

  await boss.work(sweepQ.name, { pollingIntervalSeconds: 5 }, async () => {
    const r = await reconcilePending(app);
    if (r.reconciled || r.certificates) app.log.info({ job: sweepQ.name, ...r }, 'payments reconciled');
  });
}
