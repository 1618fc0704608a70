import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transitionPolicy } from '../src/modules/policies/policy-state.ts';
import { AppError } from '../src/lib/problem.ts';
import { sweepPayments as reconcilePending } from '../src/modules/payments/confirm.service.ts';
import { expectProblem, Live, PHONES, useKit, wsClient } from './kit.ts';

// Test mode: prompts resolve at once and a pending request is reconciled with the rail on every status query.
const t = useKit({ bindRateLimit: 10_000 }, { jobs: true });
const o = t.useOrg({ fast: true });
const other = t.useOrg({ fast: true });
const clients: Client[] = [];
afterAll(() => Promise.all(clients.map(async (c) => c.dispose())));

describe('a callback that never comes', () => {
  it("is reconciled by the status query: the rail's answer raises the receipt and activates the policy", async () => {
    const bound = await o.bind(1);
    const amount = Math.ceil(bound.premium.total_minor / 100);
    const push = await o.push({ phone: PHONES.noCallback, amount, account: bound.policy_no });
    expect(push.status, push.text).toBe(202);
    const checkout = push.body.data.checkout_request_id;
    const s = await o.settled(checkout);
    expect(s.status, s.text).toBe(200);
    expect(s.body.data).toMatchObject({
      status: 'succeeded',
      result_code: 0,
      resolved_via: 'query',
      receipt_no: expect.stringMatching(/^RCT-/),
    });
    const prompt = await t.db.system((tx) =>
      tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId: checkout } }),
    );
    expect(prompt.callbackStatus).toBeNull();
    expect(
      await t.db.tenant(o.org.id, (tx) => tx.mpesaCallback.count({ where: { checkoutRequestId: checkout } })),
    ).toBe(0);
    expect(s.body.data.mpesa_receipt_number).toBe(prompt.receiptNo);
    const policy = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { policyNo: bound.policy_no } }),
    );
    expect(policy.status).toBe('active');

    // Asking again changes nothing: one receipt for the prompt.
    await o.status(checkout);
    expect(
      await t.db.tenant(o.org.id, (tx) => tx.receipt.count({ where: { transactionRef: prompt.receiptNo! } })),
    ).toBe(1);
  });

  it("a status query of an unknown or other organisation's checkout id is 404", async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.cancelled, amount: 1, account: bound.policy_no });
    expectProblem(await other.status(push.body.data.checkout_request_id, other.tokens.staff), 404, 'not_found');
    expectProblem(await o.status('ws_CO_nothing'), 404, 'not_found');
  });
});

describe('the reconcile sweep (job payments.reconcile)', () => {
  it('settles a prompt whose callback never came without anyone asking for its status', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.noCallback, amount: 7, account: bound.policy_no });
    expect(push.status, push.text).toBe(202);
    const checkout = push.body.data.checkout_request_id;
    // Wait for the simulated customer to answer (the rail knows the result; nobody has told the service).
    for (let i = 0; i < 200; i++) {
      const p = await t.db.system((tx) =>
        tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId: checkout } }),
      );
      if (p.resultCode != null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await reconcilePending(t.app.services);
    const pr = await t.db.tenant(o.org.id, (tx) =>
      tx.paymentRequest.findFirstOrThrow({ where: { checkoutRequestId: checkout } }),
    );
    expect(pr).toMatchObject({ status: 'succeeded', resultCode: 0, resolvedVia: 'query' });
    expect(pr.receiptId).not.toBeNull();
    // A second sweep finds nothing left to do for it.
    await reconcilePending(t.app.services);
    expect(await t.db.tenant(o.org.id, (tx) => tx.receipt.count({ where: { paymentRequestId: pr.id } }))).toBe(1);
  });
});

