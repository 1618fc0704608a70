import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { confirmCallback } from '../src/modules/payments/confirm/callback.ts';
import { resolveInDoubt } from '../src/modules/payments/confirm/in-doubt.ts';
import { reconcileStatement } from '../src/modules/payments/confirm/statement.ts';
import type { MobileMoneyRail } from '../src/ports/mobile-money.ts';
import { INSTANT_RAIL, type Org, PHONES, useKit, waitFor } from './kit.ts';
import { signedLoan } from './kit/ipf.ts';

/**
 * Two organisations on one paybill (every test organisation, like the sandbox, is on 522533) with the same account
 * number (numbers restart at 1 in each), the same phone and the same amount, each with a push in doubt (the rail took
 * the prompt, its acknowledgement was never recorded). A statement line says only phone, AccountReference and
 * amount: it could be either's, so neither takes it from the statement; each is settled by its own prompt's
 * callback (docs/payments.md "Payments in doubt on a shared paybill").
 */

const t = useKit({ ...INSTANT_RAIL, mpesaRailTimeoutMs: 1_500 }, { jobs: true });
const first = t.useOrg({ fast: true });
const second = t.useOrg({ fast: true });
const app = () => t.app.services;

let realRail: MobileMoneyRail | null = null;
afterEach(() => {
  if (realRail) t.app.services.mobileMoney.rail = realRail;
  realRail = null;
});

/**
 * The rail takes every prompt but answers after MPESA_RAIL_TIMEOUT_MS (the push is 503 and its request in doubt), and
 * its status query is unreachable, so the callbacks that come stay open until the test lets them be confirmed.
 */
function railThatLosesAcks() {
  const rail = t.app.services.mobileMoney.rail!;
  realRail = rail;
  const state = { queryable: false };
  t.app.services.mobileMoney.rail = {
    stkPush: async (req) => {
      const ack = await rail.stkPush(req);
      await new Promise((r) => setTimeout(r, 2_500));
      return ack;
    },
    query: (id) => (state.queryable ? rail.query(id) : Promise.reject(new Error('rail unreachable'))),
    pullTransactions: (req) => rail.pullTransactions(req),
  };
  return state;
}

/** A push left in doubt, with its prompt paid on the rail and its callback stored (open). */
async function pushInDoubt(o: Org, account: string, purpose = 'premium') {
  const key = randomUUID();
  const r = await o.push({ phone: PHONES.success, amount: 5, account, purpose }, o.tokens.staff, key);
  expect(r.status, r.text).toBe(503);
  const pr = await t.db.tenant(o.id, (tx) => tx.paymentRequest.findFirstOrThrow({ where: { idempotencyKey: key } }));
  expect(pr).toMatchObject({ status: 'sending', checkoutRequestId: null, shortcode: '522533' });
  const prompt = (await waitFor(
    'the prompt paid on the rail',
    () =>
      t.db.system((tx) =>
        tx.mpesaSimPrompt.findFirst({
          where: {
            phone: PHONES.success,
            accountReference: pr.accountReference,
            resultCode: 0,
            createdAt: { gte: pr.createdAt },
          },
          orderBy: { createdAt: 'desc' },
        }),
      ),
    (p) => p != null,
  ))!;
  await waitFor(
    'its callback stored',
    () => t.db.tenant(o.id, (tx) => tx.mpesaCallback.count({ where: { checkoutRequestId: prompt.checkoutRequestId } })),
    (n) => n > 0,
  );
  // Past its attempt's lease: in doubt for every look-up from now on.
  await waitFor(
    'the attempt past its lease',
    () => t.db.system((tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id: pr.id } })),
    (row) => !row.sendingUntil || row.sendingUntil <= new Date(),
  );
  return { pr, prompt };
}

async function requestOf(o: Org, id: string) {
  return t.db.tenant(o.id, async (tx) => ({
    ...(await tx.paymentRequest.findUniqueOrThrow({ where: { id } })),
    receipt: await tx.receipt.findFirst({ where: { paymentRequestId: id } }),
  }));
}

