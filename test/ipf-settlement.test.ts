import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, useKit, waitFor, withClock } from './kit.ts';
import { fundedLoan, loanInStatus, loanRow, repay, signedLoan } from './kit/ipf.ts';

/**
 * Early settlement (POST /ipf/loans/{uuid}/early-settlement, GraphQL settleIpfLoanEarly; docs/premium-finance.md "Premium finance:
 * deposit, funding, repayments and early settlement"): the quote, the confirmation holding the figure and prompting
 * for the payoff, the payment settling the loan with the rebate, and the Idempotency-Key.
 *
 * By hand (the loan of test/ipf-money.test.ts: Mkopo, 6 months, charge 200,550, total 5,478,175, deposit 913,175 then
 * 913,000 a month from 15 June): the deposit is paid as KES 9,132 and lines 2–4 as 913,000 each on their due dates, so
 * on 15 September 3,652,200 is paid and 1,825,975 owed. Lines 5 and 6 (15 October, 15 November) are not yet due: the
 * rebate is ⌊200,550 × 2 ÷ 6⌋ = 66,850 and the payoff 1,825,975 − 66,850 = 1,759,125 (KES 17,591.25, prompted as
 * 17,592), valid until 22 September. Paid: line 5 takes its 912,975, line 6 846,150, and its last 66,850 is waived;
 * 75 cents are the client's credit. The loan: paid 3,652,200 + 1,759,125 = 5,411,325, plus the rebate, is 5,478,175.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const sacco = t.useOrg({ type: 'sacco', tokens: ['staff'] });
const microfinance = t.useOrg({ type: 'microfinance', tokens: ['staff'] });

const SEPT_15 = '2026-09-15T06:00:00.000Z'; // 09:00 in Nairobi
const settle = (uuid: string, body: Record<string, unknown>, key: string = randomUUID(), token = o.tokens.staff) =>
  o.api.post(`/ipf/loans/${uuid}/early-settlement`, { token, body, idempotencyKey: key });

/** The six-month loan with its deposit and lines 2–4 paid on their due dates. */
async function loanOnSeptember15() {
  const funded = await fundedLoan(o, { months: 6 });
  for (const day of ['2026-07-15', '2026-08-15', '2026-09-15'])
    await withClock(`${day}T06:00:00.000Z`, () => repay(o, funded.loan.loanNo, 913_000n));
  expect((await loanRow(o, funded.loan.id)).paidMinor).toBe(3_652_200n);
  return funded;
}

const QUOTE = {
  as_of: '2026-09-15',
  outstanding: 18_260,
  outstanding_minor: 1_825_975,
  rebate: 669,
  rebate_minor: 66_850,
  payoff: 17_591,
  payoff_minor: 1_759_125,
  instalments_waived: [{ instalment: 6, due_on: '2026-11-15', amount: 669, amount_minor: 66_850 }],
  valid_until: '2026-09-22',
};

