import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, PHONES, TODAY, useKit, withClock } from './kit.ts';
import { fundedLoan, loanInStatus, loanRow, repay, signedLoan } from './kit/ipf.ts';

/**
 * Money in and out of a premium-finance loan (docs/premium-finance.md "Premium finance: deposit, funding, repayments and early
 * settlement"): the deposit by STK push, the lender's disbursement paying the policy's debit note, instalments
 * allocated oldest first with overpayments carried forward, a loan paid in full, and the refusals of ipf_repayment.
 *
 * Figures worked by hand from the seed: a private car at KES 1.5M with Simba (350 bps) is KES 52,500 basic + 105
 * training levy (20 bps) + 131.25 PHCF (25 bps) + 40 stamp duty = 5,277,625 cents. Mkopo over 6 months charges 380 bps:
 * 200,549.75 → 200,550; total repayable 5,478,175; payments 2–6 are ⌊5,478,175 ÷ 6⌋ to the whole shilling = 913,000
 * each and the deposit takes the rest, 5,478,175 − 5 × 913,000 = 913,175. Signed today (15 June), due monthly.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
// One after the other (each its own hook): four organisations made at once can outwait a busy database's 2 s.
const o = t.useOrg({ fast: true });
const other = t.useOrg({ fast: true, tokens: ['staff'] });
const sacco = t.useOrg({ type: 'sacco', tokens: ['staff'] });
const microfinance = t.useOrg({ type: 'microfinance', tokens: ['staff'] });

const PREMIUM = 5_277_625n;
const TOTAL = 5_478_175n;
const DUE = ['2026-06-15', '2026-07-15', '2026-08-15', '2026-09-15', '2026-10-15', '2026-11-15'];
const AMOUNTS = [913_175n, 913_000n, 913_000n, 913_000n, 913_000n, 913_000n];
const at = (ymd: string) => `${ymd}T06:00:00.000Z`; // 09:00 in Nairobi

/** The events named `name` about one loan (or its policy), oldest first. */
async function events(name: string, match: (d: any) => boolean): Promise<any[]> {
  const rows = await t.db.tenant(o.id, (tx) => tx.event.findMany({ where: { name }, orderBy: { createdAt: 'asc' } }));
  return rows.map((r) => r.data as any).filter(match);
}

async function sixMonthLoan() {
  const loan = await fundedLoan(o, { months: 6 });
  expect(loan.policy.premium.total_minor).toBe(Number(PREMIUM));
  const row = await loanRow(o, loan.loan.id);
  expect(row.totalRepayableMinor).toBe(TOTAL);
  expect(row.instalments.map((l) => [l.dueOn.toISOString().slice(0, 10), l.amountMinor])).toEqual(
    DUE.map((d, i) => [d, AMOUNTS[i]]),
  );
  return loan;
}

