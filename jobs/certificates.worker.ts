import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { issueDue } from '../src/modules/certificates/certificate.service.ts';
import { cancelAtRegistry } from '../src/modules/certificates/registry-cancel.ts';
import { QUEUES } from './queues.ts';

/** Certificate issuance and cancellation against the registry rail (the simulator unless one is installed). */
export async function registerCertificateWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const issueQ = QUEUES.issueCertificate;
  const cancelQ = QUEUES.cancelCertificate;
  app.registry.send = async (queue, data, opts = {}) => {
    const q = queue === 'issue' ? issueQ : cancelQ;
    await boss.send(q.name, q.payload.parse(data), { ...opts });
  };

  await boss.work<{ policyId: number }>(issueQ.name, { pollingIntervalSeconds: 0.5, batchSize: 1 }, async (jobs) => {
    for (const job of jobs) {
      const { policyId } = issueQ.payload.parse(job.data);
      const out = await issueDue(app, policyId);
      if (out.attempted.length)
        app.log.info({ job: issueQ.name, policy_id: policyId, attempted: out.attempted }, 'certificates attempted');
      // Not a failure: recording the registry's cancellation of the previous series queues this policy again.
      if (out.waiting.length)
        app.log.info(
          { job: issueQ.name, policy_id: policyId, vehicle_ids: out.waiting },
          'certificate re-issue waits for a cancellation at the registry',
        );
      // The registry did not answer: fail the job so pg-boss retries it (the certificate stays issuing, claimable).
      if (out.transient)
        throw out.transient instanceof Error
          ? out.transient
          : new Error('registry unavailable', { cause: out.transient });
    }
  });

  await boss.work<{ certificateId: number }>(
    cancelQ.name,
    { pollingIntervalSeconds: 0.5, batchSize: 1 },
    async (jobs) => {
      for (const job of jobs) {
        const { certificateId } = cancelQ.payload.parse(job.data);
        const status = await cancelAtRegistry(app, certificateId);
        // Still `issued`: the transaction that asked for the cancellation has not committed yet (or rolled back).
        if (status === 'issued') throw new Error(`certificate ${certificateId} is not cancel_pending (yet)`);
      }
    },
  );
}
