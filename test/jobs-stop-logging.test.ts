import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentWorkers } from '../jobs/instrument.ts';
import type { AppServices } from '../src/context.ts';
import { createTestDatabase } from './helpers/db.ts';
import { waitFor } from './kit/wait.ts';

/**
 * How a failed job is logged (jobs/instrument.ts), on a real pg-boss: a warning while the service runs, and info once
 * it is stopping, when its HTTP server is already closed and a simulator's callback to it fails because of the stop
 * (`npm start` stopped by Ctrl-C right after a first start logged such a failure as a warning; test/start.test.ts).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let boss: PgBoss;
let stopping = false;
const logged: { level: string; msg: string; job: string }[] = [];
const outcomes: string[] = [];

const app = {
  log: {
    warn: (o: { job: string }, msg: string) => logged.push({ level: 'warn', msg, job: o.job }),
    info: (o: { job: string }, msg: string) => logged.push({ level: 'info', msg, job: o.job }),
  },
  metrics: { jobOutcome: (name: string, outcome: string) => outcomes.push(`${name} ${outcome}`) },
} as unknown as AppServices;

beforeAll(async () => {
  database = await createTestDatabase('jobstop');
  boss = new PgBoss({ connectionString: database.url, schema: 'pgboss', max: 2 });
  await boss.start();
  instrumentWorkers(boss, app, () => stopping);
  await boss.createQueue('test-failing', { name: 'test-failing', retryLimit: 0 });
  await boss.work('test-failing', { pollingIntervalSeconds: 0.5 }, async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:1');
  });
}, 60_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5_000 }).catch(() => undefined);
  await database?.drop();
});

describe('a failed job', () => {
  it('is a warning while the service runs, and info once it is stopping; counted as failed either way', async () => {
    await boss.send('test-failing', {});
    await waitFor(
      'the first failure logged',
      async () => logged.length,
      (n) => n === 1,
    );
    expect(logged[0]).toMatchObject({ level: 'warn', job: 'test-failing' });
    stopping = true;
    await boss.send('test-failing', {});
    await waitFor(
      'the second failure logged',
      async () => logged.length,
      (n) => n === 2,
    );
    expect(logged[1]).toEqual({
      level: 'info',
      msg: 'job interrupted by the stop (pg-boss retries it)',
      job: 'test-failing',
    });
    expect(outcomes).toEqual(['test-failing failed', 'test-failing failed']);
  });
});
