import { runAdvance } from '../modules/sandbox/advance.ts';
import { advanceSandboxClock, type ClockView, readSandboxClock } from '../modules/sandbox/clock.service.ts';
import { type Command, type CommandGroup, int, lines, ORG, required, str, UsageError, type Values } from './command.ts';
import type { Runtime } from './runtime.ts';

function clockJson(code: string, c: ClockView) {
  return {
    organisation: code,
    now: c.now.toISOString(),
    today: c.today,
    status: c.clock.status,
    ahead_seconds: Math.floor(Number(c.clock.offsetMs) / 1000),
    last_advance: c.run
      ? { uuid: c.run.uuid, from: c.run.fromAt.toISOString(), to: c.run.toAt.toISOString(), days_run: c.run.daysRun }
      : null,
  };
}

async function show(rt: Runtime, v: Values) {
  const code = required(v, 'org');
  const json = clockJson(code, await readSandboxClock(await rt.orgContext(code)));
  return { json, text: lines({ ...json, last_advance: json.last_advance?.to ?? 'none' }) };
}

/** Asks for the advance as the API does, then runs it here and now (the service's job would find it done). */
async function advance(rt: Runtime, v: Values) {
  const code = required(v, 'org');
  const toRaw = str(v, 'to');
  const days = int(v, 'days');
  const to = toRaw === undefined ? undefined : new Date(toRaw);
  if (to && Number.isNaN(to.getTime())) throw new UsageError(`--to must be an ISO 8601 instant, got ${toRaw}`);
  const ctx = await rt.orgContext(code);
  const asked = await advanceSandboxClock(ctx, { to, days });
  await runAdvance(rt.app, ctx.principal!.tenant.id);
  const json = clockJson(code, await readSandboxClock(await rt.orgContext(code)));
  return {
    json,
    text: `${code}: ${asked.now.toISOString()} → ${json.now} (${json.last_advance?.days_run ?? 0} days of daily jobs run)`,
  };
}

const commands: Command[] = [
  { name: 'show', summary: "a sandbox organisation's clock", options: { org: ORG }, run: show },
  {
    name: 'advance',
    summary: "advance a sandbox organisation's clock, running each day's daily jobs on it",
    details:
      'Forward only, at most 731 days at a time; refused for a live organisation. Runs here and waits until the ' +
      'clock stands at the target (sandbox.clock_ready is emitted).',
    options: {
      org: ORG,
      to: {
        type: 'string',
        arg: '<instant>',
        description: 'ISO 8601 instant with offset, e.g. 2027-06-01T09:00:00+03:00',
      },
      days: { type: 'string', arg: '<n>', description: "or whole days on from the clock's now" },
    },
    run: advance,
  },
];

export const sandbox: CommandGroup = { name: 'sandbox', summary: 'sandbox organisation clocks', commands };
