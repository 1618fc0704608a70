import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, Live, PHONES, TODAY, useKit, wsClient } from './kit.ts';

// Reconciliation is switched off here (threshold of an hour) so every result below came by the rail's callback.
const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const clients: Client[] = [];
afterAll(() => Promise.all(clients.map(async (c) => c.dispose())));

describe('end to end: quote → bind (2 instalments) → STK push → callback → receipt → active, live', () => {
  let bound: any;
  let push: any;
  let paid: Live;
  let activated: Live;
  let audit: Live;
  const received: { headers: http.IncomingHttpHeaders; raw: string }[] = [];
  let receiver: http.Server;
  let secret: string;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const hook = await o.api.post('/webhooks/endpoints', {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ['payment.received', 'policy.activated'],
      },
    });
    expect(hook.status, hook.text).toBe(201);
    secret = hook.body.data.secret;

    // An admin key (scope read and admin, a staff actor): it hears the payment events and the audit trail that primes the socket.
    const ws = wsClient(t.origin, await o.api.token(o.org.clients.admin.clientId, o.org.clients.admin.secret));
    clients.push(ws);
    paid = new Live(
      ws,
      'subscription { paymentReceived { eventId receiptNo policyNo clientNo data } }',
      'paymentReceived',
    );
    activated = new Live(
      ws,
      'subscription { policyActivated { eventId policyNo clientNo receiptNo data } }',
      'policyActivated',
    );
    // graphql-ws does not acknowledge a subscription: prime a third one on the same socket until it hears a write.
    audit = new Live(ws, 'subscription { auditLogged { action } }', 'auditLogged');
    for (let i = 0; i < 20 && audit.events.length === 0; i++) {
      await o.api.post('/clients', {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: { name: `Primer ${randomUUID().slice(0, 6)} Kamau`, phone: `07220${String(i).padStart(5, '0')}` },
      });
      await audit.until(() => audit.events.length > 0, 500);
    }
    expect(audit.events.length).toBeGreaterThan(0);

    bound = await o.bind(2);
    // M-Pesa collects whole shillings: an instalment with cents is settled by its amount rounded up.
    const amount = Math.ceil(bound.debit_note.instalments[0].amount_minor / 100);
    push = await o.push({ phone: '0708 374 149', amount, account: bound.policy_no });
  });

  it('answers the push with 202 and the Daraja acknowledgement', () => {
    expect(push.status, push.text).toBe(202);
    expect(push.headers.get('content-type')).toMatch(/^application\/json/);
    expect(push.body.data).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      merchant_request_id: expect.any(String),
      checkout_request_id: expect.stringMatching(/^ws_CO_/),
      response_code: '0',
      response_description: expect.any(String),
      customer_message: expect.any(String),
      status: 'pending',
      phone: PHONES.success,
      account: bound.policy_no,
      purpose: 'premium',
    });
  });

  it('follows the callback to a receipt allocated to the first debit note, and activates the policy', async () => {
    const s = await o.settled(push.body.data.checkout_request_id);
    expect(s.status, s.text).toBe(200);
    const d = s.body.data;
    expect(d).toMatchObject({
      status: 'succeeded',
      result_code: 0,
      resolved_via: 'callback',
      mpesa_receipt_number: expect.stringMatching(/^T[A-Z0-9]{9}$/),
    });
    const r = await o.api.get(`/receipts/${d.receipt_no}`, { token: o.tokens.staff });
    expect(r.status, r.text).toBe(200);
    // Numbered in the Nairobi year (UTC+3) the rail took the money: its transaction time, not the business day.
    const paidYear = new Date(Date.parse(r.body.data.paid_at) + 3 * 3_600_000).getUTCFullYear();
    expect(d.receipt_no).toMatch(new RegExp(`^RCT-${paidYear}-\\d{6}$`));
    const dn1 = bound.debit_note.instalments[0];
    expect(r.body.data).toMatchObject({
      receipt_no: d.receipt_no,
      amount: push.body.data.amount,
      amount_minor: push.body.data.amount * 100,
      transaction_ref: d.mpesa_receipt_number,
      policy_no: bound.policy_no,
      client_no: bound.client_no,
      unallocated: { amount: 0, amount_minor: 0 },
    });
    // The cents of rounding up go to the next open debit note of the policy (oldest first).
    const cents = push.body.data.amount * 100 - dn1.amount_minor;
    const dn2 = bound.debit_note.instalments[1];
    expect(r.body.data.allocations).toEqual([
      { debit_note_no: dn1.number, amount: dn1.amount, amount_minor: dn1.amount_minor },
      ...(cents > 0 ? [{ debit_note_no: dn2.number, amount: Math.round(cents / 100), amount_minor: cents }] : []),
    ]);

    const policy = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { policyNo: bound.policy_no } }),
    );
    expect(policy.status).toBe('active');
  });

  it('delivers paymentReceived and policyActivated live over graphql-ws, with the catalogue data', async () => {
    expect(await paid.until(() => paid.events.length > 0)).toBe(true);
    expect(await activated.until(() => activated.events.length > 0)).toBe(true);
    expect(paid.errors).toEqual([]);
    const p = paid.events[0];
    expect(p.policyNo).toBe(bound.policy_no);
    expect(p.data).toMatchObject({
      policy_no: bound.policy_no,
      client_no: bound.client_no,
      currency: 'KES',
      method: 'mpesa',
      purpose: 'premium',
      checkout_request_id: push.body.data.checkout_request_id,
      phone: PHONES.success,
    });
    const a = activated.events[0];
    expect(a.data).toMatchObject({
      policy_no: bound.policy_no,
      status: 'active',
      receipt_no: p.receiptNo,
      cover_start: TODAY,
    });
    expect(a.data.premium.amount_minor).toBe(bound.premium.total_minor);
  });

  it('a local webhook receiver gets payment.received and policy.activated, signed with the endpoint secret', async () => {
    const deadline = Date.now() + 20_000;
    while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    receiver.close();
    const byEvent = new Map(received.map((r) => [JSON.parse(r.raw).event as string, r]));
    expect([...byEvent.keys()].sort()).toEqual(['payment.received', 'policy.activated']);
    for (const [name, r] of byEvent) {
      const env = JSON.parse(r.raw);
      expect(r.headers['service-event']).toBe(name);
      expect(r.headers['service-delivery']).toBe(env.id);
      const sig = String(r.headers['service-signature']);
      const ts = /t=(\d+)/.exec(sig)![1];
      const v1s = [...sig.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]);
      expect(v1s).toContain(createHmac('sha256', secret).update(`${ts}.${r.raw}`).digest('hex'));
      expect(env.data.policy_no).toBe(bound.policy_no);
    }
    const live = paid.events[0];
    expect(JSON.parse(byEvent.get('payment.received')!.raw).data).toEqual(live.data);
  });

  it('activation queues certificate issuance: the job certifies the policy at the registry', async () => {
    const policy = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { policyNo: bound.policy_no } }),
    );
    let certs: { status: string; certificateNo: string | null }[] = [];
    for (let i = 0; i < 150 && !certs.some((c) => c.status === 'issued'); i++) {
      certs = await t.db.tenant(o.org.id, (tx) => tx.certificate.findMany({ where: { policyId: policy.id } }));
      if (!certs.some((c) => c.status === 'issued')) await new Promise((r) => setTimeout(r, 100));
    }
    // Two instalments: stage 1 of 2 only, until instalment 2 is paid.
    expect(certs).toHaveLength(1);
    expect(certs[0]).toMatchObject({ status: 'issued', certificateNo: expect.stringMatching(/^CC\d{7}$/) });
  });

  it('a duplicate callback changes nothing and is still answered Accepted', async () => {
    const checkout = push.body.data.checkout_request_id;
    const url = await o.callbackUrlOf(checkout);
    const prompt = await t.db.system((tx) =>
      tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId: checkout } }),
    );
    const before = await t.db.tenant(o.org.id, (tx) =>
      Promise.all([tx.receipt.count(), tx.event.count(), tx.clientCredit.count()]),
    );
    const body = {
      Body: {
        stkCallback: {
          MerchantRequestID: prompt.merchantRequestId,
          CheckoutRequestID: checkout,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: prompt.amount },
              { Name: 'MpesaReceiptNumber', Value: prompt.receiptNo },
              { Name: 'TransactionDate', Value: Number(prompt.transactionDate) },
              { Name: 'PhoneNumber', Value: Number(prompt.phone) },
            ],
          },
        },
      },
    };
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    const after = await t.db.tenant(o.org.id, (tx) =>
      Promise.all([tx.receipt.count(), tx.event.count(), tx.clientCredit.count()]),
    );
    expect(after).toEqual(before);
    const rows = await o.callbackProcessed(checkout, 2);
    expect(rows.map((x) => x.outcome)).toEqual(['settled', 'duplicate']);
    expect(rows[1].rawBody).toBe(JSON.stringify(body));

    // The same M-Pesa receipt number under a checkout id the rail never issued: the rail does not back it, nothing moves.
    const other = structuredClone(body);
    other.Body.stkCallback.CheckoutRequestID = 'ws_CO_unknown';
    const r2 = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(other),
    });
    expect(r2.status).toBe(200);
    expect(await t.db.tenant(o.org.id, (tx) => tx.receipt.count())).toBe(before[0]);
    const unmatched = await o.callbackProcessed('ws_CO_unknown');
    expect(unmatched.map((x) => x.outcome)).toEqual(['unconfirmed']);
  });

  it('the second instalment is then outstanding on the client balance', async () => {
    const b = await o.api.get(`/clients/${bound.client_no}/balance`, { token: o.tokens.staff });
    expect(b.status, b.text).toBe(200);
    const dn2 = bound.debit_note.instalments[1];
    const cents = push.body.data.amount * 100 - bound.debit_note.instalments[0].amount_minor;
    expect(b.body.data).toMatchObject({
      client_no: bound.client_no,
      outstanding: { amount_minor: dn2.amount_minor - cents },
      credit: { amount: 0, amount_minor: 0 },
    });
    expect(b.body.data.debit_notes.map((n: any) => n.number)).toEqual([dn2.number]);
  });
});

