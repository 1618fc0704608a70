import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { now as serviceClock } from '../src/lib/clock.ts';
import { expectProblem, INSTANT_RAIL, lastCode, type Org, requestCode, TODAY, useKit, waitFor } from './kit.ts';

/**
 * A sandbox organisation's own clock (docs/operations.md "Sandbox clock"), through the public API: advanced like a
 * Stripe test clock, every time rule of that organisation follows it (the daily jobs day by day, and what requests
 * judge), a live organisation never has one and is never touched.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [sb, live, year] = t.useOrgs([{ fast: true, sandbox: true }, { fast: true }, { fast: true, sandbox: true }]);

const CLOCK_FIELDS = 'now today status advancingTo aheadSeconds lastAdvance { uuid status from to lastDay daysRun }';

async function advance(o: Org, body: Record<string, unknown>) {
  return o.as('admin').post('/sandbox/clock/advance', { body, idempotencyKey: randomUUID() });
}

/**
 * Polls the clock until its advance is done, as an integrator would: with the staff key, whose limit (fast: 10,000 a
 * minute) a poll every 100 ms cannot reach, where the readonly key's 60 a minute would answer 429 within seconds.
 */
async function ready(o: Org) {
  const r = await waitFor(
    'the sandbox clock to be ready',
    () => o.as('staff').get('/sandbox/clock'),
    (r) => r.status === 200 && r.body.data.status === 'ready',
    { ms: 60_000, every: 100 },
  );
  return r.body.data;
}

const policy = (o: Org, uuid: string) =>
  o.t.db.tenant(o.id, (tx) =>
    tx.policy.findUniqueOrThrow({ where: { uuid }, include: { statusHistory: { orderBy: { id: 'asc' } } } }),
  );
const events = (o: Org, name: string) =>
  o.t.db.tenant(o.id, (tx) => tx.event.findMany({ where: { name }, orderBy: { createdAt: 'asc' } }));

describe('a live organisation', () => {
  it('has no clock of its own: 403 sandbox_only on every path, REST and GraphQL, and nothing is recorded', async () => {
    expectProblem(await live.as('readonly').get('/sandbox/clock'), 403, 'sandbox_only');
    expectProblem(await advance(live, { days: 30 }), 403, 'sandbox_only');
    const q = await live.as('readonly').gql(`{ sandboxClock { ${CLOCK_FIELDS} } }`);
    expect(q.body.errors?.[0]?.extensions?.code).toBe('sandbox_only');
    const m = await live.as('admin').gql(`mutation { advanceSandboxClock(days: 30) { ${CLOCK_FIELDS} } }`);
    expect(m.body.errors?.[0]?.extensions?.code).toBe('sandbox_only');
    const rows = await t.db.tenant(live.id, (tx) => tx.sandboxClock.count());
    expect(rows).toBe(0);
  });

  it('cannot be given one by hand either: the database refuses a clock row and a change of the flag', async () => {
    await expect(t.db.system((tx) => tx.sandboxClock.create({ data: { tenantId: live.id } }))).rejects.toThrow(
      /not a sandbox/,
    );
    await expect(
      t.db.system((tx) => tx.tenant.update({ where: { id: live.id }, data: { sandbox: true } })),
    ).rejects.toThrow(/from its creation/);
  });
});

