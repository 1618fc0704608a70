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
  const date = str(v, 'date') ?? todayNairobi();
  if (!isYmd(date)) throw new UsageError(`--date must be ${YMD_MESSAGE}, got ${JSON.stringify(date)}`);
  const policies = await runLifecycle(rt.app, date);
  const finance = await runIpfDaily(rt.app, date);
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
    options: { date: { type: 'string', arg: '<Y-m-d>', description: 'the day judged (default: today in Nairobi)' } },
    run,
  },
];

export const lifecycle: CommandGroup = { name: 'lifecycle', summary: 'daily jobs', commands };
