import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { resolvePrompt } from '../jobs/rails/mpesa-simulator.ts';
import { sourceAllowed } from '../src/http/mpesa-callback.ts';
import { reconcileStatement } from '../src/modules/payments/confirm.service.ts';
import { darajaPassword, darajaTimestamp } from '../src/ports/mobile-money.ts';
import { expectProblem, PHONES, startTestApp, useKit } from './kit.ts';

// Issue 10: a callback is a hint. The simulated customer here never answers on their own (a long MPESA_SIM_DELAY_MS):
// each test forges callbacks while the prompt is really still on the phone, then lets the real answer come. The
// sweep runs every second (it replays the callbacks kept open) but asks the rail about pending prompts only after an
// hour, so a result comes by a callback, never by the sweep's own query racing it.
const t = useKit(
  {
    bindRateLimit: 10_000,
    mpesaSimDelayMs: 600_000,
    mpesaReconcileAfterMs: 3_600_000,
    mpesaCallbackTokenGraceSeconds: 3_600,
    paymentsSweepSeconds: 1,
  },
  { jobs: true },
);
const o = t.useOrg({ fast: true });

function callbackBody(
  checkout: string,
  merchant: string,
  resultCode: number,
  items?: { Name: string; Value: string | number }[],
) {
  return {
    Body: {
      stkCallback: {
        MerchantRequestID: merchant,
        CheckoutRequestID: checkout,
        ResultCode: resultCode,
        ResultDesc: resultCode === 0 ? 'The service request is processed successfully.' : 'Request cancelled by user.',
        ...(items ? { CallbackMetadata: { Item: items } } : {}),
      },
    },
  };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function moneyState(policyNo: string) {
  return t.db.tenant(o.org.id, async (tx) => {
    const policy = await tx.policy.findFirstOrThrow({ where: { policyNo } });
    return {
      status: policy.status,
      receipts: await tx.receipt.count({ where: { policyId: policy.id } }),
      credit:
        (await tx.clientCredit.aggregate({ where: { clientId: policy.clientId }, _sum: { amountMinor: true } }))._sum
          .amountMinor ?? 0n,
      events: await tx.event.count({ where: { name: { in: ['payment.received', 'policy.activated'] } } }),
    };
  });
}

describe('forged callbacks move nothing', () => {
  it('a forged success claiming KES 500,000 for a KES 1 prompt raises no receipt; the real answer then receipts KES 1', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.success, amount: 1, account: bound.policy_no });
    expect(push.status, push.text).toBe(202);
    const checkout = push.body.data.checkout_request_id;
    const url = await o.callbackUrlOf(checkout);
    const before = await moneyState(bound.policy_no);

    const forged = callbackBody(checkout, push.body.data.merchant_request_id, 0, [
      { Name: 'Amount', Value: 500_000 },
      { Name: 'MpesaReceiptNumber', Value: 'TFORGED001' },
      { Name: 'TransactionDate', Value: 20261126093000 },
      { Name: 'PhoneNumber', Value: Number(PHONES.success) },
    ]);
    const r = await post(url, forged);
    expect(r.status).toBe(200);
    expect(await moneyState(bound.policy_no)).toEqual(before);
    expect((await o.status(checkout)).body.data).toMatchObject({ status: 'pending', receipt_no: null });
    // Kept open: the rail has no result yet, so the callback is neither applied nor thrown away.
    const row = await t.db.tenant(o.org.id, (tx) =>
      tx.mpesaCallback.findFirstOrThrow({ where: { checkoutRequestId: checkout } }),
    );
    expect(row.processedAt).toBeNull();

    // The customer really pays: the rail's own answer (KES 1) is what is receipted.
    await resolvePrompt(t.app.services, checkout);
    const s = await o.settled(checkout);
    expect(s.body.data).toMatchObject({ status: 'succeeded', amount: 1, amount_minor: 100 });
    const receipt = await t.db.tenant(o.org.id, (tx) =>
      tx.receipt.findFirstOrThrow({ where: { paymentRequestId: s.body.data.id } }),
    );
    expect(receipt.amountMinor).toBe(100n);
    expect(receipt.transactionRef).not.toBe('TFORGED001');
    expect(await t.db.tenant(o.org.id, (tx) => tx.receipt.count({ where: { transactionRef: 'TFORGED001' } }))).toBe(0);
    const after = await moneyState(bound.policy_no);
    expect(after.receipts).toBe(1);
    expect(after.credit).toBe(0n);
    expect(after.status).toBe('pending_payment');
  });

  it('a forged failure cannot pre-empt a genuine success', async () => {
    const bound = await o.bind(1);
    const amount = Math.ceil(bound.premium.total_minor / 100);
    const push = await o.push({ phone: PHONES.success, amount, account: bound.policy_no });
    const checkout = push.body.data.checkout_request_id;
    const url = await o.callbackUrlOf(checkout);
    const r = await post(url, callbackBody(checkout, push.body.data.merchant_request_id, 1032));
    expect(r.status).toBe(200);
    expect((await o.status(checkout)).body.data.status).toBe('pending');

    await resolvePrompt(t.app.services, checkout);
    const s = await o.settled(checkout);
    expect(s.body.data).toMatchObject({ status: 'succeeded', result_code: 0, resolved_via: 'callback' });
    expect((await moneyState(bound.policy_no)).status).toBe('active');
    // The forged callback, replayed now, finds the request settled: a duplicate, nothing more.
    const rows = await o.callbackProcessed(checkout, 2);
    expect(rows.map((x) => x.outcome).sort()).toEqual(['duplicate', 'settled']);
  });

  it('a forged success for a prompt the customer declined changes nothing: the rail says 1032', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.cancelled, amount: 5, account: bound.policy_no });
    const checkout = push.body.data.checkout_request_id;
    const url = await o.callbackUrlOf(checkout);
    // The customer declines first (the genuine callback is applied as a failure) …
    await resolvePrompt(t.app.services, checkout);
    expect((await o.settled(checkout)).body.data).toMatchObject({ status: 'failed', result_code: 1032 });
    // … and a forged success afterwards cannot turn it into money.
    const before = await moneyState(bound.policy_no);
    await post(
      url,
      callbackBody(checkout, 'm', 0, [
        { Name: 'Amount', Value: 5 },
        { Name: 'MpesaReceiptNumber', Value: 'TFORGED002' },
      ]),
    );
    expect(await moneyState(bound.policy_no)).toEqual(before);
  });
});