describe('early settlement: quote, confirm, pay', () => {
  it('quotes, holds the figure and prompts for the payoff; the payment settles the loan with the rebate', async () => {
    const { loan, policy } = await loanOnSeptember15();
    await withClock(SEPT_15, async () => {
      const quote = await settle(loan.uuid, {});
      expect(quote.status, quote.text).toBe(200);
      expect(quote.body.data).toEqual({
        loan: { uuid: loan.uuid, loan_no: loan.loanNo, status: 'active' },
        status: 'quoted',
        ...QUOTE,
        payment: null,
      });
      expect(await loanRow(o, loan.id)).toMatchObject({ settlementPayoffMinor: null, status: 'active' });

      // GraphQL answers the same figure.
      const gql = await o.as('staff').gql(
        `mutation($i: SettleIpfLoanEarlyInput!) { settleIpfLoanEarly(input: $i) {
          __typename ... on IpfEarlySettlement { phase asOf payoff { amountMinor } rebate { amountMinor }
            instalmentsWaived { instalment dueOn amount { amountMinor } } validUntil payment { id } } } }`,
        { i: { uuid: loan.uuid } },
      );
      expect(gql.body.data.settleIpfLoanEarly).toEqual({
        __typename: 'IpfEarlySettlement',
        phase: 'quoted',
        asOf: '2026-09-15',
        payoff: { amountMinor: 1_759_125 },
        rebate: { amountMinor: 66_850 },
        instalmentsWaived: [{ instalment: 6, dueOn: '2026-11-15', amount: { amountMinor: 66_850 } }],
        validUntil: '2026-09-22',
        payment: null,
      });

      const key = randomUUID();
      const confirmed = await settle(loan.uuid, { confirm: true }, key);
      expect(confirmed.status, confirmed.text).toBe(202);
      expect(confirmed.body.data).toMatchObject({ status: 'confirmed', ...QUOTE });
      const payment = confirmed.body.data.payment;
      expect(payment).toMatchObject({
        account: loan.loanNo,
        purpose: 'ipf_repayment',
        amount: 17_592,
        amount_minor: 1_759_200,
        phone: expect.stringMatching(/^2547/),
      });
      expect(await loanRow(o, loan.id)).toMatchObject({
        settlementPayoffMinor: 1_759_125n,
        settlementRebateMinor: 66_850n,
        settlementValidUntil: new Date('2026-09-22T00:00:00Z'),
      });
      const s = await o.settled(payment.checkout_request_id);
      expect(s.body.data.status, s.text).toBe('succeeded');
      const settled = await loanInStatus(o, loan.id, 'settled');
      expect(settled).toMatchObject({ paidMinor: 5_411_325n, rebateMinor: 66_850n });
      expect(settled.instalments.map((l) => [l.seq, l.paidMinor, l.waivedMinor])).toEqual([
        [1, 913_175n, 0n],
        [2, 913_000n, 0n],
        [3, 913_000n, 0n],
        [4, 913_000n, 0n],
        [5, 913_000n, 0n],
        [6, 846_150n, 66_850n],
      ]);

      // The Idempotency-Key: the first answer byte for byte (the loan as it was, active, the figure held then, the
      // push as first answered), although the loan has since been paid and settled; nothing sent again.
      expect(confirmed.body.data.loan.status).toBe('active');
      const again = await settle(loan.uuid, { confirm: true }, key);
      expect(again.status, again.text).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(confirmed.text);
      // GraphQL, the same key (the same API client): the same first answer, replayed.
      const replayGql = () =>
        o.as('staff').gql(
          `mutation($i: SettleIpfLoanEarlyInput!) { settleIpfLoanEarly(input: $i) {
            __typename ... on IpfEarlySettlement { loanNo loanStatus phase asOf payoff { amountMinor }
              instalmentsWaived { instalment amount { amountMinor } } validUntil replayed
              payment { checkoutRequestId paymentRequest { status } } } } }`,
          { i: { uuid: loan.uuid, confirm: true, idempotencyKey: key } },
        );
      const g1 = await replayGql();
      expect(g1.body.data.settleIpfLoanEarly).toEqual({
        __typename: 'IpfEarlySettlement',
        loanNo: loan.loanNo,
        loanStatus: 'active',
        phase: 'confirmed',
        asOf: '2026-09-15',
        payoff: { amountMinor: 1_759_125 },
        instalmentsWaived: [{ instalment: 6, amount: { amountMinor: 66_850 } }],
        validUntil: '2026-09-22',
        replayed: true,
        payment: { checkoutRequestId: payment.checkout_request_id, paymentRequest: { status: 'pending' } },
      });
      expect(JSON.stringify((await replayGql()).body)).toBe(JSON.stringify(g1.body));
      // The same key with another phone is another request.
      expectProblem(
        await settle(loan.uuid, { confirm: true, phone: '0722000111' }, key),
        422,
        'idempotency_key_reused',
      );
      const prompts = await t.db.tenant(o.id, (tx) => tx.paymentRequest.count({ where: { loanId: loan.id } }));
      expect(prompts).toBe(5); // the deposit, lines 2–4 and the one payoff
    });

    const { receipt, credit, pol, evs } = await t.db.tenant(o.id, async (tx) => {
      const receipt = await tx.receipt.findFirstOrThrow({ where: { loanId: loan.id }, orderBy: { id: 'desc' } });
      return {
        receipt,
        credit: await tx.clientCredit.findMany({ where: { receiptId: receipt.id } }),
        pol: await tx.policy.findUniqueOrThrow({ where: { uuid: policy.uuid } }),
        evs: await tx.event.findMany({ where: { name: { in: ['ipf.settled', 'payment.received'] } } }),
      };
    });
    expect(receipt).toMatchObject({ amountMinor: 1_759_200n, unallocatedMinor: 75n });
    expect(credit.map((c) => c.amountMinor)).toEqual([75n]);
    expect(pol.refundsTo).toBe('client');
    const ofLoan = evs
      .map((e) => ({ name: e.name, data: e.data as any }))
      .filter((e) => e.data.loan_no === loan.loanNo);
    expect(ofLoan.find((e) => e.data.receipt_no === receipt.receiptNo)?.data.allocations).toEqual([
      { instalment: 5, due_on: '2026-10-15', amount: 9130, amount_minor: 912_975 },
      { instalment: 6, due_on: '2026-11-15', amount: 8462, amount_minor: 846_150 },
    ]);
    expect(ofLoan.filter((e) => e.name === 'ipf.settled').map((e) => e.data)).toEqual([
      expect.objectContaining({
        early: true,
        paid: { amount: 54_113, amount_minor: 5_411_325 },
        rebate: { amount: 669, amount_minor: 66_850 },
        policy_no: policy.policy_no,
      }),
    ]);
  });

  it('a figure past valid_until no longer settles: the payment goes to the lines, nothing is waived', async () => {
    const { loan } = await loanOnSeptember15();
    await withClock(SEPT_15, async () => {
      const r = await settle(loan.uuid, { confirm: true, phone: '254700000003' }); // insufficient funds: nothing paid
      expect(r.status, r.text).toBe(202);
      expect((await o.settled(r.body.data.payment.checkout_request_id)).body.data.status).toBe('failed');
    });
    await withClock('2026-09-23T06:00:00.000Z', () => repay(o, loan.loanNo, 1_759_125n));
    const row = await loanRow(o, loan.id);
    expect(row).toMatchObject({ status: 'active', rebateMinor: 0n, paidMinor: 3_652_200n + 1_759_200n });
    expect(row.instalments.map((l) => l.waivedMinor)).toEqual([0n, 0n, 0n, 0n, 0n, 0n]);
  });
});

