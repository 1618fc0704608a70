import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { claimPaymentService } from '../src/modules/claims/claim-payment.service.ts';
import { reconcile } from '../src/modules/claims/settlement/reconcile.ts';
import type { B2cRail } from '../src/ports/mobile-money-b2c.ts';
import { expectProblem, INSTANT_RAIL, useKit, waitFor, type Active } from './kit.ts';
import { approvedClaim, claimRow, motorNotice, payClaim, paymentIn, resultUrl } from './kit/approved-claim.ts';

/**
 * The B2C rail's side of claim payouts (docs/claims.md "Claim payouts"): failures, Results as hints never proof, and the
 * sweep (a payout whose job or acknowledgement was lost is sent again and paid once; one whose Result never came is
 * confirmed by the rail's status query). Simulator phones: 254700000012 fails with 1 (insufficient balance),
 * 254700000015 is paid but its Result is never POSTed.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

let pol: Active;
beforeAll(async () => {
  pol = await o.activePolicy();
}, 120_000);

const payout = (amount: number | null, phone: string) => ({
  method: 'mpesa_b2c',
  payee_name: 'Achieng Otieno',
  phone,
  ...(amount == null ? { final: true } : { amount }),
});
const SILENT = '254700000015';
const later = () => new Date(Date.now() + 120_000);
const port = () => t.app.services.mobileMoney;
const booking = (ocid: string) =>
  t.db.system((tx) => tx.mpesaSimB2c.findUnique({ where: { originatorConversationId: ocid } }));
const audits = (action: string) => t.db.tenant(o.id, (tx) => tx.auditLog.count({ where: { action } }));

/** A payout to the silent phone, sent and resolved at the rail, its Result never POSTed: `sent` until confirmed. */
async function silentPayout(net: bigint, amount: number | null) {
  const c = await approvedClaim(o, pol.uuid, { net });
  const r = await payClaim(o, c.uuid, payout(amount, SILENT));
  expect(r.status, r.text).toBe(201);
  const p = await paymentIn(o, c.uuid, r.body.data.uuid, 'sent');
  await waitFor(
    'the rail to pay it',
    () => booking(p.reference),
    (b) => b?.resultCode === 0,
  );
  return { c, p };
}

/**
 * Runs `fn` with the payout job's sender off (a payout then waits for the sweep) and the rail's pay calls counted by
 * OriginatorConversationID; `loseFirstAck`: the first call reaches the rail but its answer is lost.
 */
async function strandedAndCounted<T>(
  fn: (calls: (reference: string) => number) => Promise<T>,
  loseFirstAck = false,
): Promise<T> {
  const { sendB2cPayout, b2c } = port();
  const real = b2c!;
  const seen: string[] = [];
  const counted: B2cRail = {
    async pay(req) {
      seen.push(req.OriginatorConversationID);
      const ack = await real.pay(req);
      if (loseFirstAck && seen.length === 1) throw new Error('connection reset after the rail accepted');
      return ack;
    },
    query: (id) => real.query(id),
  };
  Object.assign(port(), { sendB2cPayout: undefined, b2c: counted });
  try {
    return await fn((reference) => seen.filter((x) => x === reference).length);
  } finally {
    Object.assign(port(), { sendB2cPayout, b2c: real });
  }
}

describe('a failed payout', () => {
  it('is failed with the rail’s code and releases its commitment, nothing else', async () => {
    const c = await approvedClaim(o, pol.uuid, { net: 2_000_000n });
    const r = await payClaim(o, c.uuid, payout(15_000, '254700000012'));
    expect(r.status, r.text).toBe(201);
    const failed = await paymentIn(o, c.uuid, r.body.data.uuid, 'failed');
    expect(failed).toMatchObject({ result: { code: 1 }, transaction_id: null, paid_at: null });
    expect(failed.failed_at).not.toBeNull();
    const claim = await claimRow(o, c.uuid);
    expect(claim).toMatchObject({ status: 'approved', paidMinor: 0n, committedMinor: 0n, reserveMinor: 2_000_000n });
    expect(claim.reserves.map((m) => m.kind)).toEqual(['approval']);
    // The released amount is payable again (the positive control).
    const again = await payClaim(o, c.uuid, payout(null, '0708374149'));
    expect(again.body.data).toMatchObject({ amount_minor: 2_000_000 });
    await paymentIn(o, c.uuid, again.body.data.uuid, 'paid');
    expect((await claimRow(o, c.uuid)).status).toBe('settled');
  });
});