describe('the callback token', () => {
  it('is stored nowhere in the clear: no table of the database holds it (simulator and queues included)', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.success, amount: 3, account: bound.policy_no });
    const url = await o.callbackUrlOf(push.body.data.checkout_request_id);
    const token = url.split('/').pop()!;
    expect(token).toMatch(/^mcb_/);
    const c = new pg.Client({ connectionString: t.databaseUrl });
    await c.connect();
    try {
      // The owner's connection (a superuser): row-level security does not apply, every organisation's rows are read.
      const { rows: tables } = await c.query<{ s: string; n: string }>(
        `SELECT table_schema AS s, table_name AS n FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema IN ('public', 'pgboss')`,
      );
      const holders: string[] = [];
      for (const { s, n } of tables) {
        const { rows } = await c.query(`SELECT count(*)::int AS n FROM "${s}"."${n}" x WHERE x::text LIKE $1`, [
          `%${token}%`,
        ]);
        if (rows[0].n) holders.push(`${s}.${n}`);
      }
      expect(holders).toEqual([]);
    } finally {
      await c.end();
    }
  });

  it('rotates per organisation: new prompts carry the new token, the old one is honoured for the grace, others are 404', async () => {
    const bound = await o.bind(1);
    const first = await o.push({ phone: PHONES.success, amount: 2, account: bound.policy_no });
    const oldUrl = await o.callbackUrlOf(first.body.data.checkout_request_id);

    const rotated = await o.api.post('/payment/callback-token/rotate', {
      token: o.tokens.admin,
      idempotencyKey: crypto.randomUUID(),
      body: {},
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data).toMatchObject({
      generation: expect.any(Number),
      previous_valid_until: expect.any(String),
    });
    expect(JSON.stringify(rotated.body)).not.toContain('mcb_');

    const second = await o.push({ phone: PHONES.success, amount: 2, account: bound.policy_no });
    const newUrl = await o.callbackUrlOf(second.body.data.checkout_request_id);
    expect(newUrl).not.toBe(oldUrl);
    // Both tokens are taken within the grace (the first prompt may still be on a phone) …
    expect((await post(oldUrl, callbackBody(first.body.data.checkout_request_id, 'm', 1032))).status).toBe(200);
    expect((await post(newUrl, callbackBody(second.body.data.checkout_request_id, 'm', 1032))).status).toBe(200);
    // … and after a second rotation the oldest is gone (only one previous token lives).
    const g = await o.api.gql(
      'mutation { rotateMpesaCallbackToken { generation previousValidUntil } }',
      {},
      { token: o.tokens.admin },
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.rotateMpesaCallbackToken.generation).toBe(rotated.body.data.generation + 1);
    const gone = await post(oldUrl, callbackBody(first.body.data.checkout_request_id, 'm', 1032));
    expect(gone.status).toBe(404);
    // Another organisation's rotation does not touch ours.
    const other = await t.newOrg({ fast: true });
    await other.api.post('/payment/callback-token/rotate', {
      token: other.tokens.admin,
      idempotencyKey: crypto.randomUUID(),
      body: {},
    });
    expect((await post(newUrl, callbackBody(second.body.data.checkout_request_id, 'm', 1032))).status).toBe(200);
  });

  it('rotation needs scope admin', async () => {
    const r = await o.api.post('/payment/callback-token/rotate', {
      token: o.tokens.staff,
      idempotencyKey: crypto.randomUUID(),
      body: {},
    });
    expectProblem(r, 403, 'insufficient_scope');
  });
});

