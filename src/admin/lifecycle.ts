import { forEachClock } from '../db/org-clocks.ts';
import { isYmd, todayNairobi, YMD_MESSAGE } from '../lib/dates.ts';
import { runIpfDaily } from '../modules/finance/loan/daily.ts';
import { runLifecycle } from '../modules/policies/lifecycle.service.ts';
import { type Command, type CommandGroup, lines, str, UsageError, type Values } from './command.ts';
import type { Runtime } from './runtime.ts';

/**
 * The daily jobs the workers run at 00:05 and 00:20 Nairobi (jobs/policies.worker.ts, jobs/finance.worker.ts), for
 * one day, across every organisation. Both are guarded transitions: a rerun for the same day changes nothing more.
 */
async function run(rt: Runtime, v: Values) {
  const asked = str(v, 'date');
  if (asked !== undefined && !isYmd(asked))
    throw new UsageError(`--date must be ${YMD_MESSAGE}, got ${JSON.stringify(asked)}`);
  // Without --date each organisation is judged on its own today (a sandbox clock's, src/db/org-clocks.ts).
  const policies = await forEachClock(rt.app.db.clocks, asked, (d, t) => runLifecycle(rt.app, d, t));
  const finance = await forEachClock(rt.app.db.clocks, asked, (d, t) => runIpfDaily(rt.app, d, t));
  const date = asked ?? todayNairobi();
  const json = { date, policies, premium_finance: finance };
  const text = [`date: ${date}`, 'policies:', lines({ ...policies }), 'premium finance:', lines({ ...finance })].join(
    '\n',
  );
  return { json, text };
}

const commands: Command[] = [
  {
    name: 'run',
    summary: 'run the daily policy lifecycle and premium-finance jobs for a date',
    details:
      'Policies: not taken up, expiry, lapse, renewal notices, stale previews. Premium finance: reminders, overdue ' +
      'notices, defaults, expiry of unfinished applications. Messages they record are sent by the running service.',
    options: {
      date: {
        type: 'string',
        arg: '<Y-m-d>',
        description: 'the day judged, for every organisation (default: each its own today)',
      },
    },
    run,
  },
];

export const lifecycle: CommandGroup = { name: 'lifecycle', summary: 'daily jobs', commands };
