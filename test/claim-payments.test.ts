import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, useKit, type Active } from './kit.ts';
import { approvedClaim, claimRow, payClaim, paymentIn } from './kit/approved-claim.ts';

/**
 * Claim payouts (docs/claims.md "Claim payouts"): the rules of payClaim, settlement, visibility and REST/GraphQL parity. The
 * rail's side (Results as hints, failures, the sweep) is claim-payouts-rail.test.ts.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

let pol: Active;
beforeAll(async () => {
  pol = await o.activePolicy();
}, 120_000);

const b2c = (extra: Record<string, unknown> = {}) => ({
  method: 'mpesa_b2c',
  payee_type: 'claimant',
  payee_name: 'Achieng Otieno',
  phone: '0708 374 149',
  ...extra,
});
const bank = (extra: Record<string, unknown> = {}) => ({
  method: 'bank_transfer',
  payee_type: 'garage',
  payee_name: 'Kilimani Auto Repairs',
  bank_name: 'KCB',
  bank_account: '1100223344',
  bank_reference: `FT${randomUUID().slice(0, 8).toUpperCase()}`,
  ...extra,
});

const eventsOf = (claimUuid: string, name: string) =>
  t.db.tenant(o.id, (tx) =>
    tx.event.findMany({
      where: { name, data: { path: ['claim_uuid'], equals: claimUuid } },
      orderBy: { createdAt: 'asc' },
    }),
  );

describe('paying by M-Pesa (B2C through the simulated rail)', () => {
  it('records the payout pending, sends it, and applies the Result the rail confirms: reserve consumed', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 5_000_000n });
    const r = await payClaim(o, c.uuid, b2c({ amount: 20_000, note: 'First instalment of the repair' }));
    expect(r.status, r.text).toBe(201);
    const p = r.body.data;
    expect(p).toMatchObject({
      method: 'mpesa_b2c',
      status: 'pending',
      payee: { type: 'claimant', name: 'Achieng Otieno', phone: '254708374149', bank: null },
      amount: 20_000,
      amount_minor: 2_000_000,
      transaction_id: null,
      result: null,
      paid_at: null,
    });
    expect(p.reference).toMatch(/^[0-9a-f-]{36}$/);
    const paid = await paymentIn(o, c.uuid, p.uuid, 'paid');
    expect(paid.transaction_id).toMatch(/^T[A-Z0-9]{9}$/);
    expect(paid.result).toEqual({ code: 0, description: 'The service request is processed successfully.' });
    expect(paid.sent_at).not.toBeNull();
    const claim = await claimRow(o, c.uuid);
    expect(claim).toMatchObject({
      status: 'approved',
      paidMinor: 2_000_000n,
      committedMinor: 0n,
      reserveMinor: 3_000_000n,
    });
    expect(claim.payments[0].conversationId).toMatch(/^AG_\d{8}_/);
    expect(claim.reserves.at(-1)).toMatchObject({
      kind: 'payment',
      amountMinor: -2_000_000n,
      balanceAfterMinor: 3_000_000n,
    });
    const booking = await t.db.system((tx) =>
      tx.mpesaSimB2c.findUniqueOrThrow({ where: { originatorConversationId: p.reference } }),
    );
    expect(booking).toMatchObject({
      phone: '254708374149',
      amount: 20_000,
      commandId: 'BusinessPayment',
      callbackStatus: 200,
    });
    const heard = await t.db.tenant(o.id, (tx) =>
      tx.auditLog.count({ where: { action: 'claim_payment.result_received', entityId: p.uuid } }),
    );
    expect(heard).toBe(1);
  });

  it('a partial payout then a final bank transfer settle the claim: claim.moved and claim.settled with both', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 3_000_050n }); // KES 30,000.50: the cents go by bank
    const first = await payClaim(o, c.uuid, b2c({ amount: 10_000 }));
    expect(first.status, first.text).toBe(201);
    await paymentIn(o, c.uuid, first.body.data.uuid, 'paid');
    const last = await payClaim(o, c.uuid, bank({ final: true }));
    expect(last.status, last.text).toBe(201);
    expect(last.body.data).toMatchObject({ status: 'paid', amount: 20_001, amount_minor: 2_000_050 });
    expect(last.body.data.payee.bank).toEqual({ name: 'KCB', account: '1100223344' });

    const claim = await claimRow(o, c.uuid);
    expect(claim).toMatchObject({ status: 'settled', paidMinor: 3_000_050n, committedMinor: 0n, reserveMinor: 0n });
    expect(claim.reserves.map((m) => [m.kind, m.amountMinor, m.balanceAfterMinor])).toEqual([
      ['approval', 3_000_050n, 3_000_050n],
      ['payment', -1_000_000n, 2_000_050n],
      ['payment', -2_000_050n, 0n],
    ]);
    expect(claim.history).toContainEqual(
      expect.objectContaining({
        fromStatus: 'approved',
        toStatus: 'settled',
        source: 'payment',
        actorName: expect.any(String),
      }),
    );
    const [moved] = await eventsOf(c.uuid, 'claim.moved');
    expect(moved.data).toMatchObject({ from: 'approved', to: 'settled', status: 'settled', by: { type: 'user' } });
    const [settled] = await eventsOf(c.uuid, 'claim.settled');
    expect(settled.data).toMatchObject({
      claim_uuid: c.uuid,
      status: 'settled',
      paid: { amount: 30_001, amount_minor: 3_000_050 },
    });
    expect((settled.data as any).payments).toEqual([
      expect.objectContaining({
        method: 'mpesa_b2c',
        amount_minor: 1_000_000,
        transaction_id: expect.stringMatching(/^T/),
      }),
      expect.objectContaining({
        method: 'bank_transfer',
        amount_minor: 2_000_050,
        reference: last.body.data.reference,
      }),
    ]);
    // Settled: nothing more is paid.
    expectProblem(await payClaim(o, c.uuid, bank({ amount: 1 })), 409, 'invalid_state');
  });
});

describe('the rules of a payment', () => {
  it('an amount over what remains (net − paid − instructed) is 422 on amount; nothing is recorded', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 1_000_000n });
    expectProblem(await payClaim(o, c.uuid, bank({ amount: 10_001 })), 422, 'validation_failed', 'amount');
    expectProblem(await payClaim(o, c.uuid, b2c({ amount: 0 })), 422, 'validation_failed', 'amount');
    expectProblem(await payClaim(o, c.uuid, b2c({ amount: 5 })), 422, 'validation_failed', 'amount'); // B2C: KES 10 at least
    expectProblem(await payClaim(o, c.uuid, b2c({ final: true, amount: 9_000 })), 422, 'validation_failed', 'amount');
    expectProblem(await payClaim(o, c.uuid, b2c({ phone: '0812' })), 422, 'validation_failed', 'amount');
    expectProblem(await payClaim(o, c.uuid, b2c({ amount: 10, phone: '12345' })), 422, 'validation_failed', 'phone');
    expectProblem(
      await payClaim(o, c.uuid, bank({ amount: 10, bank_reference: '' })),
      422,
      'validation_failed',
      'bank_reference',
    );
    expect((await claimRow(o, c.uuid)).payments).toEqual([]);
    // Instructed money counts: a payout in flight leaves only the rest.
    const first = await payClaim(o, c.uuid, b2c({ amount: 6_000 }));
    expect(first.status, first.text).toBe(201);
    expectProblem(await payClaim(o, c.uuid, bank({ amount: 4_001 })), 422, 'validation_failed', 'amount');
    expect((await payClaim(o, c.uuid, bank({ final: true }))).body.data).toMatchObject({ amount_minor: 400_000 });
  });

  it('a claim that is not approved is 409 invalid_state', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 1_000_000n, status: 'under_assessment' });
    expectProblem(await payClaim(o, c.uuid, bank({ amount: 100 })), 409, 'invalid_state');
    expect((await claimRow(o, c.uuid)).payments).toEqual([]);
  });

  it('a bank transfer is paid at once; its reference is recorded once per organisation', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 5_000_000n });
    const r = await payClaim(o, c.uuid, bank({ amount: 1_000, bank_reference: 'FT-ONCE-001' }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ status: 'paid', reference: 'FT-ONCE-001', result: null, transaction_id: null });
    expect(r.body.data.paid_at).not.toBeNull();
    expectProblem(
      await payClaim(o, c.uuid, bank({ amount: 1_000, bank_reference: 'FT-ONCE-001' })),
      422,
      'validation_failed',
      'bank_reference',
    );
    expect(await claimRow(o, c.uuid)).toMatchObject({ paidMinor: 100_000n, reserveMinor: 4_900_000n });
  });

  it('an Idempotency-Key replay answers the first payment and pays nothing twice', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 5_000_000n });
    const key = randomUUID();
    const send = () =>
      o.api.post(`/claims/${c.uuid}/payments`, {
        token: o.tokens.staff,
        body: bank({ amount: 500, bank_reference: key }),
        idempotencyKey: key,
      });
    const [a, b] = [await send(), await send()];
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.data.uuid).toBe(a.body.data.uuid);
    expect((await claimRow(o, c.uuid)).payments).toHaveLength(1);
  });
});

describe('who may pay and see payments', () => {
  it('an agent may not pay (403 actor_forbidden), reads only claims within reach, and another organisation sees nothing', async () => {
    const mine = await approvedClaim(o, pol.uuid, { net: 1_000_000n, assigneeUserId: o.users.agent1.id });
    const theirs = await approvedClaim(o, pol.uuid, { net: 1_000_000n });
    const paid = await payClaim(o, mine.uuid, bank({ amount: 100 }));
    expect(paid.status, paid.text).toBe(201);
    expectProblem(await payClaim(o, mine.uuid, bank({ amount: 100 }), 'agent'), 403, 'actor_forbidden');
    expectProblem(await payClaim(o, mine.uuid, bank({ amount: 100 }), 'readonly'), 403, 'insufficient_scope');
    const agentGet = (path: string) => o.api.get(path, { token: o.tokens.agent });
    expect((await agentGet(`/claims/${mine.uuid}/payments`)).body.data).toHaveLength(1); // the positive control
    expectProblem(await agentGet(`/claims/${theirs.uuid}/payments`), 404, 'not_found');
    const one = `/claims/${mine.uuid}/payments/${paid.body.data.uuid}`;
    expect((await agentGet(one)).status).toBe(200);
    expectProblem(await agentGet(`/claims/${theirs.uuid}/payments/${paid.body.data.uuid}`), 404, 'not_found');
    expectProblem(await other.as('staff').get(one), 404, 'not_found');
    expectProblem(await other.as('staff').get(`/claims/${mine.uuid}/payments`), 404, 'not_found');
    expectProblem(await payClaim(other, mine.uuid, bank({ amount: 100 })), 404, 'not_found');
    expectProblem(await o.as('staff').get(`/claims/${mine.uuid}/payments/${randomUUID()}`), 404, 'not_found');
  });
});

describe('GraphQL', () => {
  const PAY = `mutation($input: PayClaimInput!) {
    payClaim(input: $input) {
      __typename
      ... on ClaimPayment { uuid paymentStatus: status method amount { amount amountMinor } amountMinor reference payeeName }
      ... on Problem { code status fieldErrors { field message } }
    }
  }`;

  it('payClaim answers typed results; the payment reads the same over REST and GraphQL', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 2_000_000n });
    const gql = (input: Record<string, unknown>) => o.as('staff').gql(PAY, { input: { claimId: c.uuid, ...input } });
    const bad = (
      await gql({
        method: 'bank_transfer',
        payeeName: 'X',
        amount: 20_001,
        bankName: 'KCB',
        bankAccount: '1',
        bankReference: 'G1',
      })
    ).body;
    expect(bad.data.payClaim).toMatchObject({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.amount' }],
    });
    const pending = await approvedClaim(o, pol.uuid, { net: 2_000_000n, status: 'under_assessment' });
    const refused = (
      await o.as('staff').gql(PAY, {
        input: { claimId: pending.uuid, method: 'mpesa_b2c', payeeName: 'X', phone: '0708374149', amount: 100 },
      })
    ).body;
    expect(refused.data.payClaim).toMatchObject({
      __typename: 'InvalidStateProblem',
      code: 'invalid_state',
      status: 409,
    });

    const ok = (
      await gql({ method: 'mpesa_b2c', payeeName: 'Wanjiru Kamau', phone: '+254 708 374 149', amount: 1_500 })
    ).body;
    expect(ok.errors).toBeUndefined();
    const p = ok.data.payClaim;
    expect(p).toMatchObject({
      __typename: 'ClaimPayment',
      paymentStatus: 'pending',
      amount: { amount: 1_500, amountMinor: 150_000 },
      amountMinor: 150_000,
    });
    const rest = await paymentIn(o, c.uuid, p.uuid, 'paid');
    const read = await o.as('staff').gql(
      `query($c: String!, $u: String!) {
        claimPayment(claimId: $c, uuid: $u) { uuid status method payeeType payeeName phone amount { amount amountMinor } reference transactionId resultCode resultDesc paidAt }
        claim(uuid: $c) { committed { amountMinor } paid { amountMinor } payments { uuid } reserveMovements { kind amountMinor balanceAfter { amountMinor } } }
      }`,
      { c: c.uuid, u: p.uuid },
    );
    expect(read.body.errors).toBeUndefined();
    const g = read.body.data.claimPayment;
    expect({
      uuid: g.uuid,
      status: g.status,
      method: g.method,
      payee: { type: g.payeeType, name: g.payeeName, phone: g.phone },
      amount: g.amount.amount,
      amount_minor: g.amount.amountMinor,
      reference: g.reference,
      transaction_id: g.transactionId,
      result: { code: g.resultCode, description: g.resultDesc },
      paid_at: g.paidAt,
    }).toEqual({
      uuid: rest.uuid,
      status: rest.status,
      method: rest.method,
      payee: { type: rest.payee.type, name: rest.payee.name, phone: rest.payee.phone },
      amount: rest.amount,
      amount_minor: rest.amount_minor,
      reference: rest.reference,
      transaction_id: rest.transaction_id,
      result: rest.result,
      paid_at: rest.paid_at,
    });
    expect(read.body.data.claim).toMatchObject({
      committed: { amountMinor: 0 },
      paid: { amountMinor: 150_000 },
      payments: [{ uuid: p.uuid }],
      reserveMovements: [
        { kind: 'approval', amountMinor: 2_000_000 },
        { kind: 'payment', amountMinor: -150_000, balanceAfter: { amountMinor: 1_850_000 } },
      ],
    });
    const agent = await o
      .as('agent')
      .gql(PAY, { input: { claimId: c.uuid, method: 'bank_transfer', payeeName: 'X', amount: 1 } });
    expect(agent.body.errors?.[0]?.extensions?.code).toBe('actor_forbidden');
  });
});
