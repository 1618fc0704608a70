import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { sweepCertificates } from '../src/modules/certificates/certificate.service.ts';
import { sweepPayments } from '../src/modules/payments/confirm.service.ts';
import { MpesaSimulator, resolvePrompt, resumeCallbacks } from './rails/mpesa-simulator.ts';
import { QUEUES } from './queues.ts';

/**
 * The simulated rail (its prompts are resolved here) and the payments sweep: once at start (so what a crash left
 * open is taken up at once), then every PAYMENTS_SWEEP_SECONDS (the minute cron, or a timer when shorter).
 */
export async function registerPaymentWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const simQ = QUEUES.mpesaSimResolve;
  const sweepQ = QUEUES.reconcilePayments;
  app.mobileMoney.rail = new MpesaSimulator(app, boss);

  await boss.work<{ checkoutRequestId: string }>(
    simQ.name,
    { pollingIntervalSeconds: 0.5, batchSize: 10 },
    async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const { checkoutRequestId } = simQ.payload.parse(job.data);
          const r = await resolvePrompt(app, checkoutRequestId);
          app.log.info({ job: simQ.name, checkout_request_id: checkoutRequestId, ...r }, 'simulated prompt resolved');
        }),
      );
    },
  );

  // Callbacks a crash left owed (their prompts outlived the process that pushed them): sent now and with each sweep.
  const resume = async () => {
    const resumed = await resumeCallbacks(app, boss).catch((err) => {
      app.log.warn({ err }, 'simulated rail: owed callbacks not resumed');
      return 0;
    });
    if (resumed) app.log.info({ resumed }, 'simulated rail: owed callbacks resumed');
  };
  await resume();

  await boss.work(sweepQ.name, { pollingIntervalSeconds: 0.5 }, async () => {
    await resume();
    const payments = await sweepPayments(app);
    const certs = await sweepCertificates(app);
    const certificates = certs.issue + certs.cancel;
    if (Object.values(payments).some(Boolean) || certificates)
      app.log.info({ job: sweepQ.name, ...payments, certificates }, 'payments swept');
  });

  const every = app.config.paymentsSweepSeconds;
  const kick = () =>
    boss
      .send(sweepQ.name, {}, { singletonKey: 'payments-sweep', singletonSeconds: every })
      .catch((err) => app.log.warn({ err }, 'payments sweep not queued'));
  await kick();
  if (every < 60) {
    const timer = setInterval(() => void kick(), every * 1000);
    timer.unref();
    boss.once('stopped', () => clearInterval(timer));
  }
}
