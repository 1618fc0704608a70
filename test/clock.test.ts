import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { now, setTestClock } from '../src/lib/clock.ts';
import { loadConfig } from '../src/lib/config.ts';
import { todayNairobi } from '../src/lib/dates.ts';
import { runLifecycle } from '../src/modules/policies/lifecycle.service.ts';
import { TEST_NOW, THIS_YEAR, TODAY, withClock } from './helpers/clock.ts';
import { spawnServer, stopWith, waitHealthy } from './helpers/spawn.ts';
import { Api, useKit } from './kit.ts';

/**
 * The service's clock (src/lib/clock.ts): what day it is in Nairobi decides cover starts, the daily run, renewal
 * periods and vehicle ages. Every test file starts at TEST_NOW; here the clock is moved to the Nairobi midnight
 * (21:00 UTC) and to 29 February, and the expected dates are written out by hand.
 */

describe('the test clock', () => {
  it('todayNairobi (fixed +03:00 arithmetic) names the same day as the Africa/Nairobi time zone, across midnights', () => {
    const zone = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Africa/Nairobi',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    // Every 7 minutes 13 seconds for two years, and the instants either side of each Nairobi midnight of a leap day.
    for (let t = Date.parse('2027-01-01T00:00:00Z'); t < Date.parse('2029-01-01T00:00:00Z'); t += 433_000) {
      expect(todayNairobi(new Date(t))).toBe(zone.format(new Date(t)));
    }
    for (const at of ['2028-02-28T20:59:59.999Z', '2028-02-28T21:00:00.000Z', '2028-02-29T21:00:00.000Z']) {
      expect(todayNairobi(new Date(at))).toBe(zone.format(new Date(at)));
    }
  });

  it('every test file starts at TEST_NOW, whose Nairobi day is TODAY', () => {
    expect(now().getTime()).toBeGreaterThanOrEqual(Date.parse(TEST_NOW));
    expect(todayNairobi()).toBe(TODAY);
  });

  it('a frozen clock stands still; a set one runs on from where it was set', async () => {
    await withClock('2026-06-15T20:59:59.999Z', async () => {
      const first = now().getTime();
      await new Promise((r) => setTimeout(r, 5));
      expect(now().getTime()).toBe(first);
      expect(first).toBe(Date.parse('2026-06-15T20:59:59.999Z'));
    });
    await withClock(
      '2030-01-01T00:00:00Z',
      async () => {
        const first = now().getTime();
        await new Promise((r) => setTimeout(r, 5));
        expect(now().getTime()).toBeGreaterThan(first);
        expect(first).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
      },
      { frozen: false },
    );
    expect(todayNairobi()).toBe(TODAY);
  });

  it('the Nairobi day turns at 21:00 UTC: 20:59:59Z and 21:00:00Z are different days', async () => {
    const day = (at: string) => withClock(at, () => Promise.resolve(todayNairobi()));
    expect(await day('2026-06-15T20:59:59.999Z')).toBe('2026-06-15');
    expect(await day('2026-06-15T21:00:00.000Z')).toBe('2026-06-16');
    // The year and the leap day turn the same way.
    expect(await day('2026-12-31T20:59:59Z')).toBe('2026-12-31');
    expect(await day('2026-12-31T21:00:00Z')).toBe('2027-01-01');
    expect(await day('2028-02-28T21:00:00Z')).toBe('2028-02-29');
    expect(await day('2028-02-29T21:00:00Z')).toBe('2028-03-01');
  });

  it('is refused outside NODE_ENV=test, in-process and through TEST_CLOCK', () => {
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      expect(() => setTestClock('2028-02-29T09:00:00+03:00')).toThrow(/refused outside NODE_ENV=test/);
    } finally {
      process.env.NODE_ENV = env;
    }
    expect(todayNairobi()).toBe(TODAY);
    const at = '2028-02-29T09:00:00+03:00';
    expect(() => loadConfig({ NODE_ENV: 'production', TEST_CLOCK: at })).toThrow(/TEST_CLOCK.*NODE_ENV=production/);
    expect(() => loadConfig({ TEST_CLOCK: at })).toThrow(/TEST_CLOCK.*NODE_ENV=development/);
    expect(() => loadConfig({ NODE_ENV: 'test', TEST_CLOCK: 'yesterday' })).toThrow(/TEST_CLOCK must be an ISO 8601/);
    expect(() => loadConfig({ NODE_ENV: 'test', TEST_CLOCK: '2028-02-29 09:00' })).toThrow(/TEST_CLOCK must be/);
    expect(loadConfig({ NODE_ENV: 'test', TEST_CLOCK: `${at}/frozen` }).testClock).toEqual({
      at: new Date('2028-02-29T06:00:00Z'),
      frozen: true,
    });
    expect(loadConfig({ NODE_ENV: 'test' }).testClock).toBeUndefined();
  });
});

