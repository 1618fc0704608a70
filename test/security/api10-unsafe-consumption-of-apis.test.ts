/**
 * OWASP API10:2023 Unsafe Consumption of APIs.
 *
 * The attacks: an outside party this service talks to — the mobile-money rail's callbacks (the STK callback and the
 * B2C Result and QueueTimeOut URLs of claim payouts), a webhook receiver —
 * answers with something hostile: a forged or unknown callback URL, an oversized or malformed callback, a receiver
 * that redirects into the internal network, or answers with an endless body. The defences: a callback authenticates
 * by its per-organisation token (unknown → 404, nothing recorded), bodies are bounded (64 kB) and recorded before
 * anything acts on them, a malformed one moves no money; a receiver's redirect is never followed and only 1 kB of
 * its answer is read. Nothing a callback claims moves money: the rail's status query is asked first
 * (test/payments-forgery.test.ts).
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { attemptDelivery } from '../../src/modules/webhooks/deliver.service.ts';
import { PHONES, useKit } from '../kit.ts';
import { resultUrl } from '../kit/approved-claim.ts';

const t = useKit({}, { jobs: true });
const api = t.api;
const o = t.useOrg({ fast: true });

async function callbackUrl(): Promise<string> {
  const bound = await o.bind(1);
  const push = await o.push({
    phone: PHONES.success,
    amount: 1,
    account: bound.policy_no ?? bound.uuid,
    purpose: 'premium',
  });
  expect(push.status, push.text).toBeLessThan(300);
  const checkout = push.body.data?.checkout_request_id ?? push.body.CheckoutRequestID ?? push.body.checkout_request_id;
  return o.callbackUrlOf(checkout);
}

describe('OWASP API10:2023 Unsafe Consumption of APIs', () => {
  it('attack: a callback to a guessed callback URL → 404, nothing recorded', async () => {
    const before = await t.db.system((tx) => tx.mpesaCallback.count());
    const payments = await t.db.system((tx) => tx.claimPayment.findMany({ orderBy: { id: 'asc' } }));
    for (const door of ['callback/mpesa', 'b2c/result', 'b2c/timeout']) {
      for (const token of ['mcb_' + 'A'.repeat(40), 'guess', '%00', '..%2F..%2Fetc']) {
        const r = await fetch(`${t.origin}/api/v1/payment/${door}/${token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: door.startsWith('b2c')
            ? '{"Result":{"ResultCode":0,"OriginatorConversationID":"x","TransactionID":"Q1"}}'
            : '{"Body":{"stkCallback":{"ResultCode":0}}}',
        });
        expect(r.status, `${door} ${token}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${door} ${token}`).toBeLessThan(500);
      }
    }
    expect(await t.db.system((tx) => tx.mpesaCallback.count())).toBe(before);
    expect(await t.db.system((tx) => tx.claimPayment.findMany({ orderBy: { id: 'asc' } }))).toEqual(payments);
  });

  it("the callback URL's token (a credential) never reaches a log line, the request log included", async () => {
    const url = await callbackUrl();
    const token = url.split('/').pop()!;
    const lines: unknown[] = [];
    const services = t.app.services;
    const original = { info: services.log.info, error: services.log.error, warn: services.log.warn };
    for (const level of ['info', 'error', 'warn'] as const) {
      (services.log as unknown as Record<string, unknown>)[level] = (...args: unknown[]) => void lines.push(args);
    }
    try {
      await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"Body":{"stkCallback":{"ResultCode":"x"}}}',
      });
      await fetch(`${url}?a=1`, { method: 'GET' });
      // The claim payouts' B2C Result and QueueTimeOut URLs carry the same token.
      for (const kind of ['result', 'timeout'] as const) {
        const b2c = await resultUrl(o, kind);
        expect(b2c.split('/').pop()).toBe(token);
        await fetch(b2c, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"Result":{"ResultCode":"x"}}',
        });
      }
      // The request log line is written when the answer finishes: wait for it.
      for (let i = 0; i < 50 && lines.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      Object.assign(services.log, original);
    }
    const logged = JSON.stringify(lines);
    expect(logged).toContain('/payment/callback/mpesa/[redacted]');
    expect(logged).toContain('/payment/b2c/result/[redacted]');
    expect(logged).toContain('/payment/b2c/timeout/[redacted]');
    expect(logged).not.toContain(token);
  });

  it('attack: an oversized or malformed callback → refused or recorded as malformed; no receipt, no crash', async () => {
    const url = await callbackUrl();
    const receiptsBefore = {
      last: (await t.db.tenant(o.org.id, (tx) => tx.receipt.aggregate({ _max: { id: true } })))._max.id ?? 0,
    };
    const huge = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"pad":"${'x'.repeat(70 * 1024)}"}`,
    });
    expect(huge.status).toBe(413);
    for (const body of [
      'not json',
      '{"Body":{"stkCallback":{"ResultCode":"0"}}}',
      '[]',
      '{"Body":null}',
      '{"Body":{"stkCallback":{"CheckoutRequestID":{"$ne":1},"ResultCode":0}}}',
    ]) {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status, body).toBeLessThan(500);
    }
    const malformed = await t.db.tenant(o.org.id, (tx) => tx.mpesaCallback.count({ where: { outcome: 'malformed' } }));
    expect(malformed).toBeGreaterThanOrEqual(5);
    expect((await fetch(`${t.origin}/healthz`)).status).toBe(200);
    // The hostile bodies added no receipt of their own: every receipt is a payment the rail made.
    const receipts = await t.db.tenant(o.org.id, (tx) =>
      tx.receipt.findMany({ where: { id: { gt: receiptsBefore.last } } }),
    );
    const paid = await t.db.system((tx) =>
      tx.mpesaSimPrompt.findMany({
        where: { resultCode: 0, receiptNo: { in: receipts.map((r) => r.transactionRef) } },
      }),
    );
    expect(receipts.filter((r) => !paid.some((p) => p.receiptNo === r.transactionRef))).toEqual([]);
  });

  it('attack: a webhook receiver redirects to an internal address or answers without end — not followed, 1 kB kept', async () => {
    let redirectedTo = 0;
    const internal = http.createServer((_q, s) => (redirectedTo++, s.end('internal')));
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    const internalPort = (internal.address() as { port: number }).port;
    const receiver = http.createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(307, { location: `http://127.0.0.1:${internalPort}/admin` });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'y'.repeat(16 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 4 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 4 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as { port: number }).port;
    try {
      for (const [path, check] of [
        [
          '/redirect',
          (a: { statusCode: number | null; error: string | null }) =>
            expect(a).toMatchObject({ statusCode: 307, error: 'HTTP 307' }),
        ],
        [
          '/endless',
          (a: { statusCode: number | null; responseExcerpt: string | null }) => {
            expect(a.statusCode).toBe(200);
            expect(Buffer.byteLength(a.responseExcerpt ?? '')).toBeLessThanOrEqual(1024);
          },
        ],
      ] as const) {
        const ep = await api.post('/webhooks/endpoints', {
          token: o.tokens.staff,
          idempotencyKey: crypto.randomUUID(),
          body: { url: `http://127.0.0.1:${port}${path}`, events: ['*'] },
        });
        expect(ep.status, ep.text).toBe(201);
        const test = await api.post(`/webhooks/endpoints/${ep.body.data.id}/test`, {
          token: o.tokens.staff,
          idempotencyKey: crypto.randomUUID(),
        });
        expect(test.status, test.text).toBeLessThan(300);
        // The job runner makes the first attempt at once; wait for it (bounded), making it here if it has not.
        const endpointId = ep.body.data.id;
        const find = () =>
          t.db.system((tx) =>
            tx.webhookAttempt.findFirst({ where: { delivery: { endpointId } }, orderBy: { id: 'desc' } }),
          );
        let attempt = await find();
        for (let i = 0; !attempt && i < 100; i++) {
          const d = await t.db.system((tx) => tx.webhookDelivery.findFirst({ where: { endpointId } }));
          if (d) await attemptDelivery(t.app.services, d.id);
          attempt = await find();
          if (!attempt) await new Promise((r) => setTimeout(r, 100));
        }
        (check as (a: unknown) => void)(attempt);
      }
      expect(redirectedTo).toBe(0);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
      internal.close();
    }
  });
});