describe('early settlement refused', () => {
  it('a loan awaiting its deposit: 409 invalid_state; unknown or unseen: 404; a reused key: 422', async () => {
    const pending = await signedLoan(o, { token: o.tokens.agent });
    expectProblem(await settle(pending.loan.uuid, {}), 409, 'invalid_state');
    expectProblem(await settle(randomUUID(), {}), 404, 'not_found');
    expectProblem(await settle('not-a-uuid', {}), 404, 'not_found');
    const agent2 = o.as('staff', { agent: 2 });
    const unseen = await agent2.post(`/ipf/loans/${pending.loan.uuid}/early-settlement`, {
      body: {},
      idempotencyKey: randomUUID(),
    });
    expectProblem(unseen, 404, 'not_found');
    // Positive control: the agent whose policy it is reaches it (and meets the state rule).
    expectProblem(await settle(pending.loan.uuid, {}, randomUUID(), o.tokens.agent), 409, 'invalid_state');
    expectProblem(await settle(pending.loan.uuid, { confirm: true, phone: '12' }), 422, 'validation_failed', 'phone');

    const { loan } = await fundedLoan(o, { months: 6 });
    const key = randomUUID();
    const push = await o.push(
      { phone: '0708374149', amount: 10, account: loan.loanNo, purpose: 'ipf_repayment' },
      undefined,
      key,
    );
    expect(push.status, push.text).toBe(202);
    expectProblem(await settle(loan.uuid, { confirm: true }, key), 422, 'idempotency_key_reused');
    expect((await loanRow(o, loan.id)).settlementPayoffMinor).toBeNull();
    await waitFor(
      'the push to settle',
      () => o.settled(push.body.data.checkout_request_id),
      (r) => r.body.data.status === 'succeeded',
    );
  });

  it.each([
    ['sacco', () => sacco],
    ['microfinance', () => microfinance],
  ])('a %s organisation: 403 ipf_not_offered, REST and GraphQL', async (_type, org) => {
    const r = await org().api.post(`/ipf/loans/${randomUUID()}/early-settlement`, {
      token: org().tokens.staff,
      body: { confirm: true },
      idempotencyKey: randomUUID(),
    });
    expectProblem(r, 403, 'ipf_not_offered');
    const g = await org()
      .as('staff')
      .gql('mutation($i: SettleIpfLoanEarlyInput!) { settleIpfLoanEarly(input: $i) { __typename } }', {
        i: { uuid: randomUUID() },
      });
    expect(g.body.errors?.[0]?.extensions?.code).toBe('ipf_not_offered');
  });
});
