import PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { registerEventWorkers } from './events.worker.ts';
import { registerMaintenanceWorker } from './maintenance.worker.ts';
import { registerPaymentWorkers } from './payments.worker.ts';
import { registerCertificateWorkers } from './certificates.worker.ts';
import { registerPolicyWorkers } from './policies.worker.ts';
import { registerProspectWorkers } from './prospects.worker.ts';
import { registerClaimWorkers } from './claims.worker.ts';
import { registerSmsWorkers } from './sms.worker.ts';
import { registerFinanceWorkers } from './finance.worker.ts';
import { registerSandboxWorkers } from './sandbox.worker.ts';
import { instrumentWorkers } from './instrument.ts';
import { QUEUES } from './queues.ts';

export interface StartedJobs {
  boss: PgBoss;
  /**
   * The service has begun to stop (its HTTP server closes first): a job that fails from now on, such as a simulator's
   * callback to that server, is the stop interrupting it, logged at info (pg-boss retries it after the restart).
   */
  markStopping(): void;
  /** Before pg-boss stops: takes no more outbox announcements and waits for the work already taken. */
  quiesce(): Promise<void>;
}

/**
 * Starts pg-boss in its own schema of the same database, creates every declared queue and registers workers.
 * `listenUrl` is where the outbox's LISTEN connects: a session of its own, so the primary directly when `databaseUrl`
 * goes through a pooler in transaction mode (where a LISTEN would hear nothing once its server connection moved on).
 */
export async function startJobs(app: AppServices, databaseUrl: string, listenUrl = databaseUrl): Promise<StartedJobs> {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss', max: 4, supervise: true, schedule: true });
  let stopping = false;
  boss.on('error', (err) => {
    // Once the service stops, its embedded PostgreSQL stopping under a connection pg-boss has not let go of yet (a job
    // still finishing past the stop's timeout) is the stop itself, not a fault.
    if (stopping && (err as { code?: string }).code === '57P01')
      app.log.info({ err }, 'pg-boss: a connection ended by the database stopping');
    else app.log.error({ err }, 'pg-boss error');
  });
  await boss.start();
  instrumentWorkers(boss, app, () => stopping);
  for (const q of Object.values(QUEUES)) {
    await boss.createQueue(q.name, { name: q.name, ...q.options });
    if ('cron' in q && q.cron) await boss.schedule(q.name, q.cron, {}, { tz: 'Africa/Nairobi' });
  }
  await registerMaintenanceWorker(boss, app);
  const outbox = await registerEventWorkers(boss, app, listenUrl);
  await registerPaymentWorkers(boss, app);
  await registerCertificateWorkers(boss, app);
  await registerPolicyWorkers(boss, app);
  await registerProspectWorkers(boss, app);
  await registerClaimWorkers(boss, app);
  await registerSmsWorkers(boss, app);
  await registerFinanceWorkers(boss, app);
  await registerSandboxWorkers(boss, app);
  return {
    boss,
    markStopping: () => {
      stopping = true;
    },
    quiesce: () => {
      stopping = true;
      return outbox.quiesce();
    },
  };
}