describe('the Result is a hint, never proof', () => {
  it('a wrong token is 404 and records nothing; a bad method 405', async () => {
    const before = await audits('claim_payment.result_received');
    const forged = await o.api.post(`/payment/b2c/result/mcb_${'x'.repeat(43)}`, { body: { Result: {} } });
    expectProblem(forged, 404, 'not_found');
    // Not valid percent-encoding: refused before any route reads the path (docs/api-conventions.md).
    expectProblem(await o.api.post('/payment/b2c/timeout/%E0%A4%A', { body: {} }), 400, 'invalid_request');
    await silentPayout(1_000_000n, 100); // the organisation's channel (and its token) now exist
    expectProblem(
      await o.api.get(new URL(await resultUrl(o)).pathname.replace('/api/v1', '')),
      405,
      'method_not_allowed',
    );
    expect(await audits('claim_payment.result_received')).toBe(before);
  });

  it("the ResultURL's token (the organisation's callback credential) never reaches a log line", async () => {
    await silentPayout(1_000_000n, 100);
    const url = await resultUrl(o);
    const token = url.split('/').pop()!;
    const lines: unknown[] = [];
    const log = t.app.services.log as unknown as Record<string, unknown>;
    const original = { info: log.info, warn: log.warn, error: log.error };
    for (const level of ['info', 'warn', 'error']) log[level] = (...args: unknown[]) => void lines.push(args);
    try {
      await o.api.post(url, { rawBody: '{"Result": {}}' });
      await o.api.get(url);
      // The request log line is written when the answer finishes: wait for it.
      await waitFor(
        'the request log lines',
        async () => JSON.stringify(lines),
        (l) => l.includes('405'),
      );
    } finally {
      Object.assign(log, original);
    }
    const logged = JSON.stringify(lines);
    expect(logged).toContain('/payment/b2c/result/[redacted]');
    expect(logged).not.toContain(token);
  });

  it('a forged, denied, contradicting or repeated Result changes nothing the rail does not confirm', async () => {
    const { c, p } = await silentPayout(3_000_000n, 30_000);
    const url = await resultUrl(o);
    const b = (await booking(p.reference))!;
    const result = (over: Record<string, unknown>) => ({
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: p.reference,
        ConversationID: b.conversationId,
        TransactionID: 'FORGED0001',
        ...over,
      },
    });
    const post = async (body: unknown, to = url) => {
      const r = await o.api.post(to, typeof body === 'string' ? { rawBody: body } : { body });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    };
    const unchanged = async () => {
      const claim = await claimRow(o, c.uuid);
      expect(claim.payments[0]).toMatchObject({ status: 'sent', transactionId: null });
      expect(claim).toMatchObject({ paidMinor: 0n, committedMinor: 3_000_000n, reserveMinor: 3_000_000n });
    };
    await post(result({ ConversationID: 'AG_20260615_forged' })); // the rail denies this conversation
    await post(result({ OriginatorConversationID: 'not-ours' }));
    await post('{"Result": {"ResultCode": 0');
    await post({ Result: { ResultCode: 0 } });
    await post('\u0000');
    await post(
      '{"Result": {"OriginatorConversationID": "\\ud800\\u0000", "ConversationID": "\\udfff", "ResultCode": "0"}}',
    );
    await unchanged();
    // Claims a failure; the rail says paid: the rail's answer is applied, with its receipt, not the body's.
    await post(result({ ResultCode: 2001, ResultDesc: 'The initiator information is invalid.' }));
    const paid = await paymentIn(o, c.uuid, p.uuid, 'paid');
    expect(paid.transaction_id).toBe(b.transactionId);
    expect(paid.result.code).toBe(0);
    // Repeated, and on the timeout URL: the payout is final, nothing moves again.
    await post(result({}));
    await post(result({ ResultType: 1, ResultCode: 1037 }), await resultUrl(o, 'timeout'));
    const claim = await claimRow(o, c.uuid);
    expect(claim).toMatchObject({ status: 'settled', paidMinor: 3_000_000n, committedMinor: 0n, reserveMinor: 0n });
    expect(claim.reserves.filter((m) => m.kind === 'payment')).toHaveLength(1);
    expect(
      await t.db.tenant(o.id, (tx) =>
        tx.auditLog.count({ where: { entityId: p.uuid, action: { startsWith: 'claim_payment.' } } }),
      ),
    ).toBeGreaterThanOrEqual(5);
  });
});