describe('payments in doubt on a shared paybill', () => {
  it('two organisations, same account number, phone and amount: neither takes a line from the statement; each is settled by its own callback', async () => {
    const a = await first.pendingPolicy();
    const b = await second.pendingPolicy();
    expect(b.policy_no).toBe(a.policy_no);
    const rail = railThatLosesAcks();
    const one = await pushInDoubt(first, a.policy_no);
    const two = await pushInDoubt(second, b.policy_no);
    expect(two.pr.accountReference).toBe(one.pr.accountReference);

    // The statement shows both paid lines; either could be either request's: none is attributed.
    expect(await resolveInDoubt(app(), two.pr.id)).toBe('in_doubt');
    expect(await resolveInDoubt(app(), one.pr.id)).toBe('in_doubt');
    // The status query (REST) and its GraphQL twin look it up too, and answer still in doubt.
    const rest = await second.status(two.pr.id);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.data.status).toBe('sending');
    const gql = await second.api.gql(
      'query($c: String!) { stkPushStatus(checkoutRequestId: $c) { status } }',
      { c: two.pr.id },
      { token: second.tokens.staff },
    );
    expect(gql.body.data.stkPushStatus, JSON.stringify(gql.body)).toEqual({ status: 'sending' });
    // Past the prompt's life, still never failed: its money may be on the statement.
    const later = new Date(Date.now() + (app().config.mpesaPromptTtlSeconds + 60) * 1000);
    expect(await resolveInDoubt(app(), two.pr.id, later)).toBe('in_doubt');
    // The sweep over the paybill attributes neither line, and files neither as unmatched money.
    await reconcileStatement(app(), later);
    for (const [o, x] of [
      [first, one],
      [second, two],
    ] as const) {
      expect((await requestOf(o, x.pr.id)).status).toBe('sending');
      expect(
        await t.db.system((tx) => tx.unmatchedPayment.count({ where: { transactionRef: x.prompt.receiptNo! } })),
      ).toBe(0);
    }

    // The callbacks name their own checkout ids: the rail confirms them, each request takes its own prompt.
    rail.queryable = true;
    for (const o of [second, first]) {
      const open = await t.db.tenant(o.id, (tx) => tx.mpesaCallback.findMany({ where: { processedAt: null } }));
      expect(open.length).toBe(1);
      expect(await confirmCallback(app(), open[0].id)).toBe('settled');
    }
    for (const [o, x] of [
      [first, one],
      [second, two],
    ] as const) {
      const pr = await requestOf(o, x.pr.id);
      expect(pr).toMatchObject({
        status: 'succeeded',
        resolvedVia: 'callback',
        checkoutRequestId: x.prompt.checkoutRequestId,
      });
      expect(pr.receipt).toMatchObject({ transactionRef: x.prompt.receiptNo, amountMinor: 500n });
      const s = await o.status(x.prompt.checkoutRequestId);
      expect(s.status, s.text).toBe(200);
      expect(s.body.data).toMatchObject({ status: 'succeeded', mpesa_receipt_number: x.prompt.receiptNo });
    }
  }, 60_000);

  it('the same for loan repayments: two organisations, the same loan number, both in doubt, each settled by its own callback', async () => {
    const a = await signedLoan(first);
    const b = await signedLoan(second);
    expect(b.loan.loanNo).toBe(a.loan.loanNo);
    const rail = railThatLosesAcks();
    const one = await pushInDoubt(first, a.loan.loanNo, 'ipf_repayment');
    const two = await pushInDoubt(second, b.loan.loanNo, 'ipf_repayment');
    expect(await resolveInDoubt(app(), two.pr.id)).toBe('in_doubt');
    expect(await resolveInDoubt(app(), one.pr.id)).toBe('in_doubt');
    rail.queryable = true;
    for (const o of [second, first]) {
      const open = await t.db.tenant(o.id, (tx) => tx.mpesaCallback.findMany({ where: { processedAt: null } }));
      expect(open.length).toBe(1);
      expect(await confirmCallback(app(), open[0].id)).toBe('settled');
    }
    for (const [o, x, loanId] of [
      [first, one, a.loan.id],
      [second, two, b.loan.id],
    ] as const) {
      const pr = await requestOf(o, x.pr.id);
      expect(pr).toMatchObject({ status: 'succeeded', checkoutRequestId: x.prompt.checkoutRequestId, loanId });
      expect(pr.receipt).toMatchObject({ transactionRef: x.prompt.receiptNo, amountMinor: 500n, loanId });
    }
  }, 60_000);

  it('a single request in doubt that alone could own its line is still settled from the statement', async () => {
    const pol = await first.pendingPolicy();
    railThatLosesAcks();
    const { pr, prompt } = await pushInDoubt(first, pol.policy_no);
    expect(await resolveInDoubt(app(), pr.id)).toBe('settled');
    const settled = await requestOf(first, pr.id);
    expect(settled).toMatchObject({ status: 'succeeded', resolvedVia: 'statement' });
    expect(settled.receipt).toMatchObject({ transactionRef: prompt.receiptNo, amountMinor: 500n });
  }, 60_000);
});
