import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { vehicleKey } from '../jobs/rails/registry-simulator.ts';
import { addDays, toDbDate } from '../src/lib/dates.ts';
import { issueDue } from '../src/modules/certificates/certificate.service.ts';
import { runLifecycle } from '../src/modules/policies/lifecycle.service.ts';
import { POLICY_RULES } from '../src/modules/policies/policy-state.ts';
import { THIS_YEAR } from './helpers/clock.ts';
import { expectProblem, PHONES, TODAY, useKit, waitFor } from './kit.ts';

/**
 * Each race of issue 11 run for real: the competitors are fired together (Promise.all over HTTP and GraphQL, or a
 * job beside a request), and the test asserts exactly one winner and a consistent state afterwards, whatever order
 * they happened to land in. Status queries reconcile with the rail at once here (MPESA_RECONCILE_AFTER_MS 0), so a
 * status query competes with the rail's callback.
 */

const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0, mpesaReconcileAfterMs: 0 }, { jobs: true });
const o = t.useOrg({ fast: true });

let seq = 0;
// Never 000nnn: the demo seed's clients have the phones 07xx 000nnn, and a number equal to one is a duplicate client
// (a process whose pid ended in 00 drew 0711 000202, a seeded client's).
const unique = () => `${(process.pid % 90) + 10}${String((seq += 1)).padStart(3, '0')}`;

/** Everything about one policy's money and history, read straight from the database. */
async function moneyOf(uuid: string) {
  return t.db.tenant(o.id, async (tx) => {
    const p = await tx.policy.findFirstOrThrow({
      where: { uuid },
      include: { debitNotes: { orderBy: { instalmentNo: 'asc' } }, statusHistory: { orderBy: { id: 'asc' } } },
    });
    const events = await tx.event.findMany({ orderBy: { createdAt: 'asc' } });
    return {
      status: p.status,
      notes: p.debitNotes.map((d) => ({ amount: d.amountMinor, paid: d.paidMinor })),
      moves: p.statusHistory.map((h) => `${h.fromStatus}>${h.toStatus}`),
      receipts: await tx.receipt.findMany({ where: { policyId: p.id }, include: { allocations: true } }),
      credit:
        (await tx.clientCredit.aggregate({ where: { clientId: p.clientId }, _sum: { amountMinor: true } }))._sum
          .amountMinor ?? 0n,
      events: events.filter((e) => (e.data as { policy_uuid?: string }).policy_uuid === uuid).map((e) => e.name),
    };
  });
}

/** A prompt to `phone` for `amountMinor` (whole shillings, rounded up) to `account`, its checkout id. */
async function prompt(account: string, amountMinor: number, phone: string = PHONES.noCallback): Promise<string> {
  const push = await o.push({ phone, amount: Math.ceil(amountMinor / 100), account });
  expect(push.status, push.text).toBe(202);
  return push.body.data.checkout_request_id;
}

/** Waits until the rail has answered the prompt (the customer paid), and returns its callback as the rail sends it. */
async function answered(checkout: string) {
  const p = await waitFor(
    `the rail to answer ${checkout}`,
    () => t.db.system((tx) => tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId: checkout } })),
    (row) => row.resolvedAt != null,
  );
  expect(p.resultCode).toBe(0);
  const url = await o.callbackUrlOf(checkout);
  const body = JSON.stringify({
    Body: {
      stkCallback: {
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResultCode: 0,
        ResultDesc: p.resultDesc,
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: p.amount },
            { Name: 'MpesaReceiptNumber', Value: p.receiptNo },
            { Name: 'TransactionDate', Value: Number(p.transactionDate) },
            { Name: 'PhoneNumber', Value: Number(p.phone) },
          ],
        },
      },
    },
  });
  return () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('the same registration bound twice at once', () => {
  it('four binds of one vehicle for four clients: one policy, three 422 domain_rule naming the clash', async () => {
    const option = await o.quote();
    const regno = `KDR ${unique().slice(-3)}R`;
    const policy = { start_date: TODAY, insurer_id: option.insurer_id, class: 'Motor', scope: 'Comprehensive' };
    const vehicle = { regno, make: 'Toyota', model: 'Axio', yom: THIS_YEAR - 3, value: 1_500_000 };
    const body = (n: string) => ({
      client: { name: `Racer ${n} Wafula`, phone: `0722 ${n.padStart(6, '0')}`, idno: `66${n.padStart(6, '0')}` },
      policy: { ...policy, premium: option.total },
      vehicles: [{ ...vehicle, chassis_no: `RACE-${n}` }],
    });
    const bodies = [unique(), unique(), unique(), unique()].map(body);
    const rs = await Promise.all(
      bodies.map((b) => o.api.post('/motor/save', { token: o.tokens.staff, idempotencyKey: randomUUID(), body: b })),
    );
    const won = rs.filter((r) => r.status === 201);
    expect(won, rs.map((r) => r.text).join('\n')).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 201)) expectProblem(r, 422, 'domain_rule');
    const onCover = await t.db.tenant(o.id, (tx) =>
      tx.policyVehicle.findMany({
        where: { regNo: regno.replace(' ', ''), policy: { status: { in: ['pending_payment', 'active'] } } },
        include: { policy: true },
      }),
    );
    expect(onCover.map((v) => v.policy.uuid)).toEqual([won[0].body.uuid]);
  });
});