describe('the payout sweep', () => {
  it('confirms by query a payout whose Result never came, and settles the claim as the system', async () => {
    const { c, p } = await silentPayout(4_000_000n, null);
    const swept = await claimPaymentService.sweep(t.app.services, later());
    expect(swept.confirmed).toBeGreaterThanOrEqual(1);
    expect((await paymentIn(o, c.uuid, p.uuid, 'paid')).transaction_id).toMatch(/^T/);
    const claim = await claimRow(o, c.uuid);
    expect(claim).toMatchObject({ status: 'settled', reserveMinor: 0n });
    expect(claim.history.find((h) => h.toStatus === 'settled')).toMatchObject({
      source: 'payment',
      actorName: 'system',
    });
  });

  it('sends a stranded pending payout exactly once, however many sweeps run', async () => {
    await strandedAndCounted(async (calls) => {
      const c = await approvedClaim(o, pol.uuid, { net: 1_000_000n });
      const r = await payClaim(o, c.uuid, payout(2_500, SILENT));
      expect(r.body.data.status).toBe('pending');
      const app = t.app.services;
      await Promise.all([1, 2, 3].map(() => claimPaymentService.sweep(app, later())));
      const sent = await paymentIn(o, c.uuid, r.body.data.uuid, 'sent');
      await waitFor(
        'the rail to pay it',
        () => booking(sent.reference),
        (b) => b?.resultCode === 0,
      );
      await claimPaymentService.sweep(app, later()); // now the rail has a result: confirmed by query
      const p = await paymentIn(o, c.uuid, r.body.data.uuid, 'paid');
      expect(calls(p.reference)).toBe(1);
      expect((await booking(p.reference))?.amount).toBe(2_500);
      const claim = await claimRow(o, c.uuid);
      expect(claim).toMatchObject({ paidMinor: 250_000n, committedMinor: 0n });
      expect(claim.reserves.filter((m) => m.kind === 'payment')).toHaveLength(1);
    });
  });

  it('sends again a payout whose acknowledgement was lost: the rail answers the first booking, paid once', async () => {
    await strandedAndCounted(async (calls) => {
      const c = await approvedClaim(o, pol.uuid, { net: 1_000_000n });
      const r = await payClaim(o, c.uuid, payout(3_000, SILENT));
      const row = (await claimRow(o, c.uuid)).payments[0];
      await expect(claimPaymentService.send(t.app.services, row.id)).rejects.toThrow(/connection reset/);
      expect((await claimRow(o, c.uuid)).payments[0]).toMatchObject({ status: 'pending', conversationId: null });
      await waitFor(
        'the rail to pay the first call',
        () => booking(row.reference),
        (b) => b?.resultCode === 0,
      );
      await claimPaymentService.sweep(t.app.services, later());
      const p = await paymentIn(o, c.uuid, r.body.data.uuid, 'paid');
      expect(calls(p.reference)).toBe(2);
      const b = (await booking(p.reference))!;
      const claim = await claimRow(o, c.uuid);
      expect(claim.payments[0]).toMatchObject({ conversationId: b.conversationId, transactionId: b.transactionId });
      expect(claim).toMatchObject({ paidMinor: 300_000n, committedMinor: 0n });
    }, true);
  });

  it('takes up a payout left `sending` by a process that died during the rail call', async () => {
    await strandedAndCounted(async (calls) => {
      const c = await approvedClaim(o, pol.uuid, { net: 1_000_000n });
      const r = await payClaim(o, c.uuid, payout(4_000, '254708374149'));
      await t.db.tenant(o.id, (tx) =>
        tx.claimPayment.update({
          where: { uuid: r.body.data.uuid },
          data: { status: 'sending', sentAt: new Date(Date.now() - 600_000) },
        }),
      );
      await claimPaymentService.sweep(t.app.services);
      await paymentIn(o, c.uuid, r.body.data.uuid, 'paid');
      expect(calls(r.body.data.reference)).toBe(1);
    });
  });
});

describe('through the claims core', () => {
  /** Registration to approval through the API (the checklist marked received in the database, as claims.test.ts does). */
  async function approvedThroughApi(approvedAmount: number) {
    const post = (path: string, body: unknown) =>
      o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
    const step = async (path: string, body: unknown) => {
      const r = await post(path, body);
      expect(r.status, `${path}: ${r.text}`).toBeLessThan(300);
      return r.body.data;
    };
    const c = await step('/claims', motorNotice(pol));
    await step(`/claims/${c.uuid}/transitions`, { to: 'documents_pending', reason: 'acknowledged' });
    await t.db.tenant(o.id, (tx) =>
      tx.claimDocument.updateMany({
        where: { claim: { uuid: c.uuid } },
        data: { status: 'received' },
      }),
    );
    await step(`/claims/${c.uuid}/transitions`, { to: 'with_underwriter', reason: 'documents in' });
    await step(`/claims/${c.uuid}/assessor`, { name: 'Kilimo Assessors', phone: '0700111222' });
    await step(`/claims/${c.uuid}/transitions`, { to: 'under_assessment', reason: 'assessor appointed' });
    return step(`/claims/${c.uuid}/approve`, { approved_amount: approvedAmount });
  }

  it('a claim approved through the API is paid out in two and settled; its ledger reconciles to the cent', async () => {
    const c = await approvedThroughApi(200_000);
    const net = BigInt(c.net_payable_minor);
    const first = await payClaim(o, c.uuid, payout(50_000, '0708374149'));
    expect(first.status, first.text).toBe(201);
    await paymentIn(o, c.uuid, first.body.data.uuid, 'paid');
    const rest = net - 5_000_000n;
    const last = await payClaim(
      o,
      c.uuid,
      rest % 100n === 0n
        ? payout(null, '0708374149')
        : {
            method: 'bank_transfer',
            payee_name: 'Achieng Otieno',
            bank_name: 'KCB',
            bank_account: '11',
            bank_reference: randomUUID(),
            final: true,
          },
    );
    expect(last.status, last.text).toBe(201);
    await paymentIn(o, c.uuid, last.body.data.uuid, 'paid');
    const claim = await claimRow(o, c.uuid);
    expect(claim).toMatchObject({ status: 'settled', paidMinor: net, committedMinor: 0n, reserveMinor: 0n });
    expect(reconcile({ ...claim, movements: claim.reserves, payments: claim.payments })).toEqual([]);
  });
});