describe('result codes', () => {
  const cases = [
    ['cancelled', PHONES.cancelled, 1032],
    ['timeout', PHONES.timeout, 1037],
    ['insufficient funds', PHONES.insufficient, 1],
    ['wrong PIN', PHONES.wrongPin, 2001],
  ] as const;
  let bound: any;
  beforeAll(async () => {
    bound = await o.bind(1);
  });
  for (const [label, phone, code] of cases) {
    it(`${label} (${code}) fails the request, raises no receipt and leaves the policy pending`, async () => {
      const push = await o.push({ phone, amount: 100, account: bound.policy_no });
      expect(push.status, push.text).toBe(202);
      const s = await o.settled(push.body.data.checkout_request_id);
      expect(s.body.data).toMatchObject({
        status: 'failed',
        result_code: code,
        resolved_via: 'callback',
        receipt_no: null,
        mpesa_receipt_number: null,
      });
      expect(s.body.data.result_desc).toEqual(expect.any(String));
      const policy = await t.db.tenant(o.org.id, (tx) =>
        tx.policy.findFirstOrThrow({
          where: { policyNo: bound.policy_no },
          include: { receipts: true, debitNotes: true },
        }),
      );
      expect(policy.status).toBe('pending_payment');
      expect(policy.receipts).toEqual([]);
      expect(policy.debitNotes[0].paidMinor).toBe(0n);
    });
  }
});

