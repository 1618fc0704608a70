import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import type { QueueDepth } from '../src/ports/metrics.ts';
import { QUEUES } from './queues.ts';

type Handler = (jobs: PgBoss.Job[]) => Promise<unknown>;
type Work = (name: string, ...rest: unknown[]) => Promise<string>;

/**
 * Every worker registered on `boss` after this call reports how each batch it is handed ends (app.metrics): the
 * handler returned (`completed`) or threw (`failed`, logged; pg-boss retries the batch per its queue's policy). A
 * failure once the service is `stopping` is logged at info: the stop interrupted it (its own HTTP server is closed),
 * and it is retried after the restart like any other.
 */
export function instrumentWorkers(boss: PgBoss, app: AppServices, stopping: () => boolean = () => false): void {
  const work = boss.work.bind(boss) as Work;
  const wrapped: Work = (name, ...rest) => {
    const handler = rest.pop() as Handler;
    const counted: Handler = async (jobs) => {
      try {
        const result = await handler(jobs);
        app.metrics.jobOutcome(name, 'completed', jobs.length);
        return result;
      } catch (err) {
        app.metrics.jobOutcome(name, 'failed', jobs.length);
        if (stopping())
          app.log.info({ err, job: name, jobs: jobs.length }, 'job interrupted by the stop (pg-boss retries it)');
        else app.log.warn({ err, job: name, jobs: jobs.length }, 'job failed (pg-boss retries it as its queue says)');
        throw err;
      }
    };
    return work(name, ...rest, counted);
  };
  boss.work = wrapped as typeof boss.work;
}

const STATES = ['created', 'retry', 'active'] as const;

/**
 * Queue depths for /metrics, read at scrape time through pg-boss's own connection: every declared queue in each
 * waiting or running state, zero included (so a queue that empties reads 0, not absent).
 */
export function queueDepthReader(boss: PgBoss): () => Promise<QueueDepth[]> {
  const names = Object.values(QUEUES).map((q) => q.name);
  return async () => {
    // The schema is the one jobs/index.ts and src/process/enqueue.ts start pg-boss in.
    const { rows } = await boss.getDb().executeSql(
      `SELECT name, state::text AS state, count(*)::int AS n FROM pgboss.job
          WHERE name = ANY($1::text[]) AND state IN ('created', 'retry', 'active') GROUP BY name, state`,
      [names],
    );
    const counts = new Map(
      (rows as { name: string; state: string; n: number }[]).map((r) => [`${r.name} ${r.state}`, r.n]),
    );
    return names.flatMap((queue) =>
      STATES.map((state) => ({ queue, state, count: counts.get(`${queue} ${state}`) ?? 0 })),
    );
  };
}
