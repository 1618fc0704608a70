import type { AppServices } from '../../context.ts';
import { addCounts, type TenantFilter } from '../../db/org-clocks.ts';
import { nairobiIso } from '../../lib/dates.ts';
import { serviceNow, withOrgClock } from '../../lib/clock.ts';
import { runClaimSla } from '../claims/sla.ts';
import { emitEvent } from '../events/event.service.ts';
import { runIpfDaily } from '../finance/loan/daily.ts';
import { runLifecycle } from '../policies/lifecycle.service.ts';
import { runProspectFollowUps } from '../prospects/prospect/follow-ups.ts';
import { dailyRunAt, daysToRun } from './clock.ts';

/** Session advisory lock class of sandbox advances (with the organisation id): one advancer per organisation. */
const ADVANCE_LOCK = 7_151_001;

/**
 * One day's daily jobs, in the order the scheduled ones run (00:05, 00:10, 00:15, 00:20 Nairobi), for the
 * organisations given, on the clock of the work in hand. Claims are judged at now (the day's run time).
 */
export async function runDailyJobs(app: AppServices, day: string, tenants: TenantFilter) {
  return {
    policies: await runLifecycle(app, day, tenants),
    claims: await runClaimSla(app, undefined, tenants),
    prospects: await runProspectFollowUps(app, day, tenants),
    premium_finance: await runIpfDaily(app, day, tenants),
  };
}

type DayCounts = Awaited<ReturnType<typeof runDailyJobs>>;

function sumCounts(into: Record<string, Record<string, number>>, day: DayCounts) {
  for (const [job, counts] of Object.entries(day)) into[job] = addCounts(into[job] ?? {}, { ...counts });
  return into;
}

/** The organisations with an advance in hand (system lookup, for the sweep). */
export async function advancingClocks(app: AppServices): Promise<number[]> {
  const rows = await app.db.system((tx) =>
    tx.sandboxClock.findMany({ where: { status: 'advancing' }, select: { tenantId: true } }),
  );
  return rows.map((r) => r.tenantId);
}

/**
 * Carries out the advance in hand of one sandbox organisation (docs/operations.md "Sandbox clock"): for each day
 * from where the clock stood to the target, the clock is set to that day's run time and the day's daily jobs run
 * for this organisation alone; the clock and the run's progress are committed after each day, so a crash resumes at
 * the next day (every daily job is a guarded transition: a day run twice changes nothing more). Then the clock is
 * set to the target, every process is made to hear it (Caches.sync), and the clock is ready: sandbox.clock_ready.
 * One advancer at a time per organisation (a session advisory lock); a second finds it held and leaves.
 * `maxDays`: run at most that many days and answer 'more' when days are left (the worker's turn, so that one
 * organisation's two-year advance does not hold up another's: jobs/sandbox.worker.ts queues the next turn).
 */
export async function runAdvance(
  app: AppServices,
  tenantId: number,
  opts: { maxDays?: number } = {},
): Promise<'done' | 'more' | 'busy' | 'idle'> {
  // A session lock: on a connection of its own, straight to the primary (a pooler's would pass to other clients).
  const lock = await app.db.sessionClient();
  try {
    const { rows } = await lock.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS got', [
      ADVANCE_LOCK,
      tenantId,
    ]);
    if (!rows[0]?.got) return 'busy';
    try {
      return await advanceHeld(app, tenantId, opts.maxDays ?? Infinity);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1, $2)', [ADVANCE_LOCK, tenantId]);
    }
  } finally {
    await lock.end().catch(() => undefined);
  }
}

async function advanceHeld(app: AppServices, tenantId: number, maxDays: number): Promise<'done' | 'more' | 'idle'> {
  const state = await app.db.tenant(tenantId, async (tx) => ({
    clock: await tx.sandboxClock.findUnique({ where: { tenantId } }),
    run: await tx.sandboxClockRun.findFirst({ where: { tenantId, status: 'advancing' }, orderBy: { id: 'desc' } }),
  }));
  const { clock, run } = state;
  if (!clock || clock.status !== 'advancing' || !run) return 'idle';
  let offset = Number(clock.offsetMs);
  const counts = (run.counts ?? {}) as Record<string, Record<string, number>>;
  let turn = 0;
  for (const day of daysToRun(run.fromAt, run.toAt, run.lastDay)) {
    if (turn++ === maxDays) return 'more';
    offset = Math.max(offset, dailyRunAt(day).getTime() - serviceNow().getTime());
    const dayCounts = await withOrgClock(tenantId, offset, () => runDailyJobs(app, day, { only: tenantId }));
    sumCounts(counts, dayCounts);
    await app.db.tenant(tenantId, async (tx) => {
      await tx.sandboxClock.update({ where: { tenantId }, data: { offsetMs: BigInt(offset) } });
      await tx.sandboxClockRun.update({
        where: { id: run.id },
        data: { lastDay: day, daysRun: { increment: 1 }, counts: counts as never },
      });
    });
  }
  offset = Math.max(offset, run.toAt.getTime() - serviceNow().getTime());
  await app.db.tenant(tenantId, (tx) =>
    tx.sandboxClock.update({ where: { tenantId }, data: { offsetMs: BigInt(offset) } }),
  );
  // Every process on the database applies the new offset before anyone is told the clock is ready.
  await app.caches.sync();
  await withOrgClock(tenantId, offset, () =>
    app.db.tenant(tenantId, async (tx) => {
      await tx.sandboxClock.update({ where: { tenantId }, data: { status: 'ready', advancingTo: null } });
      const done = await tx.sandboxClockRun.update({
        where: { id: run.id },
        data: { status: 'ready', finishedAt: new Date() },
      });
      await emitEvent(app, tx, tenantId, 'sandbox.clock_ready', {
        run_uuid: done.uuid,
        from: nairobiIso(done.fromAt),
        to: nairobiIso(done.toAt),
        days_run: done.daysRun,
        counts,
      });
    }),
  );
  app.log.info({ tenantId, to: run.toAt.toISOString() }, 'sandbox clock advanced');
  return 'done';
}
