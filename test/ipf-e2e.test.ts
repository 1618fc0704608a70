import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { expectProblem, INSTANT_RAIL, PHONES, useKit, waitFor, withClock } from './kit.ts';
import { ipfPolicy, loanInStatus, repay } from './kit/ipf.ts';
import { applicationBody, decided, lenderId, MKOPO, signingCode } from './kit/ipf-application.ts';

/**
 * A motor policy financed end to end through the public API alone (docs/premium-finance.md "Premium finance"): quote → apply →
 * the lender's approval (the ipf.decide job) → the agreement signed with the code sent by SMS → the deposit by STK
 * push → the lender's disbursement paying the debit note (the ipf.disburse job) → the policy active → three
 * instalments by STK push on their due dates → early settlement quoted, confirmed and paid → settled. Every event
 * reaches a webhook endpoint whose signatures are checked over the raw bytes.
 *
 * By hand (the seeded panel; docs/premium-finance.md "Premium finance" and the rules at the top of src/modules/reference/ipf-terms.ts):
 * a private car at KES 1.5M with Simba is 5,277,625 cents gross. Mkopo over 6 months charges 380 bps: 200,549.75 →
 * 200,550; total 5,478,175; payments 2–6 ⌊5,478,175 ÷ 6⌋ to the shilling = 913,000, the deposit 913,175; apr_bps
 * 380 × 12 ÷ 6 = 760. The deposit is prompted as KES 9,132 (25 cents carried to line 2); lines 2–4 are paid as
 * 913,000 each on 15 July, August and September: 3,652,200 paid, 1,825,975 owed. On 15 September lines 5 and 6 are not
 * yet due: rebate ⌊200,550 × 2 ÷ 6⌋ = 66,850, payoff 1,825,975 − 66,850 = 1,759,125 (prompted as KES 17,592: the 75
 * cents over are the client's credit). Paid 3,652,200 + 1,759,125 = 5,411,325; plus the rebate, 5,478,175.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const receiver = new WebhookReceiver();
let secret = '';
const EVENTS = ['ipf.decided', 'ipf.funded', 'ipf.settled', 'payment.received', 'policy.activated'];

beforeAll(async () => {
  await receiver.start();
  const ep = await o.api.post('/webhooks/endpoints', {
    token: o.tokens.staff,
    idempotencyKey: randomUUID(),
    body: { url: receiver.url, events: EVENTS },
  });
  expect(ep.status, ep.text).toBe(201);
  secret = ep.body.data.secret;
}, 60_000);

afterAll(() => receiver.stop());

const post = (path: string, body: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
const at = (ymd: string) => `${ymd}T06:00:00.000Z`; // 09:00 in Nairobi

describe('a motor policy financed end to end', () => {
  it('quotes, applies, is approved, signs by code, pays the deposit, is funded and active, repays, settles early', async () => {
    const pol = await ipfPolicy(o);
    expect(pol.premium.total_minor).toBe(5_277_625);

    // Quote for the pending policy: Mkopo over 6 months, by hand.
    const q = await post('/ipf/quote', { policy: pol.uuid, lender_id: await lenderId(o), tenor_months: 6 });
    expect(q.status, q.text).toBe(200);
    expect(q.body.data.offers).toHaveLength(1);
    expect(q.body.data.offers[0]).toMatchObject({
      lender_name: MKOPO,
      tenor_months: 6,
      charge_minor: 200_550,
      total_repayable_minor: 5_478_175,
      deposit_minor: 913_175,
      instalment_minor: 913_000,
      apr_bps: 760,
    });

    // Apply and submit; the lender decides in the background.
    const created = await post('/ipf/applications', await applicationBody(o, pol, { tenor_months: 6, submit: true }));
    expect(created.status, created.text).toBe(201);
    const approved = await decided(o, created.body.data.uuid);
    expect(approved.status).toBe('approved');

    // Sign with the code the client received by SMS: the loan exists, awaiting its deposit.
    const { code } = await signingCode(o, approved);
    const signed = await post(`/ipf/applications/${approved.uuid}/sign`, { code });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.body.data.status).toBe('signed');
    const { loan_no: loanNo, uuid: loanUuid } = signed.body.data.loan;
    const loanId = (await t.db.tenant(o.id, (tx) => tx.ipfLoan.findUniqueOrThrow({ where: { uuid: loanUuid } }))).id;

    // The lender pays this premium: the client cannot also pay it directly while the loan awaits its deposit.
    const direct = await o.push({ phone: PHONES.success, amount: 52_777, account: pol.policy_no });
    expectProblem(direct, 422, 'domain_rule');

    // The deposit by STK push → the disbursement → the policy active.
    await repay(o, loanNo, 913_175n);
    await loanInStatus(o, loanId, 'active');
    expect((await o.policy(pol.uuid)).status).toBe('active');

    // Three instalments on their due dates.
    for (const day of ['2026-07-15', '2026-08-15', '2026-09-15'])
      await withClock(at(day), () => repay(o, loanNo, 913_000n));

    await withClock(at('2026-09-15'), async () => {
      const quote = await post(`/ipf/loans/${loanUuid}/early-settlement`, {});
      expect(quote.status, quote.text).toBe(200);
      expect(quote.body.data).toMatchObject({
        outstanding_minor: 1_825_975,
        rebate_minor: 66_850,
        payoff_minor: 1_759_125,
        valid_until: '2026-09-22',
      });
      const confirmed = await post(`/ipf/loans/${loanUuid}/early-settlement`, { confirm: true, phone: PHONES.success });
      expect(confirmed.status, confirmed.text).toBe(202);
      await loanInStatus(o, loanId, 'settled');
    });

    const loan = await o.api.get(`/ipf/loans/${loanUuid}`, { token: o.tokens.staff });
    expect(loan.status, loan.text).toBe(200);
    expect(loan.body.data).toMatchObject({
      status: 'settled',
      paid_minor: 5_411_325,
      rebate_minor: 66_850,
      outstanding_minor: 0,
    });

    // Every event reached the endpoint, signed.
    const about = (name: string) =>
      receiver.received.filter((r) => r.body?.event === name && r.body?.data?.policy_uuid === pol.uuid);
    await receiver.waitFor(
      () =>
        about('ipf.settled').length === 1 && about('payment.received').length === 5 && about('ipf.funded').length === 1,
      30_000,
    );
    expect(about('ipf.decided').map((r) => r.body.data)).toEqual([
      expect.objectContaining({ decision: 'approved', reasons: [], tenor_months: 6, loan_no: null }),
    ]);
    expect(about('ipf.funded')[0].body.data).toMatchObject({
      loan_no: loanNo,
      disbursed: { amount_minor: 5_277_625 },
    });
    expect(about('policy.activated')).toHaveLength(1);
    expect(about('payment.received').map((r) => r.body.data.amount_minor)).toEqual([
      913_200, 913_000, 913_000, 913_000, 1_759_200,
    ]);
    expect(about('ipf.settled')[0].body.data).toMatchObject({
      loan_no: loanNo,
      early: true,
      rebate: { amount_minor: 66_850 },
      paid: { amount_minor: 5_411_325 },
    });
    for (const r of receiver.received) {
      expect(verifySignature(secret, r.headers['service-signature'] as string, r.raw)).toBe(true);
    }
    // The overpaid 75 cents are the client's credit.
    const credit = await waitFor(
      'the client credit of the overpaid cents',
      () =>
        t.db.tenant(o.id, (tx) =>
          tx.clientCredit.aggregate({ where: { client: { clientNo: pol.client_no } }, _sum: { amountMinor: true } }),
        ),
      (c) => (c._sum.amountMinor ?? 0n) === 75n,
    );
    expect(credit._sum.amountMinor).toBe(75n);
  }, 240_000);
});
