import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.ts';
import { Child, pushUntilAnswered } from './helpers/service-child.ts';
import { WebhookReceiver } from './helpers/webhook-receiver.ts';
import { Api, PHONES, useDatabase, useKit, type HttpResult } from './kit.ts';

// Issue 10: money under load and under crashes. The in-process part bursts pushes at one server; the rest run the real
// entrypoint as a child process, kill it (SIGKILL, or a fault point that kills it exactly between the rail call and
// recording its answer), restart it on the same database, and count what the customer paid against what we recorded.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a burst of STK pushes', () => {
  const t = useKit({ bindRateLimit: 10_000 }, { jobs: true });
  const o = t.useOrg({ fast: true });

  it('100 concurrent pushes: none answers 500, an unrelated read is served meanwhile, every prompt settles once', async () => {
    const policies: any[] = [];
    for (let i = 0; i < 10; i++) policies.push(await o.bind(1));
    // Each client retries a 503 (load shed, Retry-After) with its key, as integrators do; every answer is kept.
    const seen: number[] = [];
    const pushes = Array.from({ length: 100 }, async (_, i) => {
      const key = randomUUID();
      for (;;) {
        const r = await o.push(
          { phone: PHONES.success, amount: 1 + (i % 7), account: policies[i % 10].policy_no },
          o.tokens.staff,
          key,
        );
        seen.push(r.status);
        if (r.status !== 503) return r;
        await sleep(1_000 * Number(r.headers.get('retry-after') ?? 1));
      }
    });
    // An unrelated read while the pushes hold whatever they hold: it must be answered (not wedged behind them).
    const read = await o.api.get('/receipts?limit=1', { token: o.tokens.staff });
    const results = await Promise.all(pushes);
    expect(read.status, read.text).toBe(200);
    expect(seen.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(results.map((r) => r.status).filter((s) => s !== 202)).toEqual([]);
    const settled = await Promise.all(results.map((r) => o.settled(r.body.data.checkout_request_id, 60_000)));
    expect(
      settled.map((s) => `${s.status} ${s.body?.data?.status ?? s.text}`).filter((s) => s !== '200 succeeded'),
    ).toEqual([]);
    const counts = await t.db.tenant(o.org.id, async (tx) => ({
      requests: await tx.paymentRequest.count({ where: { id: { in: results.map((r) => r.body.data.id) } } }),
      receipts: await tx.receipt.count({ where: { paymentRequestId: { in: results.map((r) => r.body.data.id) } } }),
      prompts: await tx.mpesaSimPrompt.count({
        where: { checkoutRequestId: { in: results.map((r) => r.body.data.checkout_request_id) } },
      }),
    }));
    expect(counts).toEqual({ requests: 100, receipts: 100, prompts: 100 });
  }, 90_000);
});

