import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../src/modules/events/event.service.ts';
import { attemptDelivery } from '../src/modules/webhooks/deliver.service.ts';
import { parseSignature, verifySignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { useKit } from './kit.ts';

// Real deliveries: pg-boss workers running, real loopback receivers. A short receiver timeout keeps the timeout
// test quick; every receiver here answers at once otherwise.
const TIMEOUT_MS = 1500;
const t = useKit({ webhookTimeoutMs: TIMEOUT_MS }, { jobs: true });
const api = t.api;
const org = t.useOrg({ tokens: ['staff'] });
let token: string;
beforeAll(() => (token = org.tokens.staff));
const receivers: WebhookReceiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.stop())));

async function receiver(): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().start();
  receivers.push(r);
  return r;
}
async function endpoint(url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const r = await api.post('/webhooks/endpoints', { token, idempotencyKey: randomUUID(), body: { url, events } });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.data.id, secret: r.body.data.secret };
}
async function sendTest(id: string): Promise<{ id: string; event_id: string }> {
  const r = await api.post(`/webhooks/endpoints/${id}/test`, {
    token,
    idempotencyKey: randomUUID(),
    body: { message: 'hello' },
  });
  expect(r.status, r.text).toBe(202);
  return r.body.data;
}
const delivery = (id: string) =>
  t.db.system((tx) =>
    tx.webhookDelivery.findUniqueOrThrow({ where: { id }, include: { attempts: { orderBy: { number: 'asc' } } } }),
  );
