import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MobileMoneyRail } from '../src/ports/mobile-money.ts';
import { clientHeaders, type HttpResult, INSTANT_RAIL, type Org, signIn, useKit, waitFor } from './kit.ts';

// Issue 26, items 11 and 12: a retry with an Idempotency-Key is the first answer byte for byte, looked up before any
// state check (a fresh call would now be refused), whether the first attempt raced it, finished long ago, or was
// shed before the rail's answer was recorded.

const t = useKit({ ...INSTANT_RAIL, mpesaRailTimeoutMs: 1_500 }, { jobs: true });
const o = t.useOrg({ fast: true, clientOverrides: { staff: { rateLimitPerMinute: 1_000_000 } } });
const PAYING_PHONE = '0708374149';
const replayed = (r: HttpResult) => r.headers.get('idempotent-replayed');

/** A payment request's own status (GET /payment/stk/{id}), until final. */
const final = (id: string) =>
  waitFor(
    `payment request ${id} to be final`,
    () => o.status(id),
    (r) => r.status === 200 && ['succeeded', 'failed'].includes(r.body.data.status),
    { ms: 30_000 },
  );

const phoneOf = (org: Org, clientNo: string) =>
  t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.phone);

interface IdempotentCase {
  name: string;
  /** The first call (key given), then whatever makes a fresh call be refused, and a fresh call (a new key). */
  setup: () => Promise<{ call: (key: string) => Promise<HttpResult>; change: (first: HttpResult) => Promise<void> }>;
  /** What a fresh call answers once the state changed (proves the state check is there to be skipped). */
  refused: number;
}

const cases: IdempotentCase[] = [
  {
    name: 'client-area pay (operation: its own exactly-once)',
    refused: 422,
    setup: async () => {
      const pol = await o.pendingPolicy();
      const who = await signIn(o, await phoneOf(o, pol.client_no));
      const dn = pol.debit_note.instalments[0].number;
      return {
        call: (key) =>
          o.as('staff').post('/client-area/pay', {
            headers: clientHeaders(who),
            body: { debit_note_no: dn, phone: PAYING_PHONE },
            idempotencyKey: key,
          }),
        // The prompt is paid: nothing is outstanding on the note any more.
        change: async (first) => void (await final(first.body.data.id)),
      };
    },
  },
  {
    name: 'STK push (operation), the policy paid and cancelled since',
    refused: 422,
    setup: async () => {
      const pol = await o.pendingPolicy();
      const amount = Math.ceil(pol.premium.total_minor / 100);
      return {
        call: (key) => o.push({ phone: PAYING_PHONE, amount, account: pol.policy_no }, o.tokens.staff, key),
        // Paid in full, then cancelled: nothing is owed, so a fresh push for the policy is refused.
        change: async (first) => {
          await final(first.body.data.id);
          await waitFor(
            'the policy to be active',
            () => o.api.get(`/policies/${pol.uuid}`, { token: o.tokens.staff }),
            (r) => r.body.data?.status === 'active',
          );
          await o.cancel(pol.uuid);
        },
      };
    },
  },
  {
    name: 'cancellation confirm (stored answer)',
    refused: 422,
    setup: async () => {
      const pol = await o.activePolicy();
      const pv = await o.api.post(`/policies/${pol.uuid}/cancellation`, {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: { reason: 'insured_request', requested_by: 'insured' },
      });
      expect(pv.status, pv.text).toBe(201);
      return {
        call: (key) =>
          o.api.post(`/policies/${pol.uuid}/cancellations/${pv.body.data.uuid}/confirm`, {
            token: o.tokens.staff,
            idempotencyKey: key,
          }),
        // Confirmed by the first call: a second confirmation is refused.
        change: async () => undefined,
      };
    },
  },
];

describe('a same-key retry after the state changed', () => {
  it.each(cases)(
    '$name: replays the first answer, not the state check',
    async (c) => {
      const { call, change } = await c.setup();
      const key = randomUUID();
      const first = await call(key);
      expect(first.status, first.text).toBeLessThan(300);
      expect(replayed(first)).toBeNull();
      await change(first);
      const fresh = await call(randomUUID());
      expect(fresh.status, fresh.text).toBeGreaterThanOrEqual(400);
      const again = await call(key);
      expect(again.status, again.text).toBe(first.status);
      expect(replayed(again)).toBe('true');
      expect(again.text).toBe(first.text);
    },
    90_000,
  );

  it('GraphQL viewerPay with the same idempotencyKey replays once nothing is outstanding', async () => {
    const pol = await o.pendingPolicy();
    const who = await signIn(o, await phoneOf(o, pol.client_no));
    const dn = pol.debit_note.instalments[0].number;
    const key = randomUUID();
    const pay = () =>
      o.api.gql(
        `mutation($input: ViewerPayInput!) { viewerPay(input: $input) { __typename ... on ViewerPayment { id checkoutRequestId status replayed } ... on ValidationProblem { code } } }`,
        { input: { debitNoteNo: dn, phone: PAYING_PHONE, idempotencyKey: key } },
        { token: o.tokens.staff, headers: clientHeaders(who) },
      );
    const first = await pay();
    expect(first.body.data?.viewerPay?.__typename, JSON.stringify(first.body)).toBe('ViewerPayment');
    await final(first.body.data.viewerPay.id);
    const again = await pay();
    expect(again.body.data?.viewerPay, JSON.stringify(again.body)).toEqual({
      ...first.body.data.viewerPay,
      replayed: true,
    });
  }, 90_000);
});