describe('a sandbox organisation', () => {
  it('reads its clock: at first the service clock, ready, never advanced', async () => {
    const r = await sb.as('readonly').get('/sandbox/clock');
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ today: TODAY, status: 'ready', ahead_seconds: 0, last_advance: null });
    expect(Math.abs(Date.parse(r.body.data.now) - serviceClock().getTime())).toBeLessThan(60_000);
  });

  it('refuses what an advance cannot be, and changes nothing', async () => {
    expectProblem(
      await sb.as('staff').post('/sandbox/clock/advance', { body: { days: 1 } }),
      403,
      'insufficient_scope',
    );
    expectProblem(await advance(sb, {}), 422, 'validation_failed', 'to');
    expectProblem(await advance(sb, { days: 1, to: '2027-01-01T00:00:00+03:00' }), 422, 'validation_failed', 'to');
    expectProblem(await advance(sb, { to: '2026-06-14T09:00:00+03:00' }), 422, 'validation_failed', 'to');
    expectProblem(await advance(sb, { days: 732 }), 422, 'validation_failed', 'days');
    expectProblem(await advance(sb, { to: 'next tuesday' }), 422, 'validation_failed');
    const r = await sb.as('readonly').get('/sandbox/clock');
    expect(r.body.data).toMatchObject({ today: TODAY, status: 'ready', ahead_seconds: 0, last_advance: null });
  });

  it('takes one advance at a time: 409 invalid_state while one is in hand', async () => {
    await t.db.tenant(sb.id, (tx) =>
      tx.sandboxClock.upsert({
        where: { tenantId: sb.id },
        create: { tenantId: sb.id, status: 'advancing', advancingTo: new Date('2026-07-01T00:00:00Z') },
        update: { status: 'advancing', advancingTo: new Date('2026-07-01T00:00:00Z') },
      }),
    );
    try {
      expectProblem(await advance(sb, { days: 2 }), 409, 'invalid_state');
    } finally {
      await t.db.tenant(sb.id, (tx) =>
        tx.sandboxClock.update({ where: { tenantId: sb.id }, data: { status: 'ready', advancingTo: null } }),
      );
    }
  });
});

