import { randomUUID } from 'node:crypto';
import { now as clockNow } from '../src/lib/clock.ts';
import { describe, expect, it } from 'vitest';
import type { PolicyStatus } from '../src/generated/prisma/enums.ts';
import { addDays, addMonths, annualEnd, toDbDate } from '../src/lib/dates.ts';
import { runLifecycle } from '../src/modules/policies/lifecycle.service.ts';
import {
  assertTransition,
  canTransition,
  IllegalTransitionError,
  POLICY_RULES,
  POLICY_TRANSITIONS,
} from '../src/modules/policies/policy-state.ts';
import { INSTANT_RAIL, TODAY, useKit } from './kit.ts';

const STATUSES: PolicyStatus[] = [
  'pending_payment',
  'active',
  'cancelled',
  'expired',
  'lapsed',
  'renewed',
  'not_taken_up',
];
/** The documented table (docs/policy-lifecycle.md "Policy lifecycle"), written out independently of POLICY_TRANSITIONS. */
const ALLOWED = new Set([
  'pending_payment>active',
  'pending_payment>not_taken_up',
  'active>cancelled',
  'active>expired',
  'active>lapsed',
  'active>renewed',
  'expired>renewed',
  'cancelled>active',
  'lapsed>active',
]);

describe('the transition table', () => {
  const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));
  it.each(pairs)('%s → %s', (from, to) => {
    const allowed = ALLOWED.has(`${from}>${to}`);
    expect(canTransition(from, to)).toBe(allowed);
    expect(POLICY_TRANSITIONS[from].includes(to)).toBe(allowed);
    if (allowed) {
      expect(() => assertTransition(from, to)).not.toThrow();
    } else {
      let err: unknown;
      try {
        assertTransition(from, to);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(IllegalTransitionError);
      expect((err as IllegalTransitionError).code).toBe('invalid_state');
      expect((err as IllegalTransitionError).status).toBe(409);
    }
  });
  it('lists every status and no other move', () => {
    expect(Object.keys(POLICY_TRANSITIONS).sort()).toEqual([...STATUSES].sort());
    expect(
      Object.entries(POLICY_TRANSITIONS)
        .flatMap(([f, tos]) => tos.map((to) => `${f}>${to}`))
        .sort(),
    ).toEqual([...ALLOWED].sort());
  });
});

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

const app = () => t.app.services;

const row = (uuid: string) =>
  t.db.tenant(o.org.id, (tx) =>
    tx.policy.findUniqueOrThrow({
      where: { uuid },
      include: { statusHistory: { orderBy: { id: 'asc' } }, debitNotes: { orderBy: { instalmentNo: 'asc' } } },
    }),
  );
const history = async (uuid: string) =>
  (await row(uuid)).statusHistory.map((h) => ({
    from: h.fromStatus,
    to: h.toStatus,
    source: h.source,
    reason: h.reason,
  }));
const eventsOf = async (name: string, uuid: string) =>
  (await t.db.tenant(o.org.id, (tx) => tx.event.findMany({ where: { name }, orderBy: { createdAt: 'asc' } })))
    .filter((e) => (e.data as any).policy_uuid === uuid)
    .map((e) => e.data as any);

/** Fixture: moves a policy's period (and its debit notes' due dates, and premium items) in the database. */
async function movePeriod(uuid: string, start: string, dues?: string[]) {
  const end = annualEnd(start);
  await t.db.tenant(o.org.id, async (tx) => {
    const p = await tx.policy.update({ where: { uuid }, data: { startDate: toDbDate(start), endDate: toDbDate(end) } });
    const notes = await tx.debitNote.findMany({ where: { policyId: p.id }, orderBy: { instalmentNo: 'asc' } });
    for (const [i, n] of notes.entries())
      await tx.debitNote.update({ where: { id: n.id }, data: { dueOn: toDbDate(dues?.[i] ?? addMonths(start, i)) } });
    await tx.policyPremiumItem.updateMany({
      where: { policyId: p.id },
      data: { fromDate: toDbDate(start), toDate: toDbDate(end) },
    });
    await tx.policyVehicle.updateMany({ where: { policyId: p.id }, data: { addedOn: toDbDate(start) } });
  });
  return end;
}

