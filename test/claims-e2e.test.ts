import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Spawned, spawnServer, stopWith, waitHealthy } from './helpers/spawn.ts';
import { verifySignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { motorNotice } from './kit/approved-claim.ts';
import { INSTANT_RAIL, Live, useKit, waitFor, wsClient } from './kit.ts';

/**
 * A motor claim from first notice to closing, through the REST facade, with its live side: register → documents
 * (uploaded, multipart) → underwriter → assessment → approval with the excess → a partial and a final B2C payout
 * through the simulated Daraja B2C rail → settled → closed. Every move reaches a `claimMoved` subscription held on a
 * second server process (the outbox's LISTEN/NOTIFY bus), and every claim event a webhook endpoint whose signatures
 * are checked over the raw bytes. The figures are worked by hand.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o] = t.useOrgs(1, { fast: true });
let second: Spawned;
let ws: Client;
const receiver = new WebhookReceiver();
let secret = '';

beforeAll(async () => {
  second = spawnServer({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: t.databaseUrl,
    DEMO_SEED: '0',
    LOG_LEVEL: 'info',
    PROCESS_ROLE: 'web',
  });
  await Promise.all([waitHealthy(second), receiver.start()]);
  const ep = await o.api.post('/webhooks/endpoints', {
    token: o.tokens.staff,
    idempotencyKey: randomUUID(),
    body: { url: receiver.url, events: ['claim.registered', 'claim.moved', 'claim.approved', 'claim.settled'] },
  });
  expect(ep.status, ep.text).toBe(201);
  secret = ep.body.data.secret;
}, 120_000);

afterAll(async () => {
  await ws?.dispose();
  await receiver.stop();
  if (second) await stopWith(second, 'SIGTERM', 20_000);
});

const post = (path: string, body: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });

/** A one-page PDF's worth of bytes: the magic number is what the upload checks. */
const pdf = (n: string) =>
  new Blob([Buffer.from(`%PDF-1.4\n% ${n}\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n`)], {
    type: 'application/pdf',
  });

async function upload(claimUuid: string, kind: string) {
  const form = new FormData();
  form.set('kind', kind);
  form.set('file', pdf(kind), `${kind}.pdf`);
  const r = await fetch(`${t.origin}/api/v1/claims/${claimUuid}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${o.tokens.staff}`, 'idempotency-key': randomUUID() },
    body: form,
  });
  expect(r.status, await r.clone().text()).toBe(201);
}

describe('a motor claim end to end', () => {
  it('registers, documents, assesses, approves with the excess, pays out by B2C, settles and closes, live', async () => {
    const pol = await o.activePolicy();
    ws = wsClient(second.origin, o.tokens.staff);
    const live = new Live<any>(
      ws,
      `subscription { claimMoved(policyUuid: "${pol.uuid}") { claimNo claimUuid from to reason movedAt } }`,
      'claimMoved',
    );
    // The subscription is live once the server acknowledged it; give the socket its moment.
    await new Promise((r) => setTimeout(r, 500));

    const reg = await post('/claims', motorNotice(pol, { loss_place: 'Waiyaki Way', description: 'Hit a kerb' }));
    expect(reg.status, reg.text).toBe(201);
    const claim = reg.body.data;

    expect((await post(`/claims/${claim.uuid}/transitions`, { to: 'documents_pending' })).status).toBe(200);
    const docs = await o.api.get(`/claims/${claim.uuid}/documents`, { token: o.tokens.staff });
    expect(docs.status, docs.text).toBe(200);
    for (const line of docs.body.data) if (line.required) await upload(claim.uuid, line.kind);
    expect((await post(`/claims/${claim.uuid}/transitions`, { to: 'with_underwriter' })).status).toBe(200);
    expect((await post(`/claims/${claim.uuid}/assessor`, { name: 'Kilimo Assessors' })).status).toBe(200);
    expect((await post(`/claims/${claim.uuid}/transitions`, { to: 'under_assessment' })).status).toBe(200);
    expect((await post(`/claims/${claim.uuid}/assessment`, { assessed_amount: 120_000 })).status).toBe(200);
    const approved = await post(`/claims/${claim.uuid}/approve`, { approved_amount: 120_000 });
    expect(approved.status, approved.text).toBe(200);
    // Own damage excess: 2.5 % × 1,500,000 = 37,500 (minimum 15,000); net payable 120,000 − 37,500 = 82,500.
    expect(approved.body.data).toMatchObject({ excess_minor: 3_750_000, net_payable_minor: 8_250_000 });

    const payout = (amount: number, final = false) =>
      post(`/claims/${claim.uuid}/payments`, {
        method: 'mpesa_b2c',
        payee_type: 'garage',
        payee_name: 'Westlands Auto Body',
        phone: '0708374149',
        amount,
        final,
      });
    const first = await payout(50_000);
    expect(first.status, first.text).toBe(201);
    const read = () => o.api.get(`/claims/${claim.uuid}`, { token: o.tokens.staff });
    await waitFor('the first payout confirmed', read, (c) => c.body.data.paid_minor === 5_000_000, { ms: 30_000 });
    const rest = await payout(32_500, true);
    expect(rest.status, rest.text).toBe(201);
    const settled = (await waitFor('settled', read, (c) => c.body.data.status === 'settled', { ms: 30_000 })).body.data;
    expect(settled).toMatchObject({ paid_minor: 8_250_000, outstanding_minor: 0, reserve_minor: 0 });
    expect((await post(`/claims/${claim.uuid}/transitions`, { to: 'closed', reason: 'Paid in full' })).status).toBe(
      200,
    );

    const moves = ['documents_pending', 'with_underwriter', 'under_assessment', 'approved', 'settled', 'closed'];
    expect(await live.until(() => live.events.length >= moves.length, 20_000)).toBe(true);
    expect(live.errors).toEqual([]);
    expect(live.events.map((e) => e.to)).toEqual(moves);
    expect(live.events.every((e) => e.claimUuid === claim.uuid)).toBe(true);

    const names = (n: string) =>
      receiver.received.filter((r) => r.body?.event === n && r.body?.data?.claim_uuid === claim.uuid);
    await receiver.waitFor(
      () => names('claim.moved').length >= moves.length && names('claim.settled').length === 1,
      30_000,
    );
    expect(names('claim.registered')).toHaveLength(1);
    expect(names('claim.approved')[0].body.data).toMatchObject({
      net_payable: { amount: 82_500, amount_minor: 8_250_000 },
    });
    expect(names('claim.settled')[0].body.data).toMatchObject({ paid: { amount_minor: 8_250_000 } });
    expect(names('claim.settled')[0].body.data.payments).toHaveLength(2);
    for (const r of receiver.received) {
      expect(verifySignature(secret, r.headers['service-signature'] as string, r.raw)).toBe(true);
    }
  }, 180_000);
});