describe('partial payment and overpayment', () => {
  it('a partial payment leaves the debit note partly paid and the policy pending', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.success, amount: 1000, account: bound.debit_note.instalments[0].number });
    expect(push.status, push.text).toBe(202);
    const s = await o.settled(push.body.data.checkout_request_id);
    expect(s.body.data.status).toBe('succeeded');
    const dn = await t.db.tenant(o.org.id, (tx) =>
      tx.debitNote.findFirstOrThrow({
        where: { number: bound.debit_note.instalments[0].number },
        include: { policy: true },
      }),
    );
    expect(dn.paidMinor).toBe(100_000n);
    expect(dn.policy.status).toBe('pending_payment');
    const b = await o.api.get(`/clients/${bound.client_no}/balance`, { token: o.tokens.staff });
    expect(b.body.data.outstanding.amount_minor).toBe(bound.premium.total_minor - 100_000);
    expect(b.body.data.debit_notes[0]).toMatchObject({
      number: bound.debit_note.instalments[0].number,
      paid_minor: 100_000,
    });
  });

  it('an overpayment pays every open debit note oldest first, activates, and credits the excess to the client', async () => {
    const bound = await o.bind(2);
    const total = bound.premium.total_minor;
    const amount = Math.ceil(total / 100) + 500;
    // The legacy whole-policy debit note number (DN-<policy_no>) is the policy's account.
    const push = await o.push({ phone: PHONES.success, amount, account: bound.debit_note.number });
    expect(push.status, push.text).toBe(202);
    const s = await o.settled(push.body.data.checkout_request_id);
    expect(s.body.data.status).toBe('succeeded');
    const r = await o.api.get(`/receipts/${s.body.data.receipt_no}`, { token: o.tokens.staff });
    const [dn1, dn2] = bound.debit_note.instalments;
    expect(r.body.data.allocations).toEqual([
      { debit_note_no: dn1.number, amount: dn1.amount, amount_minor: dn1.amount_minor },
      { debit_note_no: dn2.number, amount: dn2.amount, amount_minor: dn2.amount_minor },
    ]);
    const excess = amount * 100 - total;
    expect(r.body.data.unallocated.amount_minor).toBe(excess);
    const b = await o.api.get(`/clients/${bound.client_no}/balance`, { token: o.tokens.staff });
    expect(b.body.data).toMatchObject({
      outstanding: { amount_minor: 0 },
      credit: { amount_minor: excess },
      debit_notes: [],
    });
    const policy = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { policyNo: bound.policy_no } }),
    );
    expect(policy.status).toBe('active');
  });
});

