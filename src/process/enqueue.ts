import pg from 'pg';
import PgBoss from 'pg-boss';
import { QUEUES } from '../../jobs/queues.ts';
import { MpesaSimulator } from '../../jobs/rails/mpesa-simulator.ts';
import { registerB2cRail } from '../../jobs/claims.worker.ts';
import { registerSmsGateway } from '../../jobs/sms.worker.ts';
import { registerLenderRail } from '../../jobs/finance.worker.ts';
import { registerSandboxQueue } from '../../jobs/sandbox.worker.ts';
import type { AppServices } from '../context.ts';
import { START_LOCK_KEY } from '../db/migrate.ts';
import { APP_ROLE } from '../db/tenancy.ts';

/** pg-boss's internal queue that turns its schedules into jobs (pg-boss 10, src/timekeeper.js QUEUES.SEND_IT). */
const PG_BOSS_CRON_QUEUE = '__pgboss__send-it';

/**
 * pg-boss's schema and every declared queue, once per start, under the start lock. pg-boss creates a queue's
 * partition with DDL that deadlocks when two processes create the same new queue at once (seen with two workers
 * starting together on a fresh database); created here first, by one process at a time, the create calls every
 * process makes later (jobs/index.ts, startEnqueueOnly) find the queue and change nothing.
 */
export async function ensureQueues(databaseUrl: string): Promise<void> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [START_LOCK_KEY]);
    const boss = new PgBoss({
      connectionString: databaseUrl,
      schema: 'pgboss',
      max: 1,
      supervise: false,
      schedule: false,
    });
    boss.on('error', () => undefined); // start() rejects with whatever matters
    await boss.start();
    try {
      for (const q of Object.values(QUEUES)) await boss.createQueue(q.name, { name: q.name, ...q.options });
      // pg-boss's own queue for its cron. Its timekeeper creates it at start, swallowing a failure: behind a pooler the
      // service's pg-boss runs as the application role, which may not create pg-boss's partition tables, so without
      // this no schedule ever fired there. Created here, by the owner, and granted below like the rest.
      await boss.createQueue(PG_BOSS_CRON_QUEUE);
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
    await grantQueues(lock);
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [START_LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}

/**
 * pg-boss's tables to the application role, when it exists: behind a pooler the service logs in as a role bound by
 * row-level security (src/db/client.ts ConnectOptions.pooled), and its pg-boss works through the pooler as that role.
 * pg-boss only needs transaction-scoped locks and unnamed statements, so nothing of it needs a session.
 */
async function grantQueues(c: pg.Client): Promise<void> {
  const { rowCount } = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
  if (!rowCount) return;
  await c.query(`GRANT USAGE ON SCHEMA pgboss TO ${APP_ROLE}`);
  await c.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO ${APP_ROLE}`);
  await c.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA pgboss TO ${APP_ROLE}`);
  await c.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgboss TO ${APP_ROLE}`);
}

/**
 * For a process that serves HTTP but runs no job workers (PROCESS_ROLE=web, or a cluster worker other than the one
 * that runs the jobs): a pg-boss that only sends (no workers, no supervision, no cron), so STK pushes reach the rail
 * (its prompts are resolved by the process that runs the jobs) and certificate jobs are queued at once rather than
 * waiting for the sweep. Its queues exist already (ensureQueues, at start): a web process may start before any
 * process that runs jobs.
 */
export async function startEnqueueOnly(app: AppServices, databaseUrl: string): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 2,
    supervise: false,
    schedule: false,
  });
  boss.on('error', (err) => app.log.error({ err }, 'pg-boss error'));
  await boss.start();
  app.mobileMoney.rail = new MpesaSimulator(app, boss);
  registerB2cRail(boss, app);
  registerSandboxQueue(boss, app);
  registerSmsGateway(boss, app);
  registerLenderRail(boss, app);
  app.registry.send = async (queue, data, opts = {}) => {
    const q = queue === 'issue' ? QUEUES.issueCertificate : QUEUES.cancelCertificate;
    await boss.send(q.name, q.payload.parse(data), { ...opts });
  };
  return boss;
}