describe('business dates on the service clock', () => {
  const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0, mpesaReconcileAfterMs: 3_600_000 }, { jobs: true });
  const o = t.useOrg({ fast: true });

  const quoteDates = async (api: Api = o.api) => {
    const r = await api.post('/motor/quote', {
      token: o.tokens.staff,
      body: { class: 'Motor', scope: 'TPO', year: THIS_YEAR - 3 },
    });
    expect(r.status, r.text).toBe(200);
    return [r.body.quote.start_date, r.body.quote.end_date];
  };
  const renewalQuote = async (uuid: string) => {
    const r = await o.api.post(`/policies/${uuid}/renewal-quote`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {},
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  };
  const statusOf = async (uuid: string) => (await o.policy(uuid)).status;

  it('a quote one second before the Nairobi midnight starts that day; one second later, the next', async () => {
    expect(await withClock('2026-06-15T20:59:59Z', () => quoteDates())).toEqual(['2026-06-15', '2027-06-14']);
    expect(await withClock('2026-06-15T21:00:00Z', () => quoteDates())).toEqual(['2026-06-16', '2027-06-15']);
  });

  it('the daily run judges the Nairobi day: cover ending today expires at 21:00 UTC, not before', async () => {
    const pol = await o.activePolicy();
    const end = (await o.policy(pol.uuid)).end_date;
    expect(end).toBe('2027-06-14');
    await withClock(`${end}T20:59:59Z`, () => runLifecycle(t.app.services));
    expect(await statusOf(pol.uuid)).toBe('active');
    await withClock(`${end}T21:00:00Z`, () => runLifecycle(t.app.services));
    expect(await statusOf(pol.uuid)).toBe('expired');
  });

  it('cover starting on 29 February 2028: 366 days to 28 February 2029, renewed from 1 March 2029', async () => {
    await withClock('2028-02-29T09:00:00+03:00', async () => {
      // A quote without a start date starts today, the leap day.
      expect(await quoteDates()).toEqual(['2028-02-29', '2029-02-28']);
      const pol = await o.activePolicy({ startDate: '2028-02-29' });
      const rec = await o.policy(pol.uuid);
      expect([rec.start_date, rec.end_date]).toEqual(['2028-02-29', '2029-02-28']);
      // Mid-term money over 366 days: KES 52,500 × 184 / 366 days left from 29 August = 26,393.4426… → 26,393.44.
      const preview = await o.api.post(`/policies/${pol.uuid}/cancellation`, {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: { reason: 'insured_request', requested_by: 'insured', effective_date: '2028-08-29' },
      });
      expect(preview.status, preview.text).toBe(201);
      expect(preview.body.data.refund.days).toMatchObject({ in_period: 366, unearned: 184 });
      expect(preview.body.data.refund.basic_premium_minor).toBe(2_639_344);
      // The renewal starts the day after the end, and is annual from there; its quote is valid three days.
      expect(await renewalQuote(pol.uuid)).toMatchObject({
        start_date: '2029-03-01',
        end_date: '2030-02-28',
        valid_until: '2028-03-03',
      });
    });
  });

  it('cover that ends on 29 February: active on the leap day, expired on 1 March, renewed from 1 March', async () => {
    const pol = await withClock('2027-03-01T09:00:00+03:00', async () => {
      const bound = await o.activePolicy({ startDate: '2027-03-01' });
      const rec = await o.policy(bound.uuid);
      expect([rec.start_date, rec.end_date]).toEqual(['2027-03-01', '2028-02-29']);
      expect(await renewalQuote(bound.uuid)).toMatchObject({ start_date: '2028-03-01', end_date: '2029-02-28' });
      return bound;
    });
    await withClock('2028-02-29T23:59:59+03:00', () => runLifecycle(t.app.services));
    expect(await statusOf(pol.uuid)).toBe('active');
    await withClock('2028-03-01T00:00:00+03:00', () => runLifecycle(t.app.services));
    expect(await statusOf(pol.uuid)).toBe('expired');
  });

  it('a server in a child process runs on TEST_CLOCK, which it refuses outside NODE_ENV=test', async () => {
    const at = '2028-02-29T23:59:59+03:00/frozen';
    const refused = spawnServer({ NODE_ENV: 'production', TEST_CLOCK: at, PORT: '0' });
    expect(await refused.exited).toEqual({ code: 1, signal: null });
    expect(refused.output()).toMatch(/TEST_CLOCK .*refused under NODE_ENV=production/);

    const dataDir = await mkdtemp(path.join(tmpdir(), 'bima-clock-'));
    const child = spawnServer({
      NODE_ENV: 'test',
      TEST_CLOCK: at,
      PORT: '0',
      DATABASE_URL: t.databaseUrl,
      DATA_DIR: dataDir,
      DEMO_SEED: '0',
      LOG_LEVEL: 'info',
    });
    try {
      await waitHealthy(child, 90_000);
      expect(await quoteDates(new Api(child.origin))).toEqual(['2028-02-29', '2029-02-28']);
      // This process's clock is where it was: the child's is its own.
      expect(await quoteDates()).toEqual([TODAY, '2027-06-14']);
    } finally {
      await stopWith(child, 'SIGTERM', 20_000);
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
