import { builder } from '../../graphql/builder.ts';
import type { SandboxClockRun } from '../../generated/prisma/client.ts';
import { SANDBOX_RULES } from './clock.ts';
import { advanceSandboxClock, type ClockView, readSandboxClock } from './clock.service.ts';

const SandboxClockStatusEnum = builder.enumType('SandboxClockStatus', {
  description: 'ready: the clock runs on and may be advanced; advancing: an advance is running its days.',
  values: {
    ready: { description: 'No advance is running: the clock runs on in real time (an advance: it has finished).' },
    advancing: { description: 'An advance is running the daily jobs of its days; another cannot start yet.' },
  } as const,
});

const SandboxClockAdvanceRef = builder.objectRef<SandboxClockRun>('SandboxClockAdvance').implement({
  description: 'One advance of a sandbox clock.',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The id of the advance (a UUID).' }),
    status: t.field({
      description: 'advancing while its days run; ready once it has finished.',
      type: SandboxClockStatusEnum,
      resolve: (r) => r.status,
    }),
    from: t.expose('fromAt', { type: 'DateTime', description: 'Where the clock stood when the advance was asked' }),
    to: t.expose('toAt', { type: 'DateTime', description: 'Where the advance takes it' }),
    lastDay: t.exposeString('lastDay', {
      nullable: true,
      description: "The last day whose daily jobs have run on the organisation's clock (Y-m-d)",
    }),
    daysRun: t.exposeInt('daysRun', {
      description: 'How many days the daily jobs have run for so far in this advance.',
    }),
    requestedBy: t.exposeString('requestedBy', {
      description: 'Who asked for the advance (as the audit trail labels actors); null when not recorded.',
      nullable: true,
    }),
    requestedAt: t.expose('createdAt', { description: 'When the advance was asked for.', type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', {
      description: 'When its last day finished (sandbox.clock_ready); null while it is advancing.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

const SandboxClockRef = builder.objectRef<ClockView>('SandboxClock').implement({
  description:
    'A sandbox organisation\'s own clock (docs/operations.md "Sandbox clock"): every time-based rule of the organisation ' +
    '(due dates, lapse and not-taken-up windows, renewal notices, claim service levels, loan reminders and defaults, ' +
    'one-time-code and preview expiry) follows it. It runs on in real time from where it was last advanced.',
  fields: (t) => ({
    now: t.field({ type: 'DateTime', description: "The organisation's now", resolve: (c) => c.now }),
    today: t.field({ type: 'Date', description: "The organisation's business day (Nairobi)", resolve: (c) => c.today }),
    status: t.field({
      description: 'ready, or advancing while an advance runs.',
      type: SandboxClockStatusEnum,
      resolve: (c) => c.clock.status,
    }),
    advancingTo: t.field({
      description: 'Where the running advance takes the clock; null when none is running.',
      type: 'DateTime',
      nullable: true,
      resolve: (c) => c.clock.advancingTo,
    }),
    aheadSeconds: t.int({
      description: 'How far ahead of the real clock it runs, in whole seconds',
      resolve: (c) => Math.floor(Number(c.clock.offsetMs) / 1000),
    }),
    lastAdvance: t.field({
      description: 'The latest advance (running or finished); null when the clock was never advanced.',
      type: SandboxClockAdvanceRef,
      nullable: true,
      resolve: (c) => c.run,
    }),
  }),
});

builder.queryField('sandboxClock', (t) =>
  t.field({
    type: SandboxClockRef,
    authScopes: { read: true },
    description: "The organisation's sandbox clock; 403 sandbox_only for a live organisation.",
    resolve: (_r, _a, ctx) => readSandboxClock(ctx),
  }),
);

builder.mutationField('advanceSandboxClock', (t) =>
  t.field({
    type: SandboxClockRef,
    authScopes: { admin: true },
    description:
      "Advances the organisation's sandbox clock to `to`, or by `days` (one of the two), at least a minute and at most " +
      `${SANDBOX_RULES.maxAdvanceDays} days on. Answers at once with status advancing; each day's daily jobs then run on ` +
      'the clock and sandbox.clock_ready follows. One advance at a time (409 invalid_state). Needs scope admin and an ' +
      'admin user; 403 sandbox_only for a live organisation.',
    args: {
      to: t.arg({ description: 'Advance to this moment (instead of days).', type: 'DateTime', required: false }),
      days: t.arg.int({ description: 'Advance by this many days (instead of to).', required: false }),
    },
    resolve: (_r, a, ctx) => advanceSandboxClock(ctx, { to: a.to ?? undefined, days: a.days ?? undefined }),
  }),
);