describe('the source-address allowlist (MPESA_CALLBACK_ALLOWED_IPS)', () => {
  it('matches addresses and ranges, IPv4-mapped IPv6 as IPv4; empty allows any', () => {
    expect(sourceAllowed([], '203.0.113.9')).toBe(true);
    expect(sourceAllowed(['196.201.214.0/24'], '196.201.214.200')).toBe(true);
    expect(sourceAllowed(['196.201.214.0/24'], '::ffff:196.201.214.7')).toBe(true);
    expect(sourceAllowed(['196.201.214.0/24'], '196.201.215.1')).toBe(false);
    expect(sourceAllowed(['196.201.214.200'], '196.201.214.200')).toBe(true);
    expect(sourceAllowed(['2001:db8::/32'], '2001:db8::1')).toBe(true);
    expect(sourceAllowed(['196.201.214.0/24'], undefined)).toBe(false);
  });

  it('a callback from outside the list is 404 and recorded nowhere; from inside it is taken', async () => {
    const shut = await startTestApp({ mpesaCallbackAllowedIps: ['196.201.214.0/24'] }, { databaseUrl: t.databaseUrl });
    const open = await startTestApp({ mpesaCallbackAllowedIps: ['127.0.0.0/8'] }, { databaseUrl: t.databaseUrl });
    try {
      const bound = await o.bind(1);
      const push = await o.push({ phone: PHONES.success, amount: 4, account: bound.policy_no });
      const checkout = push.body.data.checkout_request_id;
      const path = new URL(await o.callbackUrlOf(checkout)).pathname;
      const count = () =>
        t.db.tenant(o.org.id, (tx) => tx.mpesaCallback.count({ where: { checkoutRequestId: checkout } }));
      const r = await post(`${shut.origin}${path}`, callbackBody(checkout, 'm', 1032));
      expect(r.status).toBe(404);
      expect(await count()).toBe(0);
      expect((await post(`${open.origin}${path}`, callbackBody(checkout, 'm', 1032))).status).toBe(200);
      expect(await count()).toBe(1);
    } finally {
      await shut.app.stop();
      await open.app.stop();
      await shut.db.close();
      await open.db.close();
    }
  });
});