describe("the rail's callback racing status queries", () => {
  it('two callbacks and five status queries at once settle the payment once: one receipt, paid once, active once', async () => {
    const pol = await o.bind(1);
    const dn = pol.debit_note.instalments[0];
    const checkout = await prompt(pol.policy_no, dn.amount_minor);
    const callback = await answered(checkout);
    const before = await moneyOf(pol.uuid);
    expect(before.receipts).toEqual([]);

    const [c1, c2, ...statuses] = await Promise.all([
      callback(),
      callback(),
      ...Array.from({ length: 5 }, () => o.status(checkout)),
    ]);
    expect([c1.status, c2.status]).toEqual([200, 200]);
    for (const s of statuses) {
      expect(s.status, s.text).toBe(200);
      expect(['pending', 'succeeded']).toContain(s.body.data.status);
    }
    const settled = await o.settled(checkout);
    expect(settled.body.data.status, settled.text).toBe('succeeded');
    await o.callbackProcessed(checkout, 2);

    const after = await moneyOf(pol.uuid);
    expect(after.receipts).toHaveLength(1);
    expect(after.receipts[0].amountMinor).toBe(BigInt(Math.ceil(dn.amount_minor / 100) * 100));
    expect(after.notes).toEqual([{ amount: BigInt(dn.amount_minor), paid: BigInt(dn.amount_minor) }]);
    expect(after.status).toBe('active');
    expect(after.moves).toEqual(['null>pending_payment', 'pending_payment>active']);
    expect(after.events.filter((e) => e === 'policy.activated')).toHaveLength(1);
    // Every status answer that saw it settled names the one receipt.
    for (const s of statuses.filter((x) => x.body.data.status === 'succeeded'))
      expect(s.body.data.receipt_no).toBe(after.receipts[0].receiptNo);
  });
});

describe('two payments on one debit note', () => {
  it('settled at once: the note is paid once, the second payment is the client’s credit, one activation', async () => {
    const pol = await o.bind(1);
    const dn = pol.debit_note.instalments[0];
    const [a, b] = await Promise.all([prompt(dn.number, dn.amount_minor), prompt(dn.number, dn.amount_minor)]);
    const [callA, callB] = await Promise.all([answered(a), answered(b)]);
    await Promise.all([callA(), callB(), o.status(a), o.status(b), o.status(a), o.status(b)]);
    const [sa, sb] = await Promise.all([o.settled(a), o.settled(b)]);
    expect([sa.body.data.status, sb.body.data.status]).toEqual(['succeeded', 'succeeded']);
    await Promise.all([o.callbackProcessed(a), o.callbackProcessed(b)]);

    const paidEach = BigInt(Math.ceil(dn.amount_minor / 100) * 100);
    const after = await moneyOf(pol.uuid);
    expect(after.receipts).toHaveLength(2);
    expect(after.notes).toEqual([{ amount: BigInt(dn.amount_minor), paid: BigInt(dn.amount_minor) }]);
    const allocated = after.receipts.flatMap((r) => r.allocations).reduce((s, x) => s + x.amountMinor, 0n);
    expect(allocated).toBe(BigInt(dn.amount_minor));
    // Nothing lost and nothing counted twice: what was paid is the note plus the client's credit.
    expect(after.credit).toBe(2n * paidEach - BigInt(dn.amount_minor));
    expect(after.status).toBe('active');
    expect(after.moves).toEqual(['null>pending_payment', 'pending_payment>active']);
    expect(after.events.filter((e) => e === 'policy.activated')).toHaveLength(1);
    expect(after.events.filter((e) => e === 'payment.received')).toHaveLength(2);
  });
});

