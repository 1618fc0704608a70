import { ALL_TENANTS, type TenantFilter } from '../../../db/org-clocks.ts';
import type { AppServices } from '../../../context.ts';
import { createContext } from '../../../context.ts';
import { todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { defaultLoans } from '../daily/default.ts';
import { expireStale } from '../daily/expiry.ts';
import { noticeOverdue } from '../daily/overdue.ts';
import { sendReminders } from '../daily/reminders.ts';
import { type IpfDailyCounts, type IpfDailyRun, noIpfCounts } from '../daily/run.ts';

export type { IpfDailyCounts } from '../daily/run.ts';

/**
 * The daily premium-finance run (queue ipf.daily, 00:20 Nairobi; docs/premium-finance.md "Premium finance: reminders, arrears and
 * default"), for the day `asOf` (Y-m-d, Nairobi; default today). Candidates are found across the organisations that
 * offer premium finance (system lookup); each is handled in its own transaction on its organisation, under the loan's
 * lock, and one failure is logged and counted without stopping the run. Every notice is marked in its own
 * transaction and every move is a guarded transition (transitionIpf), so a rerun or an overlapping run changes
 * nothing. The steps, in ../daily/, in this order:
 * - reminders by SMS before due dates (reminders.ts);
 * - ipf.instalment_overdue once per line past due (overdue.ts), before defaults, so a loan that defaults has had
 *   its notice;
 * - defaults past the lender's grace days, with the cancellation for non-payment refunding the lender (default.ts);
 * - expiry of unfinished applications and of signed agreements whose deposit never came (expiry.ts).
 */
export async function runIpfDaily(
  app: AppServices,
  asOf: string = todayNairobi(),
  tenants: TenantFilter = ALL_TENANTS,
): Promise<IpfDailyCounts> {
  const run: IpfDailyRun = {
    app,
    ctx: await createContext({ app, transport: 'job' }),
    asOf,
    asOfDb: toDbDate(asOf),
    tenants,
    counts: noIpfCounts(),
  };
  await sendReminders(run);
  await noticeOverdue(run);
  await defaultLoans(run);
  await expireStale(run);
  app.log.info({ asOf, ...run.counts }, 'premium-finance daily run');
  return run.counts;
}