describe('paid prompts no request recorded', () => {
  async function orphanPrompt(callbackUrl: string, account: string, amount: number) {
    const rail = t.app.services.mobileMoney.rail!;
    const ts = darajaTimestamp();
    const shortcode = (await t.db.system((tx) => tx.tenant.findUniqueOrThrow({ where: { id: o.org.id } }))).paybill;
    const ack = await rail.stkPush({
      BusinessShortCode: shortcode,
      Password: darajaPassword(shortcode, t.app.services.config.mpesaPasskey, ts),
      Timestamp: ts,
      TransactionType: 'CustomerPayBillOnline',
      Amount: amount,
      PartyA: PHONES.success,
      PartyB: shortcode,
      PhoneNumber: PHONES.success,
      CallBackURL: callbackUrl,
      AccountReference: account,
      TransactionDesc: 'Premium',
    });
    return ack.CheckoutRequestID;
  }

  it('a confirmed callback for a prompt nothing recorded is held for refund and announced (payment.unmatched)', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.cancelled, amount: 1, account: bound.policy_no });
    const url = await o.callbackUrlOf(push.body.data.checkout_request_id);
    const checkout = await orphanPrompt(url, 'ORPHAN1', 77);
    await resolvePrompt(t.app.services, checkout);
    const rows = await o.callbackProcessed(checkout);
    expect(rows.map((r) => r.outcome)).toEqual(['unmatched']);
    const held = await t.db.tenant(o.org.id, (tx) =>
      tx.unmatchedPayment.findMany({ where: { checkoutRequestId: checkout } }),
    );
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ amountMinor: 7700n, status: 'refund_due', foundVia: 'callback' });
    const events = await t.db.tenant(o.org.id, (tx) => tx.event.findMany({ where: { name: 'payment.unmatched' } }));
    expect(events.map((e) => (e.data as any).transaction_ref)).toContain(held[0].transactionRef);
    expect(
      await t.db.tenant(o.org.id, (tx) => tx.receipt.count({ where: { transactionRef: held[0].transactionRef } })),
    ).toBe(0);
  });

  it('a paid prompt whose callback never came is found on the paybill statement and held, once', async () => {
    const l = await t.newOrg({ fast: true });
    const lone = l.org;
    // A paybill of its own, so the statement line can only be this organisation's; a staff token issued after it.
    await t.db.system((tx) => tx.tenant.update({ where: { id: lone.id }, data: { paybill: '987001' } }));
    await t.heard();
    await l.fetchTokens('staff');
    const bound = await l.bind(1);
    const push = await l.push({ phone: PHONES.cancelled, amount: 1, account: bound.policy_no });
    expect(push.status, push.text).toBe(202);
    const rail = t.app.services.mobileMoney.rail!;
    const ts = darajaTimestamp();
    const ack = await rail.stkPush({
      BusinessShortCode: '987001',
      Password: darajaPassword('987001', t.app.services.config.mpesaPasskey, ts),
      Timestamp: ts,
      TransactionType: 'CustomerPayBillOnline',
      Amount: 55,
      PartyA: PHONES.success,
      PartyB: '987001',
      PhoneNumber: PHONES.success,
      CallBackURL: 'http://127.0.0.1:9/nowhere',
      AccountReference: 'ORPHAN2',
      TransactionDesc: 'Premium',
    });
    await resolvePrompt(t.app.services, ack.CheckoutRequestID).catch(() => undefined);
    // Young lines may belong to a push still recording its answer: the statement holds them only after the grace.
    const later = new Date(Date.now() + t.app.services.config.mpesaRailTimeoutMs + 60_000);
    const first = await reconcileStatement(t.app.services, later);
    expect(first.unmatched).toBeGreaterThanOrEqual(1);
    const held = await t.db.tenant(lone.id, (tx) =>
      tx.unmatchedPayment.findMany({ where: { accountReference: 'ORPHAN2' } }),
    );
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ amountMinor: 5500n, foundVia: 'statement', status: 'refund_due' });
    await reconcileStatement(t.app.services, later);
    expect(
      await t.db.tenant(lone.id, (tx) => tx.unmatchedPayment.count({ where: { accountReference: 'ORPHAN2' } })),
    ).toBe(1);
    expect(await t.db.tenant(lone.id, (tx) => tx.event.count({ where: { name: 'payment.unmatched' } }))).toBe(1);
  });
});