describe('the deposit by STK push, then the disbursement', () => {
  it('funds the loan: the lender pays the debit note, the policy is active, every event emitted', async () => {
    const signed = await signedLoan(o, { months: 6 });
    const { loanNo } = signed.loan;
    expect((await o.policy(signed.policy.uuid)).status).toBe('pending_payment');
    // The deposit, 913,175 cents, rounded up to whole shillings by M-Pesa: 9,132 (the 25 cents go to line 2).
    await repay(o, loanNo, 913_175n);
    const loan = await loanInStatus(o, signed.loan.id, 'active');
    expect(loan.paidMinor).toBe(913_200n);
    expect(loan.instalments.map((l) => l.paidMinor)).toEqual([913_175n, 25n, 0n, 0n, 0n, 0n]);
    expect(loan.disbursementRef).toMatch(/^DSB-/);
    expect(loan.fundedAt).not.toBeNull();
    const policy = await o.policy(signed.policy.uuid);
    expect(policy.status).toBe('active');

    const { notes, receipts, app, call, pol } = await t.db.tenant(o.id, async (tx) => ({
      notes: await tx.debitNote.findMany({ where: { policy: { uuid: signed.policy.uuid } } }),
      receipts: await tx.receipt.findMany({
        where: { policy: { uuid: signed.policy.uuid } },
        include: { allocations: true, ipfAllocations: { include: { instalment: true } } },
        orderBy: { id: 'asc' },
      }),
      app: await tx.ipfApplication.findUniqueOrThrow({ where: { id: signed.application.id } }),
      call: await tx.ipfLenderCall.findMany({ where: { loanId: signed.loan.id } }),
      pol: await tx.policy.findUniqueOrThrow({ where: { uuid: signed.policy.uuid } }),
    }));
    const [deposit, lender] = receipts;
    expect(deposit).toMatchObject({ method: 'mpesa', purpose: 'ipf_repayment', loanId: signed.loan.id });
    expect(deposit).toMatchObject({ account: loanNo, amountMinor: 913_200n, unallocatedMinor: 0n });
    expect(deposit.allocations).toEqual([]);
    expect(deposit.ipfAllocations.map((a) => [a.instalment.seq, a.amountMinor])).toEqual([
      [1, 913_175n],
      [2, 25n],
    ]);
    expect(lender).toMatchObject({ method: 'ipf_lender', purpose: 'premium', transactionRef: loan.disbursementRef });
    expect(lender).toMatchObject({ amountMinor: PREMIUM, unallocatedMinor: 0n, loanId: null });
    expect(lender.allocations.map((a) => a.amountMinor)).toEqual([PREMIUM]);
    expect(notes.map((n) => [n.paidMinor, n.amountMinor])).toEqual([[PREMIUM, PREMIUM]]);
    expect(app.status).toBe('funded');
    // The policy's record says what each receipt paid for: the deposit is the loan's, allocated to no debit note.
    const rec = await o.api.get(`/policies/${signed.policy.uuid}`, { token: o.tokens.staff });
    expect(rec.body.data.receipts.map((r: any) => [r.receipt_no, r.purpose, r.account, r.allocations.length])).toEqual([
      [deposit.receiptNo, 'ipf_repayment', loanNo, 0],
      [lender.receiptNo, 'premium', lender.account, 1],
    ]);
    expect(pol.refundsTo).toBe('lender');
    expect(call.map((c) => [c.kind, c.status, c.attempts])).toEqual([['disbursement', 'confirmed', 1]]);

    const [received] = await events('payment.received', (d) => d.loan_no === loanNo);
    expect(received).toMatchObject({
      receipt_no: deposit.receiptNo,
      amount: 9132,
      amount_minor: 913_200,
      account: loanNo,
      purpose: 'ipf_repayment',
      policy_no: signed.policy.policy_no,
      client_no: signed.policy.client_no,
      allocations: [
        { instalment: 1, due_on: '2026-06-15', amount: 9132, amount_minor: 913_175 },
        { instalment: 2, due_on: '2026-07-15', amount: 0, amount_minor: 25 },
      ],
      unallocated: { amount: 0, amount_minor: 0 },
    });
    expect(await events('ipf.funded', (d) => d.loan_no === loanNo)).toEqual([
      {
        application_no: signed.application.applicationNo,
        application_uuid: signed.application.uuid,
        loan_no: loanNo,
        loan_uuid: signed.loan.uuid,
        policy_no: signed.policy.policy_no,
        policy_uuid: signed.policy.uuid,
        client_no: signed.policy.client_no,
        lender: 'Mkopo Premium Finance',
        disbursed: { amount: 52_776, amount_minor: 5_277_625 },
        disbursement_ref: loan.disbursementRef,
        receipt_no: lender.receiptNo,
        funded_at: expect.stringMatching(/\+03:00$/),
      },
    ]);
    const [activated] = await events('policy.activated', (d) => d.policy_no === signed.policy.policy_no);
    expect(activated).toMatchObject({ receipt_no: lender.receiptNo, checkout_request_id: null, status: 'active' });
    // The lender's receipt is no M-Pesa payment: payment.received names only the deposit.
    expect(await events('payment.received', (d) => d.policy_no === signed.policy.policy_no)).toHaveLength(1);
  });
});