describe('pending_payment → active (payment)', () => {
  it('the first instalment paid in full activates the policy; the history records bind then payment', async () => {
    const pol = await o.bind(1);
    expect(await history(pol.uuid)).toEqual([{ from: null, to: 'pending_payment', source: 'bind', reason: null }]);
    await o.pay(pol.policy_no, pol.debit_note.instalments[0].amount_minor);
    const h = await history(pol.uuid);
    expect(h).toHaveLength(2);
    expect(h[1]).toMatchObject({
      from: 'pending_payment',
      to: 'active',
      source: 'payment',
      reason: expect.stringMatching(/^first instalment paid \(RCT-/),
    });
    // The REST record shows the same history.
    const r = await o.api.get(`/policies/${pol.uuid}`, { token: o.tokens.staff });
    expect(r.body.data.status).toBe('active');
    expect(r.body.data.status_history.map((x: any) => [x.from, x.to, x.source])).toEqual([
      [null, 'pending_payment', 'bind'],
      ['pending_payment', 'active', 'payment'],
    ]);
  });
});

describe('pending_payment → not_taken_up (schedule)', () => {
  it(`moves an unpaid policy more than ${POLICY_RULES.notTakenUpDays} days after start, once`, async () => {
    const pol = await o.bind(1);
    // On the last day of the window nothing happens.
    await runLifecycle(app(), addDays(TODAY, POLICY_RULES.notTakenUpDays));
    expect((await row(pol.uuid)).status).toBe('pending_payment');
    const asOf = addDays(TODAY, POLICY_RULES.notTakenUpDays + 1);
    const first = await runLifecycle(app(), asOf);
    expect(first.notTakenUp).toBeGreaterThanOrEqual(1);
    expect((await row(pol.uuid)).status).toBe('not_taken_up');
    const h = await history(pol.uuid);
    expect(h.at(-1)).toMatchObject({
      from: 'pending_payment',
      to: 'not_taken_up',
      source: 'schedule',
      reason: expect.stringContaining(`${POLICY_RULES.notTakenUpDays} days after ${TODAY}`),
    });
    const ev = await eventsOf('policy.not_taken_up', pol.uuid);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      policy_no: pol.policy_no,
      status: 'not_taken_up',
      previous_status: 'pending_payment',
      client_no: pol.client_no,
    });
    // A rerun changes nothing.
    const again = await runLifecycle(app(), asOf);
    expect(again).toMatchObject({ notTakenUp: 0, expired: 0, lapsed: 0, renewalNotices: 0, failures: 0 });
    expect(await history(pol.uuid)).toHaveLength(h.length);
    expect(await eventsOf('policy.not_taken_up', pol.uuid)).toHaveLength(1);
  });
});

describe('active → expired (schedule)', () => {
  it('the day after the end date, with policy.expired', async () => {
    const pol = await o.activePolicy();
    // Annual cover that started a year ago: judged from its own end date, so no calendar (29 February) shifts it.
    const end = await movePeriod(pol.uuid, addMonths(TODAY, -12));
    expect(end < TODAY).toBe(true);
    const dayAfter = addDays(end, 1);
    // On its last day of cover it is still active.
    await runLifecycle(app(), end);
    expect((await row(pol.uuid)).status).toBe('active');
    const r = await runLifecycle(app(), dayAfter);
    expect(r.expired).toBeGreaterThanOrEqual(1);
    expect((await row(pol.uuid)).status).toBe('expired');
    expect((await history(pol.uuid)).at(-1)).toEqual({
      from: 'active',
      to: 'expired',
      source: 'schedule',
      reason: `cover ended ${end}`,
    });
    const ev = await eventsOf('policy.expired', pol.uuid);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ status: 'expired', previous_status: 'active', reason: `cover ended ${end}` });
    expect((await runLifecycle(app(), dayAfter)).expired).toBe(0);
    expect(await eventsOf('policy.expired', pol.uuid)).toHaveLength(1);
  });

  it('a policy ending today is still active', async () => {
    const pol = await o.activePolicy();
    await movePeriod(pol.uuid, addDays(TODAY, -364));
    await runLifecycle(app(), TODAY);
    expect((await row(pol.uuid)).status).toBe('active');
  });
});