describe('receipts are numbered without gaps per organisation', () => {
  it('numbers follow one another', async () => {
    // Its own three receipts (a three-instalment policy paid note by note), whatever else this file paid before.
    const bound = await o.bind(3);
    const mine: number[] = [];
    for (const dn of bound.debit_note.instalments) {
      const push = await o.push({
        phone: PHONES.success,
        amount: Math.ceil(dn.amount_minor / 100),
        account: dn.number,
      });
      expect(push.status, push.text).toBe(202);
      const s = await o.settled(push.body.data.checkout_request_id);
      expect(s.body.data.status, s.text).toBe('succeeded');
      mine.push(Number(s.body.data.receipt_no.slice(-6)));
    }
    expect(mine.slice(1)).toEqual([mine[0] + 1, mine[0] + 2]);
    const list = await o.api.get('/receipts?limit=100', { token: o.tokens.staff });
    expect(list.status, list.text).toBe(200);
    const nos = list.body.data.map((r: any) => Number(r.receipt_no.slice(-6))).sort((a: number, b: number) => a - b);
    expect(nos).toEqual(expect.arrayContaining(mine));
    expect(nos).toEqual(nos.map((_: number, i: number) => i + 1));
  });
});

describe('the callback endpoint', () => {
  it('refuses an unknown callback token with 404 and records nothing', async () => {
    const before = await t.db.system((tx) => tx.mpesaCallback.count());
    const r = await fetch(`${t.origin}/api/v1/payment/callback/mpesa/mcb_${'x'.repeat(43)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Body: { stkCallback: { CheckoutRequestID: 'ws_CO_x', ResultCode: 0 } } }),
    });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await r.json()).code).toBe('not_found');
    expect(await t.db.system((tx) => tx.mpesaCallback.count())).toBe(before);
  });

  it('records a malformed body before refusing to act on it', async () => {
    const bound = await o.bind(1);
    const push = await o.push({ phone: PHONES.cancelled, amount: 5, account: bound.policy_no });
    const url = await o.callbackUrlOf(push.body.data.checkout_request_id);
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"Body": nope',
    });
    expect(r.status).toBe(200);
    const row = await t.db.tenant(o.org.id, (tx) =>
      tx.mpesaCallback.findFirstOrThrow({ where: { rawBody: '{"Body": nope' } }),
    );
    expect(row.outcome).toBe('malformed');
  });
});

describe('POST /payment/stk/push validation', () => {
  let bound: any;
  beforeAll(async () => {
    bound = await o.bind(1);
  });

  it('422 with field errors for a bad phone, amount and purpose', async () => {
    const r = await o.push({ phone: '12345', amount: 0, account: bound.policy_no, purpose: 'gift' });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: any) => e.field).sort()).toEqual(['amount', 'phone', 'purpose']);
  });

  it("a huge amount is one refusal naming the field's own bound, not also zod's 2^53 - 1 (outside check)", async () => {
    for (const amount of [1e20, 250_001]) {
      const r = await o.push({ phone: PHONES.success, amount, account: bound.policy_no });
      expectProblem(r, 422, 'validation_failed', 'amount');
      expect(r.body.errors, r.text).toEqual([
        { field: 'amount', code: 'too_large', message: expect.stringContaining('250,000') },
      ]);
    }
  });

  it('422 on account for an unknown account, and for an ipf_repayment naming no loan', async () => {
    expectProblem(
      await o.push({ phone: PHONES.success, amount: 10, account: 'MTR-1999-999999' }),
      422,
      'validation_failed',
    );
    const r = await o.push({ phone: PHONES.success, amount: 10, account: 'IPF-000001', purpose: 'ipf_repayment' });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual([{ field: 'account', message: expect.stringContaining('loan') }]);
  });

  it('requires an Idempotency-Key, and replays the first answer for the same key', async () => {
    const noKey = await o.api.post('/payment/stk/push', {
      token: o.tokens.staff,
      body: { phone: PHONES.success, amount: 1, account: bound.policy_no },
    });
    expectProblem(noKey, 400, 'idempotency_key_required');
    const key = randomUUID();
    const a = await o.push({ phone: PHONES.cancelled, amount: 1, account: bound.policy_no }, o.tokens.staff, key);
    const b = await o.push({ phone: PHONES.cancelled, amount: 1, account: bound.policy_no }, o.tokens.staff, key);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.data.checkout_request_id).toBe(a.body.data.checkout_request_id);
    expect(b.body.data.id).toBe(a.body.data.id);
    // The same key for another request is refused; nothing is sent.
    const other = await o.push({ phone: PHONES.cancelled, amount: 2, account: bound.policy_no }, o.tokens.staff, key);
    expectProblem(other, 422, 'idempotency_key_reused');
    expect(await t.db.tenant(o.org.id, (tx) => tx.paymentRequest.count({ where: { idempotencyKey: key } }))).toBe(1);
  });

  it('needs the bind scope', async () => {
    expectProblem(
      await o.push({ phone: PHONES.success, amount: 1, account: bound.policy_no }, o.tokens.readonly),
      403,
      'insufficient_scope',
    );
  });
});

describe('GraphQL', () => {
  it('initiateStkPush and stkPushStatus', async () => {
    const bound = await o.bind(1);
    const m = await o.api.gql(
      'mutation($i: StkPushInput!) { initiateStkPush(input: $i) { __typename ... on StkPushAcknowledgement { id checkoutRequestId responseCode } ... on Problem { code } } }',
      { i: { phone: '+254 700 000 003', amount: 50, account: bound.policy_no } },
      { token: o.tokens.staff },
    );
    expect(m.body.errors).toBeUndefined();
    expect(m.body.data.initiateStkPush).toMatchObject({ __typename: 'StkPushAcknowledgement', responseCode: '0' });
    await o.settled(m.body.data.initiateStkPush.checkoutRequestId);
    const q = await o.api.gql(
      'query($c: String!) { stkPushStatus(checkoutRequestId: $c) { status resultCode } }',
      { c: m.body.data.initiateStkPush.checkoutRequestId },
      { token: o.tokens.staff },
    );
    expect(q.body.data.stkPushStatus).toEqual({ status: 'failed', resultCode: 1 });

    // The same idempotency key over GraphQL: the first attempt again, nothing sent twice.
    const keyed =
      'mutation($i: StkPushInput!) { initiateStkPush(input: $i) { __typename ... on StkPushAcknowledgement { id checkoutRequestId replayed } } }';
    const input = {
      phone: PHONES.cancelled,
      amount: 3,
      account: bound.policy_no,
      idempotencyKey: `gql-${randomUUID()}`,
    };
    const k1 = await o.api.gql(keyed, { i: input }, { token: o.tokens.staff });
    const k2 = await o.api.gql(keyed, { i: input }, { token: o.tokens.staff });
    expect(k1.body.data.initiateStkPush.replayed).toBe(false);
    expect(k2.body.data.initiateStkPush).toEqual({ ...k1.body.data.initiateStkPush, replayed: true });
    const reused = await o.api.gql(keyed, { i: { ...input, amount: 4 } }, { token: o.tokens.staff });
    expect(reused.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['idempotency_key_reused']);

    const bad = await o.api.gql(
      'mutation { initiateStkPush(input: {phone: "1", amount: 0, account: "X"}) { __typename ... on Problem { code } } }',
      {},
      { token: o.tokens.staff },
    );
    expect(bad.body.data.initiateStkPush).toEqual({ __typename: 'ValidationProblem', code: 'validation_failed' });
  });

  it('receipts, receipt and clientBalance', async () => {
    const r = await o.api.gql(
      '{ receipts(first: 2) { edges { node { receiptNo policyNo allocations { debitNoteNo } } } } }',
      {},
      { token: o.tokens.staff },
    );
    expect(r.body.errors).toBeUndefined();
    const first = r.body.data.receipts.edges[0].node;
    const one = await o.api.gql(
      'query($n: String!) { receipt(receiptNo: $n) { receiptNo amount { amountMinor } } }',
      { n: first.receiptNo },
      { token: o.tokens.staff },
    );
    expect(one.body.data.receipt.receiptNo).toBe(first.receiptNo);
  });
});