describe('crashes', () => {
  // The servers are child processes the tests start, kill and restart over this database.
  const database = useDatabase({ poolSize: 4 });
  const org = database.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 1_000_000 } } });
  let db: Database;
  let dataDir: string;
  const children: Child[] = [];

  beforeAll(async () => {
    db = database.db;
    dataDir = await mkdtemp(path.join(tmpdir(), 'bima-chaos-'));
  });
  afterAll(async () => {
    for (const c of children) await c.kill().catch(() => undefined);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function token(child: Child): Promise<string> {
    return new Api(child.origin).token(org.clients.staff.clientId, org.clients.staff.secret);
  }

  it('killed between the rail call and recording its answer, then retried with the same key: one prompt, one receipt', async () => {
    const faulty = await new Child(database.url, dataDir).start({ FAULT_POINTS: 'stk.after-rail-call' });
    children.push(faulty);
    const staff = await token(faulty);
    const bound = await org.through(faulty.origin, { staff }).pendingPolicy();
    const key = randomUUID();
    const body = { phone: PHONES.success, amount: 1, account: bound.policy_no };
    // The process dies inside this request, after the rail has the prompt and before anything records the answer.
    const first = await new Api(faulty.origin)
      .post('/payment/stk/push', { token: staff, body, idempotencyKey: key })
      .catch((e) => e as Error);
    expect(first).toBeInstanceOf(Error);
    expect((await faulty.s.exited).signal).toBe('SIGKILL');
    const intent = await db.tenant(org.id, (tx) =>
      tx.paymentRequest.findFirstOrThrow({ where: { idempotencyKey: key } }),
    );
    expect(intent).toMatchObject({ status: 'sending', checkoutRequestId: null });
    expect(
      await db.system((tx) => tx.mpesaSimPrompt.count({ where: { accountReference: intent.accountReference } })),
    ).toBe(1);

    const healthy = await new Child(database.url, dataDir).start();
    children.push(healthy);
    const staff2 = await token(healthy);
    const retry = await pushUntilAnswered(
      () => healthy.origin,
      () => staff2,
      body,
      key,
      Date.now() + 30_000,
    );
    expect(retry.status, retry.text).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(intent.id);
    // Follow it by its id until the statement has settled it.
    let s: HttpResult;
    for (let i = 0; ; i++) {
      s = await new Api(healthy.origin).get(`/payment/stk/${intent.id}`, { token: staff2 });
      if (s.body.data?.status === 'succeeded' || i > 150) break;
      await sleep(200);
    }
    // The statement, or the prompt's own callback matched to the request in doubt, whichever came first.
    expect(['statement', 'callback']).toContain(s.body.data.resolved_via);
    expect(s.body.data).toMatchObject({
      status: 'succeeded',
      receipt_no: expect.stringMatching(/^RCT-/),
    });
    const prompts = await db.system((tx) =>
      tx.mpesaSimPrompt.findMany({ where: { accountReference: intent.accountReference } }),
    );
    expect(prompts).toHaveLength(1);
    expect(
      await db.tenant(org.id, (tx) => tx.receipt.count({ where: { transactionRef: prompts[0].receiptNo! } })),
    ).toBe(1);
    expect(
      await db.tenant(org.id, (tx) =>
        tx.paymentRequest.count({ where: { accountReference: intent.accountReference } }),
      ),
    ).toBe(1);
    expect(await db.tenant(org.id, (tx) => tx.unmatchedPayment.count())).toBe(0);
    await healthy.kill();
  }, 90_000);

  it('killed right after storing a callback: the restarted process replays it at start', async () => {
    const faulty = await new Child(database.url, dataDir).start({ FAULT_POINTS: 'callback.after-store' });
    children.push(faulty);
    const staff = await token(faulty);
    const bound = await org.through(faulty.origin, { staff }).pendingPolicy();
    const push = await new Api(faulty.origin).post('/payment/stk/push', {
      token: staff,
      body: { phone: PHONES.success, amount: 2, account: bound.policy_no },
      idempotencyKey: randomUUID(),
    });
    expect(push.status, push.text).toBe(202);
    // The simulated customer pays; the process dies as soon as the callback is stored.
    expect((await faulty.s.exited).signal).toBe('SIGKILL');
    const checkout = push.body.data.checkout_request_id;
    const stored = await db.tenant(org.id, (tx) =>
      tx.mpesaCallback.findFirstOrThrow({ where: { checkoutRequestId: checkout } }),
    );
    expect(stored.processedAt).toBeNull();

    const healthy = await new Child(database.url, dataDir).start();
    children.push(healthy);
    let row = stored;
    for (let i = 0; i < 100 && !row.processedAt; i++) {
      await sleep(200);
      row = await db.tenant(org.id, (tx) => tx.mpesaCallback.findUniqueOrThrow({ where: { id: stored.id } }));
    }
    expect(row.processedAt).not.toBeNull();
    expect(['settled', 'duplicate']).toContain(row.outcome);
    const pr = await db.tenant(org.id, (tx) =>
      tx.paymentRequest.findFirstOrThrow({ where: { checkoutRequestId: checkout } }),
    );
    expect(pr.status).toBe('succeeded');
    expect(await db.tenant(org.id, (tx) => tx.receipt.count({ where: { paymentRequestId: pr.id } }))).toBe(1);
    await healthy.kill();
  }, 90_000);

  it('SIGKILL mid-load (pushes, callbacks, deliveries), restart: one receipt per payment, no paid prompt unrecorded, every event delivered, duplicates byte-identical', async () => {
    const rx = await new WebhookReceiver().start();
    try {
      // A push killed before its prompt reached the rail is in doubt until the prompt could no longer be on a phone.
      const ttl = { MPESA_PROMPT_TTL_SECONDS: '4' };
      let child = await new Child(database.url, dataDir).start(ttl);
      children.push(child);
      let staff = await token(child);
      const api = () => new Api(child.origin);
      const ep = await api().post('/webhooks/endpoints', {
        token: staff,
        idempotencyKey: randomUUID(),
        body: { url: rx.url, events: ['payment.received', 'policy.activated'] },
      });
      expect(ep.status, ep.text).toBe(201);
      const policies: any[] = [];
      for (let i = 0; i < 24; i++) policies.push(await org.through(child.origin, { staff }).pendingPolicy());

      // Every payment is a client with a key of its own retrying until answered, as an integrator would.
      const deadline = Date.now() + 45_000;
      const payments = policies.map((p, i) => ({
        key: randomUUID(),
        body: { phone: PHONES.success, amount: Math.ceil(p.premium.total_minor / 100), account: p.policy_no },
        i,
      }));
      const runs = payments.map(async (pay) => {
        await sleep(pay.i * 40);
        return pushUntilAnswered(
          () => child.origin,
          () => staff,
          pay.body,
          pay.key,
          deadline,
        );
      });
      // Kill the process while pushes, simulated customers' callbacks and webhook deliveries are in flight.
      await sleep(500);
      await child.kill();
      child = await new Child(database.url, dataDir).start(ttl);
      children.push(child);
      staff = await token(child);
      const answers = await Promise.all(runs);
      expect(answers.map((a) => a.status).filter((s) => s !== 202)).toEqual([]);

      // Wait until every payment is final and every event has reached the receiver. Work the kill cut between commit
      // and send comes back through the minute sweep: an event never dispatched once it is 30 s old, a delivery whose
      // job was lost once it is 2 min silent (src/modules/webhooks/dispatch.service.ts). Usually nothing is cut and
      // this takes seconds; the deadline (~200 s) covers the sweep's windows.
      const ids = answers.map((a) => a.body.data.id as string);
      const ours = new Set(policies.map((p) => p.policy_no as string));
      const chaosEvents = async () =>
        (
          await db.tenant(org.id, (tx) =>
            tx.event.findMany({ where: { name: { in: ['payment.received', 'policy.activated'] } } }),
          )
        ).filter((e) => ours.has((e.data as { policy_no?: string }).policy_no ?? ''));
      const settleBy = Date.now() + 200_000;
      while (Date.now() < settleBy) {
        const open = await db.tenant(org.id, (tx) =>
          tx.paymentRequest.count({ where: { id: { in: ids }, status: { in: ['sending', 'pending'] } } }),
        );
        const events = await chaosEvents();
        const heard = new Set(rx.received.map((r) => r.headers['service-delivery']));
        const paidCount = await db.tenant(org.id, (tx) =>
          tx.paymentRequest.count({ where: { id: { in: ids }, status: 'succeeded' } }),
        );
        if (open === 0 && events.length >= 2 * paidCount && events.every((e) => heard.has(e.id))) break;
        await sleep(200);
      }
      const requests = await db.tenant(org.id, (tx) => tx.paymentRequest.findMany({ where: { id: { in: ids } } }));
      // Every payment is final: paid, or failed because its prompt never reached the rail (killed before the call).
      expect(requests.filter((r) => r.status !== 'succeeded' && r.status !== 'failed').map((r) => r.status)).toEqual(
        [],
      );
      const succeeded = requests.filter((r) => r.status === 'succeeded');
      const failed = requests.filter((r) => r.status === 'failed');
      expect(succeeded.length).toBeGreaterThan(payments.length / 2);
      // One request per idempotency key, one receipt per paid request.
      expect(new Set(requests.map((r) => r.idempotencyKey)).size).toBe(payments.length);
      const receipts = await db.tenant(org.id, (tx) =>
        tx.receipt.findMany({ where: { paymentRequestId: { in: ids } } }),
      );
      expect(receipts).toHaveLength(succeeded.length);
      // Every prompt the customers paid is receipted: none paid twice, none unrecorded; a failed request paid nothing.
      const refs = requests.map((r) => r.accountReference);
      const paid = await db.system((tx) =>
        tx.mpesaSimPrompt.findMany({ where: { accountReference: { in: refs }, resultCode: 0 } }),
      );
      expect(paid).toHaveLength(succeeded.length);
      const receiptRefs = new Set(receipts.map((r) => r.transactionRef));
      expect(paid.filter((p) => !receiptRefs.has(p.receiptNo!))).toEqual([]);
      expect(paid.filter((p) => failed.some((f) => f.accountReference === p.accountReference))).toEqual([]);
      expect(await db.tenant(org.id, (tx) => tx.unmatchedPayment.count())).toBe(0);
      // Every event delivered; a delivery repeated after the crash repeats the same bytes.
      const events = await chaosEvents();
      const tally = new Map<string, number>();
      for (const e of events)
        tally.set(
          `${e.name} ${(e.data as any).policy_no} ${(e.data as any).receipt_no}`,
          (tally.get(`${e.name} ${(e.data as any).policy_no} ${(e.data as any).receipt_no}`) ?? 0) + 1,
        );
      expect(
        [...tally].filter(([, n]) => n > 1),
        JSON.stringify(events.map((e) => [e.name, e.data])),
      ).toEqual([]);
      expect(events).toHaveLength(2 * succeeded.length);
      const byEvent = new Map<string, Buffer[]>();
      for (const r of rx.received)
        byEvent.set(String(r.headers['service-delivery']), [
          ...(byEvent.get(String(r.headers['service-delivery'])) ?? []),
          r.raw,
        ]);
      expect(events.filter((e) => !byEvent.has(e.id)).map((e) => e.name)).toEqual([]);
      for (const [, bodies] of byEvent) expect(bodies.every((b) => b.equals(bodies[0]))).toBe(true);
      await child.kill();
    } finally {
      await rx.stop();
    }
  }, 300_000);
});

describe('an exhausted pool', () => {
  const t = useKit({ dbPoolSize: 2, dbPoolWaitMs: 1_000 });
  const o = t.useOrg({ fast: true });

  it('is 503 service_unavailable with Retry-After, not 500, and the service serves again once connections free up', async () => {
    expect((await o.api.get('/receipts?limit=1', { token: o.tokens.staff })).status).toBe(200);
    // Both of the service's connections held by long transactions (the principal is cached by now).
    const held = [0, 1].map(() => t.app.services.db.tenant(o.org.id, () => sleep(5_000), { timeout: 30_000 }));
    await sleep(200);
    const busy = await o.api.get('/receipts?limit=1', { token: o.tokens.staff });
    await Promise.all(held);
    expect(busy.status, busy.text).toBe(503);
    expect(busy.body.code).toBe('service_unavailable');
    expect(busy.headers.get('retry-after')).toBe('1');
    expect((await o.api.get('/receipts?limit=1', { token: o.tokens.staff })).status).toBe(200);
  });
});
