import { describe, expect, it } from 'vitest';
import { EventBus } from '../src/db/event-bus.ts';
import { forEachClock, OrgClocks, type TenantFilter } from '../src/db/org-clocks.ts';
import { bindOrgClock, clockScope, now, openClockScope, serviceNow, withOrgClock } from '../src/lib/clock.ts';
import { todayNairobi } from '../src/lib/dates.ts';
import { daysToRun, SANDBOX_RULES, targetProblem } from '../src/modules/sandbox/clock.ts';
import { runAdmin, runAdminJson } from './helpers/admin-cli.ts';
import { TODAY, useKit } from './kit.ts';

/**
 * The sandbox clock's rules (docs/operations.md "Sandbox clock"), figures worked by hand; every process hearing an
 * advance; the daily jobs judging each organisation on its own day; the CLI.
 */

const at = (s: string) => new Date(s);

describe('which days an advance runs', () => {
  it('from the day the clock stands on to the last day whose 00:30 run the target reaches', () => {
    expect(SANDBOX_RULES.dailyRunTime).toBe('00:30');
    // 15 June 09:00 → 17 June 00:10: the 17th's run (00:30) is not reached.
    expect(daysToRun(at('2026-06-15T09:00:00+03:00'), at('2026-06-17T00:10:00+03:00'), null)).toEqual([
      '2026-06-15',
      '2026-06-16',
    ]);
    // → 17 June 00:30 exactly: reached.
    expect(daysToRun(at('2026-06-15T09:00:00+03:00'), at('2026-06-17T00:30:00+03:00'), null)).toEqual([
      '2026-06-15',
      '2026-06-16',
      '2026-06-17',
    ]);
    // Resuming after the 15th was run: from the 16th.
    expect(daysToRun(at('2026-06-15T09:00:00+03:00'), at('2026-06-17T00:10:00+03:00'), '2026-06-15')).toEqual([
      '2026-06-16',
    ]);
    // Everything run already: nothing.
    expect(daysToRun(at('2026-06-15T09:00:00+03:00'), at('2026-06-16T10:00:00+03:00'), '2026-06-16')).toEqual([]);
    // Nairobi days, not UTC ones: 22:00 UTC on 28 February is 01:00 on 1 March in Nairobi; 2028 is a leap year.
    expect(daysToRun(at('2028-02-27T12:00:00+03:00'), at('2028-02-29T22:00:00Z'), null)).toEqual([
      '2028-02-27',
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
    ]);
  });

  it('a target at least a minute and at most 731 days ahead', () => {
    const from = at('2026-06-15T09:00:00+03:00');
    expect(targetProblem(from, at('2026-06-15T09:00:59+03:00'))).toMatch(/at least a minute/);
    expect(targetProblem(from, at('2026-06-15T08:00:00+03:00'))).toMatch(/only moves forward/);
    expect(targetProblem(from, at('2026-06-15T09:01:00+03:00'))).toBeNull();
    // 731 days on from 15 June 2026: 365 to 15 June 2027, then 366 (29 February 2028) to 15 June 2028.
    expect(targetProblem(from, at('2028-06-15T09:00:00+03:00'))).toBeNull();
    expect(targetProblem(from, at('2028-06-15T09:00:00.001+03:00'))).toMatch(/at most 731 days/);
  });
});

describe('the organisation clock of the work in hand', () => {
  const DAY = 86_400_000;
  it("now() is the service clock plus the scope's offset; serviceNow() ignores it", async () => {
    expect(todayNairobi()).toBe(TODAY);
    await withOrgClock(7, 10 * DAY, async () => {
      expect(todayNairobi()).toBe('2026-06-25');
      expect(todayNairobi(serviceNow())).toBe(TODAY);
      await Promise.resolve();
      expect(todayNairobi()).toBe('2026-06-25'); // it follows the work across awaits
      await withOrgClock(8, 0, async () => expect(todayNairobi()).toBe(TODAY));
    });
    expect(Math.abs(now().getTime() - serviceNow().getTime())).toBeLessThan(1000);
  });

  it('a request scope is bound once, to its caller; a scope already pinned is never rebound', async () => {
    await openClockScope(async () => {
      bindOrgClock(7, 2 * DAY);
      await Promise.resolve();
      expect(todayNairobi()).toBe('2026-06-17');
      bindOrgClock(8, 5 * DAY);
      expect(clockScope()).toEqual({ tenantId: 7, offsetMs: 2 * DAY });
    });
    await withOrgClock(7, DAY, async () => {
      bindOrgClock(7, 9 * DAY);
      expect(todayNairobi()).toBe('2026-06-16');
    });
    bindOrgClock(7, DAY); // outside any scope: nothing to bind
    expect(clockScope()).toBeUndefined();
  });
});