describe("two months of a policy's life in seconds", () => {
  let lapsing: { uuid: string; policy_no: string };
  let unpaid: { uuid: string };
  let liveLapsing: { uuid: string };

  it('advances 60 days: each day judged on the sandbox clock, the live organisation untouched', async () => {
    // In the sandbox: 3 instalments with the first paid (instalment 2 due 2026-07-15), and one never paid.
    lapsing = await year.bind(3);
    await year.pay(lapsing.policy_no, (lapsing as any).debit_note.instalments[0].amount_minor);
    unpaid = await year.bind(1);
    // The same in the live organisation.
    liveLapsing = await live.bind(3);
    await live.pay((liveLapsing as any).policy_no, (liveLapsing as any).debit_note.instalments[0].amount_minor);
    const liveUnpaid = await live.bind(1);
    await waitFor(
      'both active',
      () => Promise.all([policy(year, lapsing.uuid), policy(live, liveLapsing.uuid)]),
      (ps) => ps.every((p) => p.status === 'active'),
    );

    const asked = await advance(year, { days: 60 });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body.data.status).toBe('advancing');
    const clock = await ready(year);
    // 2026-06-15 09:00 + 60 days: 2026-08-14; the days run are 15 June to 14 August, both included: 16 + 31 + 14.
    expect(clock.today).toBe('2026-08-14');
    // It stands at the target and runs on from there (the advance itself took real seconds, not added on top).
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(Date.parse(clock.last_advance.to));
    expect(clock.ahead_seconds).toBeGreaterThan(60 * 86_400 - 120);
    expect(clock.ahead_seconds).toBeLessThanOrEqual(60 * 86_400);
    expect(clock.last_advance).toMatchObject({ status: 'ready', days_run: 61, last_day: '2026-08-14' });

    // Instalment 2 (due 2026-07-15) past 14 days' grace: lapsed on the run of 30 July, at 00:30 on its clock.
    const p = await policy(year, lapsing.uuid);
    expect(p.status).toBe('lapsed');
    const lapsedAt = p.statusChangedAt!.getTime();
    expect(lapsedAt).toBeGreaterThanOrEqual(Date.parse('2026-07-30T00:30:00+03:00'));
    expect(lapsedAt).toBeLessThan(Date.parse('2026-07-30T00:31:00+03:00'));
    expect(p.statusHistory.at(-1)).toMatchObject({ fromStatus: 'active', toStatus: 'lapsed', source: 'schedule' });
    // Started 2026-06-15 and never paid: not taken up on the run of 16 July (more than 30 days after its start).
    const u = await policy(year, unpaid.uuid);
    expect(u.status).toBe('not_taken_up');
    expect(u.statusChangedAt!.getTime()).toBeGreaterThanOrEqual(Date.parse('2026-07-16T00:30:00+03:00'));
    expect(u.statusChangedAt!.getTime()).toBeLessThan(Date.parse('2026-07-16T00:31:00+03:00'));

    const done = await events(year, 'sandbox.clock_ready');
    expect(done).toHaveLength(1);
    expect(done[0].data).toMatchObject({
      days_run: 61,
      counts: { policies: { lapsed: 1, notTakenUp: 1, failures: 0 } },
    });
    expect((await events(year, 'policy.lapsed')).map((e) => (e.data as any).policy_uuid)).toEqual([lapsing.uuid]);

    // The live organisation: nothing moved, no event, no clock.
    expect((await policy(live, liveLapsing.uuid)).status).toBe('active');
    expect((await policy(live, liveUnpaid.uuid)).status).toBe('pending_payment');
    expect(await events(live, 'policy.lapsed')).toHaveLength(0);
    expect(await t.db.tenant(live.id, (tx) => tx.sandboxClockRun.count())).toBe(0);
  });

  it('GraphQL reads the same clock', async () => {
    const rest = (await year.as('readonly').get('/sandbox/clock')).body.data;
    const q = await year.as('readonly').gql(`{ sandboxClock { ${CLOCK_FIELDS} } }`);
    expect(q.body.errors).toBeUndefined();
    const g = q.body.data.sandboxClock;
    expect(g).toMatchObject({ today: rest.today, status: 'ready', aheadSeconds: rest.ahead_seconds });
    expect(g.lastAdvance).toMatchObject({ uuid: rest.last_advance.uuid, daysRun: 61, lastDay: '2026-08-14' });
  });

  it("requests judge on the organisation's day: a bind dated in its past starts on its today", async () => {
    const bound = await year.bind(1);
    const p = await policy(year, bound.uuid);
    expect(p.startDate.toISOString().slice(0, 10)).toBe('2026-08-14');
    const liveBound = await live.bind(1);
    expect((await policy(live, liveBound.uuid)).startDate.toISOString().slice(0, 10)).toBe(TODAY);
  });

  it('GraphQL advances too, and a one-time code sent before an advance has expired after it', async () => {
    const phone = '0722000101';
    const c = await year.t.db.tenant(year.id, (tx) => tx.client.findFirstOrThrow({ where: { phone: '254722000101' } }));
    expect(c).toBeTruthy();
    expect((await requestCode(year, { phone })).status).toBe(202);
    const code = await lastCode(year, phone);
    const m = await year.as('admin').gql(`mutation { advanceSandboxClock(days: 1) { ${CLOCK_FIELDS} } }`);
    expect(m.body.errors).toBeUndefined();
    expect(m.body.data.advanceSandboxClock.status).toBe('advancing');
    expect((await ready(year)).today).toBe('2026-08-15');
    const v = await year.as('staff').post('/client-area/verify-otp', { body: { phone, code } });
    expectProblem(v, 422, 'validation_failed', 'otp');
    // Refused in the words of every refusal (docs/client-area.md "Sign-in"); expired, not wrong: no attempt spent.
    expect(v.body.errors[0].message).toMatch(/^wrong code, or no live code/);
    const otp = await year.t.db.tenant(year.id, (tx) =>
      tx.clientOtp.findFirstOrThrow({ where: { phone: c.phone }, orderBy: { id: 'desc' } }),
    );
    expect(otp).toMatchObject({ attempts: 0, consumedAt: null });
  });
});