describe('active → lapsed (schedule) → active (payment of the arrears)', () => {
  let pol: any;
  it(`lapses a 3-instalment policy whose instalment 2 is unpaid ${POLICY_RULES.lapseGraceDays} days after its due date`, async () => {
    pol = await o.bind(3);
    const [dn1, dn2] = pol.debit_note.instalments;
    // Pay exactly instalment 1 (whole shillings; a rounding excess would sit on instalment 2).
    await o.pay(pol.policy_no, dn1.amount_minor);
    const start = addDays(TODAY, -45);
    // Instalment 2 due on the last day of grace: not yet lapsed.
    await movePeriod(pol.uuid, start, [start, addDays(TODAY, -POLICY_RULES.lapseGraceDays), addDays(TODAY, 15)]);
    await runLifecycle(app(), TODAY);
    expect((await row(pol.uuid)).status).toBe('active');
    // One day more: lapsed, naming the note.
    await movePeriod(pol.uuid, start, [start, addDays(TODAY, -POLICY_RULES.lapseGraceDays - 1), addDays(TODAY, 15)]);
    const r = await runLifecycle(app(), TODAY);
    expect(r.lapsed).toBeGreaterThanOrEqual(1);
    expect((await row(pol.uuid)).status).toBe('lapsed');
    const last = (await history(pol.uuid)).at(-1)!;
    expect(last).toMatchObject({ from: 'active', to: 'lapsed', source: 'schedule' });
    expect(last.reason).toContain(dn2.number);
    const ev = await eventsOf('policy.lapsed', pol.uuid);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ status: 'lapsed', previous_status: 'active', policy_no: pol.policy_no });
    expect(ev[0].reason).toContain(dn2.number);
    expect((await runLifecycle(app(), TODAY)).lapsed).toBe(0);
  });

  it('a part payment of the arrears leaves it lapsed; paying the rest reinstates it (policy.reinstated)', async () => {
    await o.pay(pol.policy_no, 100_00);
    expect((await row(pol.uuid)).status).toBe('lapsed');
    const notes = (await row(pol.uuid)).debitNotes;
    const dn2 = notes[1];
    const outstanding = Number(dn2.amountMinor - dn2.paidMinor - dn2.creditedMinor);
    expect(outstanding).toBeGreaterThan(0);
    await o.pay(pol.policy_no, outstanding);
    const after = await row(pol.uuid);
    expect(after.status).toBe('active');
    // Instalment 3 is not due yet: it is not arrears.
    expect(after.debitNotes[2].paidMinor).toBeLessThan(after.debitNotes[2].amountMinor);
    expect((await history(pol.uuid)).at(-1)).toMatchObject({
      from: 'lapsed',
      to: 'active',
      source: 'payment',
      reason: expect.stringMatching(/^arrears paid \(RCT-/),
    });
    const ev = await eventsOf('policy.reinstated', pol.uuid);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      policy_no: pol.policy_no,
      previous_status: 'lapsed',
      cancellation_uuid: null,
      debit_note_no: null,
    });
  });

  it('a lapse older than the reinstatement window is not reversed by payment', async () => {
    const p2 = await o.activePolicy({ instalments: 2 });
    const start = addDays(TODAY, -60);
    await movePeriod(p2.uuid, start, [start, addDays(TODAY, -30)]);
    await runLifecycle(app(), TODAY);
    expect((await row(p2.uuid)).status).toBe('lapsed');
    const longAgo = new Date(clockNow().getTime() - (POLICY_RULES.reinstatementDays + 1) * 86_400_000);
    await t.db.tenant(o.org.id, (tx) =>
      tx.policy.update({ where: { uuid: p2.uuid }, data: { statusChangedAt: longAgo } }),
    );
    await o.pay(p2.policy_no, p2.debit_note.instalments[1].amount_minor);
    expect((await row(p2.uuid)).status).toBe('lapsed');
  });
});