const t = useKit();
const [sb, other] = t.useOrgs([
  { sandbox: true, tokens: ['readonly'] },
  { sandbox: true, tokens: ['readonly'] },
]);

describe('the CLI, every process, and the daily jobs', { timeout: 240_000 }, () => {
  it('sandbox advance runs the days in the CLI process; the server and a third listener hear it at once', async () => {
    // A third process's view of the clocks: its own LISTEN connection and first read.
    const bus = new EventBus(t.databaseUrl);
    await bus.start();
    const clocks = new OrgClocks(() =>
      t.db.system((tx) =>
        tx.sandboxClock.findMany({ where: { offsetMs: { gt: 0 } }, select: { tenantId: true, offsetMs: true } }),
      ),
    );
    try {
      await clocks.follow(bus, (err) => {
        throw err;
      });
      expect(clocks.offsetFor(sb.id)).toBe(0);
      const out = await runAdminJson(t.databaseUrl, 'sandbox', 'advance', '--org', sb.code, '--days', '10');
      expect(out).toMatchObject({ organisation: sb.code, today: '2026-06-25', status: 'ready' });
      expect(out.last_advance).toMatchObject({ days_run: 11 });
      // The CLI answered after Caches.sync: every listener had applied the new offset by then.
      expect(clocks.offsetFor(sb.id)).toBeGreaterThan(10 * 86_400_000 - 120_000);
      expect(clocks.offsetFor(other.id)).toBe(0);
      expect(t.app.services.db.clocks.offsetFor(sb.id)).toBe(clocks.offsetFor(sb.id));
      const r = await sb.as('readonly').get('/sandbox/clock');
      expect(r.body.data).toMatchObject({ today: '2026-06-25', status: 'ready' });
      const shown = await runAdminJson(t.databaseUrl, 'sandbox', 'show', '--org', sb.code);
      expect(shown).toMatchObject({ today: '2026-06-25', status: 'ready' });
    } finally {
      await bus.close();
    }
  });

  it('refuses a live organisation, naming why', async () => {
    const live = await t.newOrg({ tokens: ['readonly'] });
    const r = await runAdmin(t.databaseUrl, ['sandbox', 'advance', '--org', live.code, '--days', '1']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/sandbox_only|live organisation/);
  });

  it('the scheduled daily jobs judge each organisation on its own day, once', async () => {
    const seen: { day: string; tenants: TenantFilter; scope: number | null | undefined }[] = [];
    const counts = await forEachClock(t.app.services.db.clocks, undefined, async (day, tenants) => {
      seen.push({ day, tenants, scope: clockScope()?.tenantId });
      return { judged: 1 };
    });
    // The service-clock organisations on today, all but the advanced one; the advanced one alone on its day.
    expect(seen[0]).toEqual({ day: TODAY, tenants: { except: [sb.id] }, scope: undefined });
    expect(seen.slice(1)).toEqual([{ day: '2026-06-25', tenants: { only: sb.id }, scope: sb.id }]);
    expect(counts).toEqual({ judged: 2 });
    // An explicit day (an operator's or a test's) judges every organisation on it.
    const explicit: TenantFilter[] = [];
    await forEachClock(t.app.services.db.clocks, '2026-07-01', async (_d, f) => (explicit.push(f), {}));
    expect(explicit).toEqual([{}]);
  });

  it("a unit of work on an organisation's data runs on its clock, whoever starts it", async () => {
    const dayOf = (tenantId: number) => t.app.services.db.tenant(tenantId, async () => todayNairobi());
    expect(await dayOf(sb.id)).toBe('2026-06-25');
    expect(await dayOf(other.id)).toBe(TODAY);
    // A scope already pinned to the organisation (an advance stepping through its days) is kept.
    const pinned = await withOrgClock(sb.id, 0, () => dayOf(sb.id));
    expect(pinned).toBe(TODAY);
  });
});
