import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveCallbackToken } from '../src/modules/payments/callback-token.ts';
import { expectProblem, INSTANT_RAIL, useKit, waitFor } from './kit.ts';
import type { Org } from './kit/org.ts';

/**
 * SMS (docs/sms.md "SMS"): the send and its cost, the gateway's answers per recipient (the simulator's numbers), retries,
 * releases, delivery reports as hints, the balance and its ledger, templates and sender IDs. Access, isolation,
 * parity and the service's own notices are in sms-access.test.ts.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, poor] = t.useOrgs(2, { fast: true });

const VALID = '254712000001';
const INVALID_AT_GATEWAY = '254700000021';
const BLACKLISTED = '254700000022';
const FLAKY = '254700000023';
const GATEWAY_DOWN = '254700000024';
const UNDELIVERABLE = '254700000025';
const NO_REPORT = '254700000026';

export const sendAs = (org: Org, body: unknown, role: 'staff' | 'admin' | 'agent' | 'readonly' = 'staff') =>
  org.as(role).post('/sms', { body, idempotencyKey: randomUUID() });
const balance = async (org: Org) => (await org.as('staff').get('/sms/balance')).body.data.balance_units as number;
const message = async (org: Org, uuid: string) => (await org.as('staff').get(`/sms/${uuid}`)).body.data;
const byPhone = (m: { recipients: any[] }, phone: string) => m.recipients.find((r) => r.phone === phone);
const settled = (org: Org, uuid: string, what: string) =>
  waitFor(
    what,
    () => message(org, uuid),
    (m) => m.recipients.every((r: { status: string }) => ['delivered', 'failed'].includes(r.status)),
    { ms: 20_000 },
  );
const text = (n: number) => `${randomUUID()} ${'x'.repeat(n)}`.slice(0, n);

describe('sending', () => {
  it('a mix of valid, blacklisted and invalid numbers is charged exactly the sendable segments', async () => {
    const before = await balance(o);
    const r = await sendAs(o, {
      to: ['0712 000 001', BLACKLISTED, INVALID_AT_GATEWAY, 'not-a-number', '+254712000001'],
      message: text(161), // two GSM-7 segments
    });
    expect(r.status, r.text).toBe(201);
    const m = r.body.data;
    // The duplicate is one recipient; the unparseable number is recorded, refused at once, and costs nothing.
    expect(m).toMatchObject({ encoding: 'gsm7', segments: 2, recipient_count: 4, units_reserved: 6 });
    expect(byPhone(m, 'not-a-number')).toMatchObject({ status: 'failed', status_code: 403, units: 0 });
    expect(await balance(o)).toBe(before - 6);

    const done = await settled(o, m.uuid, 'every recipient final');
    expect(byPhone(done, VALID)).toMatchObject({ status: 'delivered', status_code: 101, units: 2, released: false });
    expect(byPhone(done, BLACKLISTED)).toMatchObject({ status: 'failed', status_code: 406, released: true });
    expect(byPhone(done, INVALID_AT_GATEWAY)).toMatchObject({ status: 'failed', status_code: 403, released: true });
    expect(done).toMatchObject({ units_reserved: 6, units_released: 4, units_charged: 2 });
    expect(await balance(o)).toBe(before - 2);

    const ledger = (await o.as('staff').get('/sms/balance?ledger=5')).body.data.ledger;
    const mine = ledger.filter((l: { message_id: number }) => l.message_id === m.id);
    expect(mine.map((l: { kind: string; units: number }) => [l.kind, l.units]).sort()).toEqual([
      ['release', 2],
      ['release', 2],
      ['reserve', -6],
    ]);
  });

  it('a transient 500 is retried and then delivered; one segment charged', async () => {
    const before = await balance(o);
    const r = await sendAs(o, { to: FLAKY, message: text(40) });
    expect(r.status, r.text).toBe(201);
    const done = await settled(o, r.body.data.uuid, 'the flaky number delivered');
    expect(byPhone(done, FLAKY)).toMatchObject({ status: 'delivered', status_code: 101, attempts: 2 });
    expect(await balance(o)).toBe(before - 1);
  });

  it('a gateway failing with 501 every time fails after the last attempt, its units released', async () => {
    const before = await balance(o);
    const r = await sendAs(o, { to: [GATEWAY_DOWN], message: 'Ωmega ж' }); // UCS-2, one segment
    expect(r.body.data).toMatchObject({ encoding: 'ucs2', segments: 1 });
    const done = await settled(o, r.body.data.uuid, 'the 501 number failed');
    expect(byPhone(done, GATEWAY_DOWN)).toMatchObject({ status: 'failed', status_code: 501, attempts: 4 });
    expect(done.units_charged).toBe(0);
    expect(await balance(o)).toBe(before);
  });

  it('a balance that cannot cover the cost is 422 and records nothing', async () => {
    const before = await balance(poor);
    const count = () => t.db.tenant(poor.id, (tx) => tx.smsMessage.count());
    const n = await count();
    const to = Array.from({ length: 101 }, (_, i) => `2547130${String(i).padStart(5, '0')}`);
    const r = await sendAs(poor, { to, message: 'y'.repeat(1530) }); // 10 segments × 101 = 1,010 units
    expectProblem(r, 422, 'validation_failed', 'to');
    expect(await count()).toBe(n);
    expect(await balance(poor)).toBe(before);
    // Positive control: what the balance covers is recorded.
    expect((await sendAs(poor, { to: to.slice(0, 2), message: 'ok' })).status).toBe(201);
    expect(await count()).toBe(n + 1);
  });

  it('refuses what cannot be sent: no sendable number, an empty or too long message, both or neither', async () => {
    expectProblem(await sendAs(o, { to: ['12345'], message: 'hi' }), 422, 'validation_failed', 'to');
    expectProblem(await sendAs(o, { to: [VALID], message: 'z'.repeat(1531) }), 422, 'validation_failed', 'message');
    expectProblem(await sendAs(o, { to: [VALID] }), 422, 'validation_failed', 'message');
    expectProblem(await sendAs(o, { to: [VALID], message: 'a', template: 'otp' }), 422, 'validation_failed');
    expectProblem(await sendAs(o, { to: [], message: 'a' }), 422, 'validation_failed', 'to');
    expectProblem(
      await sendAs(o, { to: [VALID], message: 'a', sender_id: 'NOPE' }),
      422,
      'validation_failed',
      'sender_id',
    );
  });
});

describe('delivery reports are hints', () => {
  const token = (org: Org) => deriveCallbackToken(t.app.services.config, org.id, 1);
  const report = (tok: string, body: unknown) =>
    fetch(`${t.origin}/api/v1/sms/delivery-report/${tok}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('a report the gateway does not confirm changes nothing; the gateway’s answer wins', async () => {
    const r = await sendAs(o, { to: [NO_REPORT, UNDELIVERABLE], message: text(30) });
    const uuid = r.body.data.uuid;
    const sent = await waitFor(
      'both accepted by the gateway',
      () => message(o, uuid),
      (m) => m.recipients.every((x: { status: string }) => x.status !== 'queued' && x.status !== 'sending'),
    );
    const silent = byPhone(sent, NO_REPORT);
    // A forged "Failed" for a message the handset received: the gateway's query (once it knows) says Success.
    const forged = { id: silent.gateway_message_id, status: 'Failed', phoneNumber: `+${NO_REPORT}` };
    const answer = await waitFor(
      'the gateway to answer about it',
      async () => (await (await report(token(o), forged)).json()) as { outcome: string },
      (b) => b.outcome !== 'pending',
    );
    expect(answer.outcome).toBe('delivered');
    const done = await settled(o, uuid, 'both final');
    expect(byPhone(done, NO_REPORT).status).toBe('delivered');
    // Failed after the gateway accepted it: it was sent and keeps its cost.
    expect(byPhone(done, UNDELIVERABLE)).toMatchObject({ status: 'failed', released: false });
    expect(byPhone(done, UNDELIVERABLE).status_text).toMatch(/AbsentSubscriber/);
  });

  it('a wrong token is 404; a report for an id this organisation never sent changes nothing', async () => {
    const wrong = await report(`mcb_${'A'.repeat(43)}`, { id: 'ATXid_x', status: 'Success' });
    expect(wrong.status).toBe(404);
    const unknown = await report(token(o), { id: 'ATXid_unknown', status: 'Success', phoneNumber: `+${VALID}` });
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as { outcome: string }).outcome).toBe('unknown');
    // Another organisation's message, reported with our token: not ours, nothing moves.
    const theirs = await sendAs(poor, { to: [NO_REPORT], message: text(25) });
    const m = await waitFor(
      'their message accepted',
      () => message(poor, theirs.body.data.uuid),
      (x) => x.recipients[0].status !== 'queued' && x.recipients[0].status !== 'sending',
    );
    const r = await report(token(o), { id: m.recipients[0].gateway_message_id, status: 'Failed' });
    expect(((await r.json()) as { outcome: string }).outcome).toBe('unknown');
    // A path that is not valid percent-encoding is refused before any route reads it (docs/api-conventions.md).
    expect(await report('not%zz', {}).then((x) => x.status)).toBe(400);
  });
});

describe('balance, sender IDs and templates', () => {
  it('a top-up (admin, Idempotency-Key) writes a ledger line; a replay adds nothing; staff may not', async () => {
    const before = await balance(o);
    const key = randomUUID();
    const body = { units: 250, reference: 'INV-2026-001' };
    const r = await o.as('admin').post('/sms/top-ups', { body, idempotencyKey: key });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.balance_units).toBe(before + 250);
    expect(r.body.data.ledger[0]).toMatchObject({ kind: 'topup', units: 250, reference: 'INV-2026-001' });
    const replay = await o.as('admin').post('/sms/top-ups', { body, idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await balance(o)).toBe(before + 250);
    expectProblem(
      await o.as('admin').post('/sms/top-ups', { body: { units: 0, reference: 'x' }, idempotencyKey: randomUUID() }),
      422,
      'validation_failed',
      'units',
    );
    expectProblem(
      await o.as('staff').post('/sms/top-ups', { body, idempotencyKey: randomUUID() }),
      403,
      'insufficient_scope',
    );
  });

  it('sender IDs: pending until registered; only a registered one sends or is the default', async () => {
    const admin = o.as('admin');
    const post = (sender_id: string) =>
      admin.post('/sms/sender-ids', { body: { sender_id }, idempotencyKey: randomUUID() });
    expectProblem(await post('1BIMA'), 422, 'validation_failed', 'sender_id');
    expectProblem(await post('ABCDEFGHIJKL'), 422, 'validation_failed', 'sender_id');
    const created = await post('BimaNews');
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ sender_id: 'BimaNews', status: 'pending', is_default: false });
    expectProblem(
      await sendAs(o, { to: [VALID], message: 'hi', sender_id: 'BimaNews' }),
      422,
      'validation_failed',
      'sender_id',
    );
    const patch = (body: unknown) => admin.patch('/sms/sender-ids/BimaNews', { body, idempotencyKey: randomUUID() });
    expectProblem(await patch({ is_default: true }), 409, 'invalid_state');
    const reg = await patch({ status: 'registered', is_default: true });
    expect(reg.body.data).toMatchObject({ status: 'registered', is_default: true });
    const list = (await o.as('staff').get('/sms/sender-ids')).body.data;
    expect(
      list.filter((s: { is_default: boolean }) => s.is_default).map((s: { sender_id: string }) => s.sender_id),
    ).toEqual(['BimaNews']);
    const sent = await sendAs(o, { to: [VALID], message: 'from the new default' });
    expect(sent.body.data.sender_id).toBe('BimaNews');
  });

  it('templates: rendered with variables; a missing variable is 422 on it; an admin saves a new one', async () => {
    const missing = await sendAs(o, { to: [VALID], template: 'renewal_due', variables: { name: 'Wanjiru' } });
    expectProblem(missing, 422, 'validation_failed', 'variables.policy_no');
    const saved = await o.as('admin').post('/sms/templates', {
      body: { code: 'promo', body: 'Hi {{name}}, {{offer}} — {{org}}' },
      idempotencyKey: randomUUID(),
    });
    expect(saved.status, saved.text).toBe(200);
    const r = await sendAs(o, {
      to: [VALID],
      template: 'promo',
      variables: { name: 'Otieno', offer: '10% off', org: 'Us' },
    });
    expect(r.body.data).toMatchObject({ message: 'Hi Otieno, 10% off — Us', template: 'promo', encoding: 'ucs2' });
    // {{org}} defaults to the organisation's name (the seeded receipt template ends with it).
    const receipt = await sendAs(o, {
      to: [VALID],
      template: 'receipt',
      variables: { name: 'Otieno', amount: '1,000', account: 'MED-2026-000001', receipt_no: 'R-1' },
    });
    expect(receipt.status, receipt.text).toBe(201);
    const me = await o.as('staff').get('/me');
    const orgName = me.body.tenant?.name ?? me.body.data?.tenant?.name;
    expect(orgName).toEqual(expect.any(String));
    expect(receipt.body.data.message).toBe(
      `Dear Otieno, we have received KES 1,000 for MED-2026-000001. Receipt R-1. Thank you, ${orgName}.`,
    );
    const templates = (await o.as('staff').get('/sms/templates')).body.data.map((x: { code: string }) => x.code);
    expect(templates).toEqual(expect.arrayContaining(['otp', 'receipt', 'policy_activated', 'renewal_due', 'promo']));
  });
});