describe('overlapping lifecycle runs', () => {
  it('two runs and the queued job at once: each policy moves once, with one event', async () => {
    const [ending, lapsing, renewing, unpaid] = await Promise.all([
      o.activePolicy(),
      o.activePolicy({ instalments: 2 }),
      o.activePolicy(),
      o.bind(1),
    ]);
    await t.db.tenant(o.id, async (tx) => {
      const set = (uuid: string, data: Parameters<typeof tx.policy.update>[0]['data']) =>
        tx.policy.update({ where: { uuid }, data });
      // Ended yesterday; ends in ten days (renewal notice); bound and due to start 31 days ago, never paid.
      await set(ending.uuid, { startDate: toDbDate(addDays(TODAY, -365)), endDate: toDbDate(addDays(TODAY, -1)) });
      await set(renewing.uuid, { endDate: toDbDate(addDays(TODAY, 10)) });
      const ntu = addDays(TODAY, -POLICY_RULES.notTakenUpDays - 1);
      await set(unpaid.uuid, { startDate: toDbDate(ntu), createdAt: new Date(`${ntu}T09:00:00+03:00`) });
      // Instalment 2 due one day past the lapse grace.
      await tx.debitNote.updateMany({
        where: { policy: { uuid: lapsing.uuid }, instalmentNo: 2 },
        data: { dueOn: toDbDate(addDays(TODAY, -POLICY_RULES.lapseGraceDays - 1)) },
      });
    });

    const app = t.app.services;
    const [job, r1, r2] = await Promise.all([
      t.app.boss!.send('policies.lifecycle', { asOf: TODAY }),
      runLifecycle(app, TODAY),
      runLifecycle(app, TODAY),
    ]);
    expect([r1.failures, r2.failures]).toEqual([0, 0]);
    await waitFor(
      'the lifecycle job to finish',
      () => t.app.boss!.getJobById('policies.lifecycle', job!),
      (j) => j?.state === 'completed',
    );

    const expected: [string, string, string][] = [
      [ending.uuid, 'expired', 'policy.expired'],
      [lapsing.uuid, 'lapsed', 'policy.lapsed'],
      [renewing.uuid, 'active', 'policy.renewal_due'],
      [unpaid.uuid, 'not_taken_up', 'policy.not_taken_up'],
    ];
    for (const [uuid, status, event] of expected) {
      const m = await moneyOf(uuid);
      expect(m.status, uuid).toBe(status);
      expect(
        m.events.filter((e) => e === event),
        `${event} of ${uuid}`,
      ).toHaveLength(1);
      expect(
        m.moves.filter((x) => x.endsWith(`>${status}`)),
        `moves of ${uuid}`,
      ).toHaveLength(1);
    }
  });
});

describe('a job and manual requests issuing the same certificate', () => {
  it('the issue job, its handler, a REST and a GraphQL issue at once: one certificate, issued once', async () => {
    const registry = t.app.services.registry;
    const send = registry.send!;
    // The payment's issue job is held back, to be let go at the same moment as the two manual requests.
    const held: { q: 'issue' | 'cancel'; data: Record<string, number> }[] = [];
    registry.send = async (q, data, opts) => (q === 'issue' ? void held.push({ q, data }) : send(q, data, opts));
    let pol;
    try {
      pol = await o.activePolicy();
    } finally {
      registry.send = send;
    }
    expect(held).toHaveLength(1);
    // The queued job (picked up by the worker when it polls) and, to be sure of the overlap, what its handler runs,
    // beside a REST and a GraphQL request.
    const [job, handler, rest, gql] = await Promise.all([
      send(held[0].q, held[0].data),
      issueDue(t.app.services, held[0].data.policyId),
      o.api.post(`/policies/${pol.uuid}/certificates`, { token: o.tokens.staff, idempotencyKey: randomUUID() }),
      o
        .as('staff')
        .gql(`mutation($u: String!) { issueCertificates(policyUuid: $u) { __typename ... on Problem { code } } }`, {
          u: pol.uuid,
        }),
    ]);
    expect(job).toBeUndefined();
    expect(handler.transient).toBeFalsy();
    expect(rest.status, rest.text).toBeLessThan(300);
    expect(gql.body.errors, JSON.stringify(gql.body)).toBeUndefined();
    expect(gql.body.data.issueCertificates.__typename, JSON.stringify(gql.body)).not.toMatch(/Problem$/);

    const list = await waitFor(
      `the certificate of ${pol.policy_no} to settle`,
      () => t.db.tenant(o.id, (tx) => tx.certificate.findMany({ where: { policy: { uuid: pol.uuid } } })),
      (l) => l.length > 0 && l.every((c) => c.status === 'issued'),
      { ms: 30_000 },
    );
    expect(list.map((c) => [c.stage, c.series, c.status])).toEqual([[1, 1, 'issued']]);
    const atRegistry = await t.db.system((tx) =>
      tx.registrySimCertificate.findMany({ where: { registration: vehicleKey(pol.regno) } }),
    );
    expect(atRegistry.map((c) => [c.certificateNo, c.status])).toEqual([[list[0].certificateNo, 'Active']]);
    const issuedEvents = await t.db.tenant(o.id, (tx) => tx.event.findMany({ where: { name: 'certificate.issued' } }));
    expect(issuedEvents.filter((e) => (e.data as { policy_no?: string }).policy_no === pol.policy_no)).toHaveLength(1);
  });
});