describe('an STK push retried with its key', () => {
  let pol: Awaited<ReturnType<Org['pendingPolicy']>>;
  beforeAll(async () => {
    pol = await o.pendingPolicy();
  }, 60_000);

  it('concurrent twins answer the same bytes, and so does a retry once the prompt is paid', async () => {
    const key = randomUUID();
    const body = { phone: PAYING_PHONE, amount: 1, account: pol.policy_no };
    const twins = await Promise.all(Array.from({ length: 5 }, () => o.push(body, o.tokens.staff, key)));
    expect(twins.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(twins.filter((r) => replayed(r) === 'true')).toHaveLength(4);
    expect(new Set(twins.map((r) => r.text)).size).toBe(1);
    expect(twins[0].body.data).toMatchObject({
      status: 'pending',
      checkout_request_id: expect.stringMatching(/^ws_CO_/),
    });
    await final(twins[0].body.data.id);
    const later = await o.push(body, o.tokens.staff, key);
    expect(later.status).toBe(202);
    expect(later.text).toBe(twins[0].text);
    // GraphQL answers the same first answer for the key (the request as first answered: pending), twice alike.
    const gql = () =>
      o.api.gql(
        `mutation($input: StkPushInput!) { initiateStkPush(input: $input) { __typename ... on StkPushAcknowledgement {
          id checkoutRequestId merchantRequestId responseCode customerMessage replayed paymentRequest { status resultCode } } } }`,
        { input: { ...body, idempotencyKey: key } },
        { token: o.tokens.staff },
      );
    const g1 = await gql();
    expect(g1.body.data?.initiateStkPush, JSON.stringify(g1.body)).toEqual({
      __typename: 'StkPushAcknowledgement',
      id: twins[0].body.data.id,
      checkoutRequestId: twins[0].body.data.checkout_request_id,
      merchantRequestId: twins[0].body.data.merchant_request_id,
      responseCode: twins[0].body.data.response_code,
      customerMessage: twins[0].body.data.customer_message,
      replayed: true,
      paymentRequest: { status: 'pending', resultCode: null },
    });
    expect((await gql()).body).toEqual(g1.body);
  }, 60_000);

  it('after a first attempt shed before the rail answer was recorded: in doubt is 503, then one answer for every retry', async () => {
    const rail = t.app.services.mobileMoney.rail!;
    // The rail takes the prompt but answers after MPESA_RAIL_TIMEOUT_MS: the first attempt is 503 and the request in doubt.
    const slow: MobileMoneyRail = {
      stkPush: async (req) => {
        const ack = await rail.stkPush(req);
        await new Promise((r) => setTimeout(r, 2_500));
        return ack;
      },
      query: (id) => rail.query(id),
      pullTransactions: (req) => rail.pullTransactions(req),
    };
    t.app.services.mobileMoney.rail = slow;
    const key = randomUUID();
    const other = await o.pendingPolicy();
    const body = { phone: PAYING_PHONE, amount: 2, account: other.policy_no };
    let first: HttpResult;
    try {
      first = await o.push(body, o.tokens.staff, key);
    } finally {
      t.app.services.mobileMoney.rail = rail;
    }
    expect(first.status, first.text).toBe(503);
    const intent = await t.db.tenant(o.id, (tx) =>
      tx.paymentRequest.findFirstOrThrow({ where: { idempotencyKey: key } }),
    );
    // Retried until answered: never a 202 without the rail's answer.
    let retry: HttpResult;
    for (let i = 0; ; i++) {
      retry = await o.push(body, o.tokens.staff, key);
      if (retry.status !== 503 || i > 60) break;
      expect(retry.headers.get('retry-after')).toBeTruthy();
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(retry.status, retry.text).toBe(202);
    expect(replayed(retry)).toBe('true');
    expect(retry.body.data.id).toBe(intent.id);
    const s = await final(intent.id);
    expect(s.body.data).toMatchObject({ status: 'succeeded', receipt_no: expect.stringMatching(/^RCT-/) });
    const again = await o.push(body, o.tokens.staff, key);
    expect(again.text).toBe(retry.text);
    // The money the rail took is receipted to this request once; none of it is filed as unmatched.
    const prompts = await t.db.system((tx) =>
      tx.mpesaSimPrompt.findMany({ where: { accountReference: intent.accountReference, amount: 2 } }),
    );
    expect(prompts).toHaveLength(1);
    expect(await t.db.tenant(o.id, (tx) => tx.receipt.count({ where: { paymentRequestId: intent.id } }))).toBe(1);
    expect(
      await t.db.tenant(o.id, (tx) => tx.unmatchedPayment.count({ where: { transactionRef: prompts[0].receiptNo! } })),
    ).toBe(0);
    // Its callback was matched to it (or found it receipted from the statement): the rail's ids are on the request.
    const cb = await waitFor(
      'the callback to be closed',
      () =>
        t.db.tenant(o.id, (tx) =>
          tx.mpesaCallback.findFirst({ where: { checkoutRequestId: prompts[0].checkoutRequestId } }),
        ),
      (row) => !!row?.processedAt,
    );
    expect(['settled', 'duplicate']).toContain(cb!.outcome);
    const pr = await t.db.tenant(o.id, (tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id: intent.id } }));
    expect(pr.checkoutRequestId).toBe(prompts[0].checkoutRequestId);
  }, 90_000);
});