describe('active → renewed and expired → renewed (the renewal paid)', () => {
  async function renew(pol: any) {
    const q = await o.api.post(`/policies/${pol.uuid}/renewal-quote`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {},
    });
    expect(q.status, q.text).toBe(201);
    const r = await o.api.post(`/policies/${pol.uuid}/renew`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { renewal_quote_uuid: q.body.data.uuid, premium: q.body.data.renewal.total },
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  }

  it("active → renewed when the renewal's first instalment is paid", async () => {
    const pol = await o.activePolicy();
    const next = await renew(pol);
    expect(next.status).toBe('pending_payment');
    expect(next.status_history).toEqual([
      expect.objectContaining({
        from: null,
        to: 'pending_payment',
        source: 'renewal',
        reason: 'renews the policy named by renewal_of',
      }),
    ]);
    // Bound but unpaid: the old policy is unchanged.
    expect((await row(pol.uuid)).status).toBe('active');
    await o.pay(next.policy_no, next.debit_notes[0].amount_minor);
    expect((await row(next.uuid)).status).toBe('active');
    expect((await row(pol.uuid)).status).toBe('renewed');
    expect((await history(pol.uuid)).at(-1)).toMatchObject({
      from: 'active',
      to: 'renewed',
      source: 'payment',
      // No number in the words: a reader of this policy may not see its renewal (renewed_by reads null for them).
      reason: 'its renewal became active',
    });
    const ev = await eventsOf('policy.renewed', pol.uuid);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      policy_no: pol.policy_no,
      renewal_policy_no: next.policy_no,
      renewal_policy_uuid: next.uuid,
    });
    // A renewed policy no longer expires on schedule.
    await movePeriod(pol.uuid, addDays(TODAY, -365));
    await runLifecycle(app(), TODAY);
    expect((await row(pol.uuid)).status).toBe('renewed');
  });

  it('expired → renewed when a policy expired within the window is renewed and paid', async () => {
    const pol = await o.activePolicy();
    // Ended five days ago: within the reinstatement window a renewal is still offered.
    await movePeriod(pol.uuid, addDays(TODAY, -370));
    await runLifecycle(app(), TODAY);
    expect((await row(pol.uuid)).status).toBe('expired');
    const next = await renew(pol);
    await o.pay(next.policy_no, next.debit_notes[0].amount_minor);
    expect((await row(next.uuid)).status).toBe('active');
    expect((await history(pol.uuid)).at(-1)).toMatchObject({ from: 'expired', to: 'renewed', source: 'payment' });
    expect(await eventsOf('policy.renewed', pol.uuid)).toHaveLength(1);
  });
});

describe('GraphQL', () => {
  it('statusHistory of a policy', async () => {
    const pol = await o.bind(1);
    const r = await o.api.gql(
      `query($u: String!) { policy(uuid: $u) { status statusHistory { fromStatus toStatus source reason at } } }`,
      { u: pol.uuid },
      { token: o.tokens.staff },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.policy.statusHistory).toEqual([
      { fromStatus: null, toStatus: 'pending_payment', source: 'bind', reason: null, at: expect.any(String) },
    ]);
  });
});

describe('the lifecycle queue', () => {
  it('is scheduled daily at 00:05 Nairobi', async () => {
    const schedules = await t.app.boss!.getSchedules();
    const s = schedules.find((x) => x.name === 'policies.lifecycle');
    expect(s).toMatchObject({ cron: '5 0 * * *', timezone: 'Africa/Nairobi' });
  });

  it('its worker runs the lifecycle (an ended policy expires)', async () => {
    const pol = await o.activePolicy();
    await movePeriod(pol.uuid, addDays(TODAY, -366));
    const id = await t.app.boss!.send('policies.lifecycle', { asOf: TODAY });
    expect(id).toEqual(expect.any(String));
    const deadline = Date.now() + 30_000;
    let status = 'active';
    while (status === 'active' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await row(pol.uuid)).status;
    }
    expect(status).toBe('expired');
    expect((await history(pol.uuid)).at(-1)).toMatchObject({ source: 'schedule', to: 'expired' });
  });
});