describe('visibility and tenancy of receipts', () => {
  let staffPaid: any;
  let agentPaid: any;
  let otherPaid: any;
  let agentLive: Live;

  beforeAll(async () => {
    const ws = wsClient(t.origin, o.tokens.agent);
    clients.push(ws);
    agentLive = new Live(ws, 'subscription { paymentReceived { policyNo receiptNo } }', 'paymentReceived');
    const agentPolicy = await o.bind(1, o.tokens.agent);
    // graphql-ws does not acknowledge a subscription: pay on the agent's own policy until the agent hears one.
    for (let i = 0; i < 20 && agentLive.events.length === 0; i++) {
      const p = await o.push({ phone: PHONES.success, amount: 1, account: agentPolicy.policy_no }, o.tokens.agent);
      await o.settled(p.body.data.checkout_request_id);
      await agentLive.until(() => agentLive.events.length > 0, 1_000);
    }
    expect(agentLive.events.length).toBeGreaterThan(0);
    const heard = agentLive.events.length;

    const staffPolicy = await o.bind(1);
    const sp = await o.push({ phone: PHONES.success, amount: 10, account: staffPolicy.policy_no });
    staffPaid = (await o.settled(sp.body.data.checkout_request_id)).body.data;
    const ap = await o.push({ phone: PHONES.success, amount: 20, account: agentPolicy.policy_no }, o.tokens.agent);
    agentPaid = (await o.settled(ap.body.data.checkout_request_id)).body.data;
    const otherPolicy = await other.bind(1);
    const op = await other.push({ phone: PHONES.success, amount: 30, account: otherPolicy.policy_no });
    otherPaid = (await other.settled(op.body.data.checkout_request_id)).body.data;
    expect(await agentLive.until(() => agentLive.events.length > heard)).toBe(true);
    staffPaid.policy_no = staffPolicy.policy_no;
    staffPaid.client_no = staffPolicy.client_no;
    agentPaid.policy_no = agentPolicy.policy_no;
  });

  it('an agent lists and reads only receipts of their own records', async () => {
    const list = await o.api.get('/receipts?limit=100', { token: o.tokens.agent });
    expect(list.status, list.text).toBe(200);
    const nos = list.body.data.map((r: any) => r.receipt_no);
    expect(nos).toContain(agentPaid.receipt_no);
    expect(nos).not.toContain(staffPaid.receipt_no);
    expect(list.body.data.every((r: any) => r.policy_no === agentPaid.policy_no)).toBe(true);
    expectProblem(await o.api.get(`/receipts/${staffPaid.receipt_no}`, { token: o.tokens.agent }), 404, 'not_found');
    expect((await o.api.get(`/receipts/${agentPaid.receipt_no}`, { token: o.tokens.agent })).status).toBe(200);
  });

  it("an agent cannot follow another's prompt, read another's client balance, or collect for another's policy", async () => {
    expectProblem(await o.status(staffPaid.checkout_request_id, o.tokens.agent), 404, 'not_found');
    expectProblem(
      await o.api.get(`/clients/${staffPaid.client_no}/balance`, { token: o.tokens.agent }),
      404,
      'not_found',
    );
    const r = await o.push({ phone: PHONES.success, amount: 1, account: staffPaid.policy_no }, o.tokens.agent);
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors[0].field).toBe('account');
  });

  it("the agent's paymentReceived subscription carries only their records", () => {
    expect(agentLive.errors).toEqual([]);
    expect(agentLive.events.map((e: any) => e.policyNo).every((p: string) => p === agentPaid.policy_no)).toBe(true);
    expect(agentLive.events.map((e: any) => e.receiptNo)).toContain(agentPaid.receipt_no);
  });

  it("staff see every receipt of their organisation and none of another's", async () => {
    const list = await o.api.get('/receipts?limit=100', { token: o.tokens.staff });
    const nos = list.body.data.map((r: any) => r.receipt_no);
    expect(nos).toEqual(expect.arrayContaining([staffPaid.receipt_no, agentPaid.receipt_no]));
    // Receipt numbers are per organisation: the other organisation's first receipt may share a number, so compare refs.
    const refs = list.body.data.map((r: any) => r.transaction_ref);
    expect(refs).not.toContain(otherPaid.mpesa_receipt_number);
    const theirs = await other.api.get(`/receipts/${otherPaid.receipt_no}`, { token: other.tokens.staff });
    expect(theirs.body.data.transaction_ref).toBe(otherPaid.mpesa_receipt_number);
    expect(theirs.body.data.receipt_no).toBe('RCT-' + theirs.body.data.receipt_no.slice(4, 8) + '-000001');
  });

  it('paginates with a cursor', async () => {
    const a = await o.api.get('/receipts?limit=1', { token: o.tokens.staff });
    expect(a.body.meta).toMatchObject({ limit: 1, has_more: true, count: 1 });
    const b = await o.api.get(`${o.api.origin}${a.body.links.next}`, { token: o.tokens.staff });
    expect(b.status, b.text).toBe(200);
    expect(b.body.data[0].receipt_no).not.toBe(a.body.data[0].receipt_no);
    expectProblem(await o.api.get('/receipts?limit=0', { token: o.tokens.staff }), 422, 'validation_failed');
  });
});

describe('policy state machine', () => {
  it('moves a policy once, records its history, and refuses an illegal move with invalid_state', async () => {
    const bound = await o.bind(1);
    const policy = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { policyNo: bound.policy_no } }),
    );
    const meta = { tenantId: o.org.id, source: 'api' as const, reason: 'test' };
    expect(
      await t.db.tenant(o.org.id, (tx) => transitionPolicy(tx, policy.id, 'pending_payment', 'active', meta)),
    ).toBe(true);
    // Already moved: the guarded update applies to nothing.
    expect(
      await t.db.tenant(o.org.id, (tx) => transitionPolicy(tx, policy.id, 'pending_payment', 'active', meta)),
    ).toBe(false);
    const err = await t.db
      .tenant(o.org.id, (tx) => transitionPolicy(tx, policy.id, 'active', 'pending_payment', meta))
      .catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_state');
    const after = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findUniqueOrThrow({ where: { id: policy.id }, include: { statusHistory: { orderBy: { id: 'asc' } } } }),
    );
    expect(after.status).toBe('active');
    expect(after.statusHistory.map((h) => [h.fromStatus, h.toStatus, h.source])).toEqual([
      [null, 'pending_payment', 'bind'],
      ['pending_payment', 'active', 'api'],
    ]);
  });

  it('a policy never taken up takes no premium, a cancelled one only what it still owes (422 domain_rule)', async () => {
    const ntu = await o.bind(1);
    await t.db.tenant(o.org.id, (tx) =>
      tx.policy.updateMany({ where: { policyNo: ntu.policy_no }, data: { status: 'not_taken_up' } }),
    );
    expectProblem(await o.push({ phone: PHONES.success, amount: 1, account: ntu.policy_no }), 422, 'domain_rule');

    const cancelled = await o.bind(1);
    await t.db.tenant(o.org.id, (tx) =>
      tx.policy.updateMany({ where: { policyNo: cancelled.policy_no }, data: { status: 'cancelled' } }),
    );
    // Its debit note is still open: arrears are collectable.
    const owed = await o.push({ phone: PHONES.success, amount: 1, account: cancelled.policy_no });
    expect(owed.status, owed.text).toBe(202);
    // Nothing left open (written off by a credit note, say): refused.
    await t.db.tenant(
      o.org.id,
      (tx) =>
        tx.$executeRaw`UPDATE debit_notes SET credited_minor = amount_minor - paid_minor WHERE number LIKE ${`DN-${cancelled.policy_no}-%`}`,
    );
    expectProblem(await o.push({ phone: PHONES.success, amount: 1, account: cancelled.policy_no }), 422, 'domain_rule');
  });
});