async function waitForDelivery(id: string, cond: (d: Awaited<ReturnType<typeof delivery>>) => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const d = await delivery(id);
    if (cond(d)) return d;
    if (Date.now() > deadline) throw new Error(`delivery ${id} stuck in ${d.status} after ${d.attemptCount} attempts`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
/** Makes a scheduled retry due now (instead of waiting minutes), then runs the worker's attempt directly. */
async function attemptNow(id: string) {
  await t.db.system((tx) => tx.webhookDelivery.update({ where: { id }, data: { nextAttemptAt: new Date() } }));
  return attemptDelivery(t.app.services, id);
}
/** The queued (not yet started) retry job of a delivery, read from pg-boss's own table over a separate connection. */
async function retryJobStart(deliveryId: string): Promise<Date> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await c.query<{ start_after: Date }>(
        "SELECT start_after FROM pgboss.job WHERE name = 'webhooks.deliver' AND data->>'deliveryId' = $1 AND state = 'created' ORDER BY created_on DESC LIMIT 1",
        [deliveryId],
      );
      if (r.rows[0]) return r.rows[0].start_after;
      if (Date.now() > deadline) throw new Error(`no queued retry job for ${deliveryId}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  } finally {
    await c.end();
  }
}
const paymentData = (receiptNo: string) => ({
  receipt_no: receiptNo,
  amount: 1000,
  amount_minor: 100_000,
  currency: 'KES',
  paid_at: new Date().toISOString(),
  method: 'mpesa',
  transaction_ref: 'SIM0000001',
  checkout_request_id: 'ws_CO_1',
  phone: '254712345678',
  account: 'MTR-2026-000001',
  purpose: 'premium',
  client_no: 'C-000001',
  policy_no: 'MTR-2026-000001',
  policy_uuid: randomUUID(),
  allocations: [{ debit_note_no: 'DN-MTR-2026-000001-1/2', amount: 1000, amount_minor: 100_000 }],
  unallocated: { amount: 0, amount_minor: 0 },
});

describe('delivering webhooks', () => {
  it('delivers ping with the spec headers, envelope and a valid signature over the raw bytes', async () => {
    const rx = await receiver();
    const ep = await endpoint(rx.url, ['policy.activated']);
    const sentAt = Math.floor(Date.now() / 1000);
    const d = await sendTest(ep.id);
    await rx.waitFor(() => rx.forEvent(d.event_id).length === 1);
    const receivedAt = Math.ceil(Date.now() / 1000);
    const got = rx.forEvent(d.event_id)[0];
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(got.headers['service-event']).toBe('ping');
    expect(got.headers['service-delivery']).toBe(d.event_id);
    const sig = got.headers['service-signature'] as string;
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(ep.secret, sig, got.raw)).toBe(true);
    expect(verifySignature('whsec_wrong', sig, got.raw)).toBe(false);
    // Signed when it was sent: between the request that asked for it and its arrival (no tolerance to tune).
    expect(parseSignature(sig).t).toBeGreaterThanOrEqual(sentAt);
    expect(parseSignature(sig).t).toBeLessThanOrEqual(receivedAt);
    expect(got.body).toEqual({
      id: d.event_id,
      event: 'ping',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/),
      api_version: 'v1',
      tenant: { code: org.code, name: expect.any(String) },
      data: { message: 'hello', sent_by: org.users.exec.name },
    });
    const done = await waitForDelivery(d.id, (x) => x.status === 'delivered');
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0]).toMatchObject({ number: 1, statusCode: 200, responseExcerpt: 'ok', error: null });
    expect(done.deliveredAt).not.toBeNull();

    // A late duplicate job for the delivered attempt sends nothing and logs nothing.
    expect((await attemptDelivery(t.app.services, d.id)).outcome).toBe('skipped');
    expect((await delivery(d.id)).attempts).toHaveLength(1);
    expect(rx.forEvent(d.event_id)).toHaveLength(1);
  });

  it('sends an emitted event to endpoints subscribed to its name or *, not to others', async () => {
    const [rxName, rxStar, rxOther, rxDisabled] = [
      await receiver(),
      await receiver(),
      await receiver(),
      await receiver(),
    ];
    const named = await endpoint(rxName.url, ['payment.received']);
    const star = await endpoint(rxStar.url, ['*']);
    await endpoint(rxOther.url, ['policy.activated']);
    const disabled = await endpoint(rxDisabled.url, ['*']);
    await api.patch(`/webhooks/endpoints/${disabled.id}`, {
      token,
      idempotencyKey: randomUUID(),
      body: { enabled: false },
    });

    const data = paymentData('R-000001');
    const ev = await t.db.tenant(org.id, (tx) => emitEvent(t.app.services, tx, org.id, 'payment.received', data));
    await rxName.waitFor(() => rxName.forEvent(ev.id).length === 1);
    await rxStar.waitFor(() => rxStar.forEvent(ev.id).length === 1);
    for (const [rx, ep] of [
      [rxName, named],
      [rxStar, star],
    ] as const) {
      const got = rx.forEvent(ev.id)[0];
      expect(got.headers['service-event']).toBe('payment.received');
      expect(got.body.data).toEqual(data);
      expect(verifySignature(ep.secret, got.headers['service-signature'] as string, got.raw)).toBe(true);
    }
    const dispatched = await t.db.system((tx) =>
      tx.event.findUniqueOrThrow({ where: { id: ev.id }, include: { deliveries: true } }),
    );
    expect(dispatched.dispatchedAt).not.toBeNull();
    expect(dispatched.deliveries.map((x) => x.endpointId).sort()).toEqual([named.id, star.id].sort());
    expect(rxOther.received).toHaveLength(0);
    expect(rxDisabled.received).toHaveLength(0);
  });

  it('logs a 500, schedules +1 min, walks +5 m, +30 m, +2 h, +12 h, then fails; a manual retry keeps both ids', async () => {
    const rx = await receiver();
    rx.behaviour = { status: 500, body: `boom ${'x'.repeat(3000)}` };
    const ep = await endpoint(rx.url, ['*']);
    const d = await sendTest(ep.id);
    const first = await waitForDelivery(d.id, (x) => x.attemptCount === 1);
    const seenAt = Date.now();
    expect(first.status).toBe('retry_scheduled');
    const a1 = first.attempts[0];
    expect(a1).toMatchObject({ number: 1, statusCode: 500, error: 'HTTP 500' });
    expect(a1.responseExcerpt!.startsWith('boom x')).toBe(true);
    expect(Buffer.byteLength(a1.responseExcerpt!)).toBe(1024);
    expect(a1.durationMs).toBeGreaterThanOrEqual(0);
    // One minute after the attempt's outcome was known: no earlier than a minute after the attempt began, no later
    // than a minute after this test saw it recorded (bounds it observed, not a tolerance for a slow machine).
    expect(first.nextAttemptAt!.getTime() - 60_000).toBeGreaterThanOrEqual(a1.attemptedAt.getTime());
    expect(first.nextAttemptAt!.getTime() - 60_000).toBeLessThanOrEqual(seenAt);

    // The retry job waits in pg-boss, due exactly at the delivery's next attempt time (read, not waited for).
    const startAfter = await retryJobStart(d.id);
    expect(startAfter.getTime()).toBe(first.nextAttemptAt!.getTime());
    // Not due yet: an early duplicate job does nothing.
    expect((await attemptDelivery(t.app.services, d.id)).outcome).toBe('skipped');

    // +5 m, +30 m, +2 h, +12 h after each attempt's outcome, which falls between the attempt's start and its return.
    for (const [i, delaySeconds] of [300, 1800, 7200, 43_200].entries()) {
      const r = await attemptNow(d.id);
      const returnedAt = Date.now();
      expect(r.outcome).toBe('retry_scheduled');
      const now = await delivery(d.id);
      const decidedAt = now.nextAttemptAt!.getTime() - delaySeconds * 1000;
      expect(decidedAt).toBeGreaterThanOrEqual(now.attempts[i + 1].attemptedAt.getTime());
      expect(decidedAt).toBeLessThanOrEqual(returnedAt);
    }
    const last = await attemptNow(d.id);
    expect(last).toEqual({ outcome: 'failed', nextAttemptAt: null });
    const failed = await delivery(d.id);
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 6, nextAttemptAt: null });
    expect(failed.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6]);
    const sentIds = new Set(rx.forEvent(d.event_id).map((r) => r.headers['service-delivery']));
    expect([...sentIds]).toEqual([d.event_id]);

    // The log over REST shows the attempts.
    const log = await api.get(`/webhooks/endpoints/${ep.id}/deliveries`, { token });
    const entry = log.body.data.find((x: any) => x.id === d.id);
    expect(entry).toMatchObject({ status: 'failed', attempt_count: 6, event_id: d.event_id, next_attempt_at: null });
    expect(entry.attempts).toHaveLength(6);
    expect(entry.attempts[0]).toMatchObject({ number: 1, status_code: 500, error: 'HTTP 500' });

    rx.behaviour = { status: 204 };
    const retry = await api.post(`/webhooks/deliveries/${d.id}/retry`, { token, idempotencyKey: randomUUID() });
    expect(retry.status, retry.text).toBe(202);
    expect(retry.body.data).toMatchObject({ id: d.id, event_id: d.event_id, status: 'pending' });
    const redone = await waitForDelivery(d.id, (x) => x.status === 'delivered');
    expect(redone.attempts).toHaveLength(7);
    expect(redone.attempts[6]).toMatchObject({ number: 7, statusCode: 204, error: null });
    const last2 = rx.forEvent(d.event_id).at(-1)!;
    expect(last2.headers['service-delivery']).toBe(d.event_id);
    expect(last2.body.id).toBe(d.event_id);
    const audit = await t.db.tenant(org.id, (tx) =>
      tx.auditLog.findMany({ where: { entityId: d.id, action: 'webhook_delivery.retried' } }),
    );
    expect(audit).toHaveLength(1);
  });

  it('signs with both secrets during the rotation grace period', async () => {
    const rx = await receiver();
    const ep = await endpoint(rx.url, ['*']);
    const rot = await api.post(`/webhooks/endpoints/${ep.id}/rotate-secret`, {
      token,
      idempotencyKey: randomUUID(),
      body: {},
    });
    expect(rot.status).toBe(200);
    const d = await sendTest(ep.id);
    await rx.waitFor(() => rx.forEvent(d.event_id).length === 1);
    const got = rx.forEvent(d.event_id)[0];
    const header = got.headers['service-signature'] as string;
    const { v1 } = parseSignature(header);
    expect(v1).toHaveLength(2);
    expect(verifySignature(rot.body.data.secret, header, got.raw)).toBe(true);
    expect(verifySignature(ep.secret, header, got.raw)).toBe(true);
    // Each part is valid on its own: the first with the new secret, the second with the old.
    const t0 = parseSignature(header).t;
    expect(verifySignature(rot.body.data.secret, `t=${t0},v1=${v1[0]}`, got.raw)).toBe(true);
    expect(verifySignature(ep.secret, `t=${t0},v1=${v1[1]}`, got.raw)).toBe(true);

    // Without a grace period only the new secret signs.
    const rot2 = await api.post(`/webhooks/endpoints/${ep.id}/rotate-secret`, {
      token,
      idempotencyKey: randomUUID(),
      body: { grace_hours: 0 },
    });
    const d2 = await sendTest(ep.id);
    await rx.waitFor(() => rx.forEvent(d2.event_id).length === 1);
    const h2 = rx.forEvent(d2.event_id)[0].headers['service-signature'] as string;
    expect(parseSignature(h2).v1).toHaveLength(1);
    expect(verifySignature(rot2.body.data.secret, h2, rx.forEvent(d2.event_id)[0].raw)).toBe(true);
  });

  it('counts a receiver that never answers as a timeout and schedules the retry', async () => {
    const rx = await receiver();
    rx.behaviour = 'hang';
    const ep = await endpoint(rx.url, ['*']);
    const d = await sendTest(ep.id);
    const after = await waitForDelivery(d.id, (x) => x.attemptCount === 1, 20_000);
    expect(after.status).toBe('retry_scheduled');
    expect(after.attempts[0]).toMatchObject({ number: 1, statusCode: null, error: `timeout after ${TIMEOUT_MS} ms` });
    expect(after.attempts[0].durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it('re-checks the address at delivery time and refuses a private one when the setting is off', async () => {
    const rx = await receiver();
    const ep = await endpoint(rx.url, ['*']);
    // A second server process with the setting off takes this delivery (e.g. DNS now points inside the network).
    const d = await t.db.tenant(org.id, async (tx) => {
      const ev = await emitEvent(
        t.app.services,
        tx,
        org.id,
        'ping',
        { message: 'm', sent_by: 's' },
        { dispatch: false },
      );
      return tx.webhookDelivery.create({
        data: { id: randomUUID(), tenantId: org.id, eventId: ev.id, endpointId: ep.id, nextAttemptAt: new Date() },
      });
    });
    const strict = { ...t.app.services, config: { ...t.app.services.config, webhooksAllowPrivate: false } };
    const r = await attemptDelivery(strict, d.id);
    expect(r.outcome).toBe('retry_scheduled');
    const after = await delivery(d.id);
    expect(after.attempts[0]).toMatchObject({ statusCode: null, error: 'URL refused: must use https://' });
    expect(rx.received).toHaveLength(0);
  });

  it('stops sending to an endpoint disabled after its delivery was scheduled, logging why', async () => {
    const rx = await receiver();
    const ep = await endpoint(rx.url, ['*']);
    const d = await t.db.tenant(org.id, async (tx) => {
      const ev = await emitEvent(t.app.services, tx, org.id, 'payment.received', paymentData('R-000002'), {
        dispatch: false,
      });
      return tx.webhookDelivery.create({
        data: { id: randomUUID(), tenantId: org.id, eventId: ev.id, endpointId: ep.id, nextAttemptAt: new Date() },
      });
    });
    await api.patch(`/webhooks/endpoints/${ep.id}`, { token, idempotencyKey: randomUUID(), body: { enabled: false } });
    expect((await attemptDelivery(t.app.services, d.id)).outcome).toBe('retry_scheduled');
    expect((await delivery(d.id)).attempts[0]).toMatchObject({
      number: 1,
      statusCode: null,
      error: 'endpoint disabled',
    });
    expect(rx.received).toHaveLength(0);
  });
});