describe('instalments by STK push', () => {
  it('three instalments on their due dates, each to the oldest line still owing; the 25 cents carried along', async () => {
    const { loan } = await sixMonthLoan();
    for (const day of DUE.slice(1, 4)) await withClock(at(day), () => repay(o, loan.loanNo, 913_000n));
    const row = await loanRow(o, loan.id);
    expect(row.status).toBe('active');
    expect(row.paidMinor).toBe(913_200n + 3n * 913_000n);
    expect(row.instalments.map((l) => l.paidMinor)).toEqual([913_175n, 913_000n, 913_000n, 913_000n, 25n, 0n]);
    const paid = await events('payment.received', (d) => d.loan_no === loan.loanNo);
    expect(paid.map((d) => d.allocations.map((a: any) => [a.instalment, a.amount_minor]))).toEqual([
      [
        [1, 913_175],
        [2, 25],
      ],
      [
        [2, 912_975],
        [3, 25],
      ],
      [
        [3, 912_975],
        [4, 25],
      ],
      [
        [4, 912_975],
        [5, 25],
      ],
    ]);
  });

  it('an overpayment runs on to the next lines; beyond the whole loan it is the client’s credit, and the loan is settled', async () => {
    const { loan, policy } = await sixMonthLoan();
    // KES 20,000: line 2 takes its 912,975, line 3 all 913,000, line 4 the rest, 174,025.
    await repay(o, loan.loanNo, 2_000_000n);
    let row = await loanRow(o, loan.id);
    expect(row.instalments.map((l) => l.paidMinor)).toEqual([913_175n, 913_000n, 913_000n, 174_025n, 0n, 0n]);
    // What is left: 5,478,175 − 913,200 − 2,000,000 = 2,564,975; KES 25,750 pays it and 10,025 cents more.
    await repay(o, loan.loanNo, 2_575_000n);
    row = await loanInStatus(o, loan.id, 'settled');
    expect(row).toMatchObject({ paidMinor: TOTAL, rebateMinor: 0n });
    expect(row.instalments.map((l) => [l.paidMinor, l.waivedMinor])).toEqual(AMOUNTS.map((a) => [a, 0n]));
    const last = await t.db.tenant(o.id, (tx) =>
      tx.receipt.findFirstOrThrow({ where: { loanId: loan.id }, orderBy: { id: 'desc' } }),
    );
    expect(last.unallocatedMinor).toBe(10_025n);
    const credit = await t.db.tenant(o.id, (tx) => tx.clientCredit.findMany({ where: { receiptId: last.id } }));
    expect(credit.map((c) => c.amountMinor)).toEqual([10_025n]);
    const [settled] = await events('ipf.settled', (d) => d.loan_no === loan.loanNo);
    expect(settled).toMatchObject({
      early: false,
      paid: { amount: 54_782, amount_minor: 5_478_175 },
      rebate: { amount: 0, amount_minor: 0 },
    });
    const pol = await t.db.tenant(o.id, (tx) => tx.policy.findUniqueOrThrow({ where: { uuid: policy.uuid } }));
    expect(pol.refundsTo).toBe('client');
    // A settled loan takes no more.
    const again = await o.push({ phone: PHONES.success, amount: 10, account: loan.loanNo, purpose: 'ipf_repayment' });
    expectProblem(again, 422, 'domain_rule');
  });
});

describe('ipf_repayment refused', () => {
  const push = (account: string) => ({ phone: PHONES.success, amount: 100, account, purpose: 'ipf_repayment' });

  it('an unknown loan, another organisation’s, another agent’s: 422 on account, as for policies', async () => {
    expectProblem(await o.push(push(`IPF-${TODAY.slice(0, 4)}-999999`)), 422, 'validation_failed', 'account');
    const mine = await signedLoan(o, { token: o.tokens.agent });
    expectProblem(await other.push(push(mine.loan.loanNo)), 422, 'validation_failed', 'account');
    const agent2 = o.as('staff', { agent: 2 });
    const asAgent2 = await agent2.post('/payment/stk/push', {
      body: push(mine.loan.loanNo),
      idempotencyKey: randomUUID(),
    });
    expectProblem(asAgent2, 422, 'validation_failed', 'account');
    // Positive control: the agent whose policy it is pays it (a part of the deposit).
    const own = await o.push(push(mine.loan.loanNo), o.tokens.agent);
    expect(own.status, own.text).toBe(202);
    expect(own.body.data).toMatchObject({ account: mine.loan.loanNo, purpose: 'ipf_repayment', amount: 100 });
  });

  it.each([
    ['sacco', () => sacco],
    ['microfinance', () => microfinance],
  ])('a %s organisation: 403 ipf_not_offered', async (_type, org) => {
    expectProblem(await org().push(push(`IPF-${TODAY.slice(0, 4)}-000001`)), 403, 'ipf_not_offered');
    // Positive control: the same token may push premium (its account is refused, not the purpose).
    const premium = await org().push({ ...push('MTR-2026-999999'), purpose: 'premium' });
    expectProblem(premium, 422, 'validation_failed', 'account');
  });
});
