import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/lib/dates.ts';
import { runLifecycle } from '../src/modules/policies/lifecycle.service.ts';
import { POLICY_RULES } from '../src/modules/policies/policy-state.ts';
import { smsService } from '../src/modules/sms/sms.service.ts';
import { expectProblem, INSTANT_RAIL, useKit, waitFor } from './kit.ts';
import { repay, signedLoan } from './kit/ipf.ts';
import type { Org } from './kit/org.ts';

/**
 * SMS (docs/sms.md "SMS"): the outbox read over REST and GraphQL (pagination, filters, parity), isolation between
 * organisations, the agent rule (agents neither send nor read the outbox), the GraphQL mutations, and the service's
 * own messages (one per event; a receipt and an activation notice when a payment lands; a renewal notice).
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const send = (org: Org, body: unknown) => org.as('staff').post('/sms', { body, idempotencyKey: randomUUID() });
const phone = (i: number) => `2547140000${String(i).padStart(2, '0')}`;

const RECORD = `uuid databaseId senderId body encoding segments purpose templateCode recipientCount unitsReserved
  unitsReleased unitsCharged createdAt recipients { phone status statusCode units released }`;

let sent: { uuid: string; id: number }[] = [];
beforeAll(async () => {
  sent = [];
  for (let i = 0; i < 3; i++) {
    const r = await send(o, { to: [phone(i), 'junk'], message: `outbox ${i} ${randomUUID()}` });
    expect(r.status, r.text).toBe(201);
    sent.push(r.body.data);
  }
}, 60_000);

describe('the outbox', () => {
  it('pages with a cursor, newest first, and filters by status, purpose and phone', async () => {
    const first = await o.as('staff').get('/sms?limit=2&purpose=api');
    expect(first.status, first.text).toBe(200);
    expect(first.body.meta).toMatchObject({ limit: 2, has_more: true, count: 2 });
    expect(first.body.data.map((m: { uuid: string }) => m.uuid)).toEqual([sent[2].uuid, sent[1].uuid]);
    const next = await o.as('staff').get((first.body.links.next as string).replace(/^\/api\/v1/, ''));
    expect(next.body.data[0].uuid).toBe(sent[0].uuid);
    const byPhone = await o.as('staff').get(`/sms?phone=0714000001`);
    expect(byPhone.body.data.map((m: { uuid: string }) => m.uuid)).toEqual([sent[1].uuid]);
    const failed = await o.as('staff').get('/sms?status=failed&limit=100');
    expect(failed.body.data.length).toBeGreaterThanOrEqual(3); // each has its refused "junk" recipient
    expectProblem(await o.as('staff').get('/sms?phone=123'), 422, 'validation_failed', 'phone');
    expectProblem(await o.as('staff').get('/sms?from_date=2026-13-01'), 422, 'validation_failed', 'from_date');
    const today = await o.as('staff').get('/sms?from_date=2026-06-01&to_date=2099-12-31&limit=100');
    expect(today.body.data.length).toBeGreaterThanOrEqual(3);
  });

  it('REST and GraphQL read the same message', async () => {
    const rest = (await o.as('staff').get(`/sms/${sent[0].uuid}`)).body.data;
    const gql = await o
      .as('staff')
      .gql(`query($u: String!) { smsMessage(uuid: $u) { ${RECORD} } }`, { u: sent[0].uuid });
    expect(gql.body.errors).toBeUndefined();
    const g = gql.body.data.smsMessage;
    expect(rest).toMatchObject({
      uuid: g.uuid,
      id: g.databaseId,
      sender_id: g.senderId,
      message: g.body,
      encoding: g.encoding,
      segments: g.segments,
      units_reserved: g.unitsReserved,
      units_charged: g.unitsCharged,
      recipient_count: g.recipientCount,
    });
    expect(rest.recipients.map((r: { phone: string; units: number }) => [r.phone, r.units])).toEqual(
      g.recipients.map((r: { phone: string; units: number }) => [r.phone, r.units]),
    );
    const list = await o
      .as('staff')
      .gql('{ smsMessages(first: 1, purpose: "api") { edges { node { uuid } } } smsBalance { balanceUnits } }');
    expect(list.body.data.smsMessages.edges[0].node.uuid).toBe(sent[2].uuid);
    expect(list.body.data.smsBalance.balanceUnits).toBe(
      (await o.as('staff').get('/sms/balance')).body.data.balance_units,
    );
  });

  it('another organisation’s message is 404 on REST and not_found on GraphQL', async () => {
    expect((await o.as('staff').get(`/sms/${sent[0].uuid}`)).status).toBe(200); // positive control
    expectProblem(await other.as('staff').get(`/sms/${sent[0].uuid}`), 404, 'not_found');
    const g = await other.as('staff').gql(`query($u: String!) { smsMessage(uuid: $u) { uuid } }`, { u: sent[0].uuid });
    expect(g.body.errors?.[0].extensions.code).toBe('not_found');
    const id = Buffer.from(`SmsMessage:${sent[0].id}`).toString('base64');
    const n = await other.as('staff').gql(`query($id: ID!) { node(id: $id) { id } }`, { id });
    expect(n.body.data.node).toBeNull();
    const theirs = await other.as('staff').get('/sms?limit=100');
    expect(theirs.body.data.map((m: { uuid: string }) => m.uuid)).not.toContain(sent[0].uuid);
  });

  it('agents neither send nor read the outbox; a read-only key reads but does not send', async () => {
    expectProblem(
      await o.as('agent').post('/sms', { body: { to: [phone(1)], message: 'x' }, idempotencyKey: randomUUID() }),
      403,
      'actor_forbidden',
    );
    expectProblem(await o.as('agent').get('/sms'), 403, 'actor_forbidden');
    expectProblem(await o.as('staff', { agent: 2 }).get(`/sms/${sent[0].uuid}`), 403, 'actor_forbidden');
    expectProblem(await o.as('agent').get('/sms/balance'), 403, 'actor_forbidden');
    expect((await o.as('readonly').get('/sms')).status).toBe(200);
    expectProblem(
      await o.as('readonly').post('/sms', { body: { to: [phone(1)], message: 'x' }, idempotencyKey: randomUUID() }),
      403,
      'insufficient_scope',
    );
  });
});

describe('GraphQL mutations', () => {
  it('sendSms, topUpSms, saveSmsTemplate, createSmsSenderId, updateSmsSenderId', async () => {
    const s = await o.as('staff').gql(
      `mutation($i: SendSmsInput!) { sendSms(input: $i) { __typename ... on SmsMessage { uuid segments unitsReserved }
        ... on ValidationProblem { code fieldErrors { field } } } }`,
      { i: { to: [phone(9)], message: 'over GraphQL' } },
    );
    expect(s.body.data.sendSms).toMatchObject({ __typename: 'SmsMessage', segments: 1, unitsReserved: 1 });
    const bad = await o
      .as('staff')
      .gql(`mutation { sendSms(input: { to: ["1"], message: "x" }) { __typename ... on ValidationProblem { code } } }`);
    expect(bad.body.data.sendSms).toEqual({ __typename: 'ValidationProblem', code: 'validation_failed' });
    const top = await o
      .as('admin')
      .gql(
        `mutation { topUpSms(input: { units: 10, reference: "GQL-1" }) { __typename ... on SmsBalance { balanceUnits ledger(last: 1) { kind units } } } }`,
      );
    expect(top.body.data.topUpSms.ledger).toEqual([{ kind: 'topup', units: 10 }]);
    const tpl = await o
      .as('admin')
      .gql(
        `mutation { saveSmsTemplate(input: { code: "gql_note", body: "Hello {{name}}" }) { __typename ... on SmsTemplate { code active } } }`,
      );
    expect(tpl.body.data.saveSmsTemplate).toMatchObject({ code: 'gql_note', active: true });
    const created = await o
      .as('admin')
      .gql(
        `mutation { createSmsSenderId(input: { senderId: "GqlSender" }) { __typename ... on SmsSenderId { senderId status } } }`,
      );
    expect(created.body.data.createSmsSenderId).toMatchObject({ senderId: 'GqlSender', status: 'pending' });
    const rejected = await o
      .as('admin')
      .gql(
        `mutation { updateSmsSenderId(input: { senderId: "GqlSender", status: "rejected" }) { __typename ... on SmsSenderId { status isDefault } } }`,
      );
    expect(rejected.body.data.updateSmsSenderId).toMatchObject({ status: 'rejected', isDefault: false });
    const staffTop = await o
      .as('staff')
      .gql(`mutation { topUpSms(input: { units: 1, reference: "x" }) { __typename } }`);
    expect(staffTop.body.errors?.[0].extensions.code).toBe('insufficient_scope');
  });
});

describe('the service’s own messages', () => {
  it('one message per event: a repeat returns the one recorded and charges nothing', async () => {
    const app = t.app.services;
    const eventId = randomUUID();
    const m = {
      tenantId: o.id,
      phone: phone(20),
      templateCode: 'otp',
      vars: { code: '123456' },
      purpose: 'otp',
      eventId,
    };
    const before = (await o.as('staff').get('/sms/balance')).body.data.balance_units;
    const a = await t.db.tenant(o.id, (tx) => smsService.sendServiceMessage(app, tx, m));
    const b = await t.db.tenant(o.id, (tx) => smsService.sendServiceMessage(app, tx, m));
    expect(b.messageId).toBe(a.messageId);
    expect((await o.as('staff').get('/sms/balance')).body.data.balance_units).toBe(before - 1);
    const row = await t.db.tenant(o.id, (tx) => tx.smsMessage.findUniqueOrThrow({ where: { id: a.messageId } }));
    expect(row.body).toMatch(/^123456 is your .+ sign-in code/);
    await waitFor(
      'the code delivered',
      () => t.db.tenant(o.id, (tx) => tx.smsRecipient.findFirst({ where: { messageId: a.messageId } })),
      (r) => r?.status === 'delivered',
    );
  });

  it('a payment that activates a policy sends one receipt and one activation notice to the client', async () => {
    const pol = await o.activePolicy();
    const clientNo = pol.record.client.client_no as string;
    const notices = () =>
      t.db.tenant(o.id, async (tx) => {
        const client = await tx.client.findFirstOrThrow({ where: { clientNo } });
        return tx.smsMessage.findMany({ where: { clientId: client.id }, include: { recipients: true } });
      });
    const got = await waitFor(
      'the receipt and activation SMS',
      notices,
      (ms) => ms.some((m) => m.purpose === 'receipt') && ms.some((m) => m.purpose === 'policy_activated'),
      { ms: 20_000 },
    );
    expect(got.filter((m) => m.purpose === 'receipt')).toHaveLength(1);
    expect(got.filter((m) => m.purpose === 'policy_activated')).toHaveLength(1);
    const receipt = got.find((m) => m.purpose === 'receipt')!;
    expect(receipt.body).toContain(pol.policy_no);
    expect(receipt.eventId).not.toBeNull();
    const outbox = await o.as('staff').get('/sms?purpose=receipt&limit=100');
    expect(outbox.body.data.map((m: { uuid: string }) => m.uuid)).toContain(receipt.uuid);
  });

  it("a loan repayment's receipt names the loan, not the financed policy", async () => {
    const s = await signedLoan(o);
    await repay(o, s.loan.loanNo, s.offer.depositMinor);
    const { clientId } = await t.db.tenant(o.id, (tx) => tx.ipfLoan.findUniqueOrThrow({ where: { id: s.loan.id } }));
    const [receipt] = await waitFor(
      'the repayment receipt SMS',
      () =>
        t.db.tenant(o.id, (tx) =>
          tx.smsMessage.findMany({ where: { clientId, purpose: 'receipt' }, orderBy: { id: 'asc' } }),
        ),
      (ms) => ms.length > 0,
      { ms: 20_000 },
    );
    expect(receipt.body).toContain(`for ${s.loan.loanNo}.`);
    expect(receipt.body).not.toContain(s.policy.policy_no);
  });

  it('a renewal notice: one message for policy.renewal_due, charged once; a rerun of the lifecycle sends nothing', async () => {
    const app = t.app.services;
    const pol = await o.activePolicy();
    const end: string = pol.record.end_date;
    // The lifecycle judged renewalNoticeDays (30) before the end: the notice's "days" is 30.
    const asOf = addDays(end, -POLICY_RULES.renewalNoticeDays);
    expect((await runLifecycle(app, asOf)).renewalNotices).toBeGreaterThanOrEqual(1);
    const dues = () =>
      t.db.tenant(o.id, (tx) =>
        tx.event.findMany({ where: { name: 'policy.renewal_due', data: { path: ['policy_uuid'], equals: pol.uuid } } }),
      );
    const [due, ...more] = await dues();
    expect(more).toEqual([]);
    const [client, org] = await t.db.tenant(o.id, (tx) =>
      Promise.all([
        tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }),
        tx.tenant.findUniqueOrThrow({ where: { id: o.id } }),
      ]),
    );
    const notices = () =>
      t.db.tenant(o.id, (tx) =>
        tx.smsMessage.findMany({
          where: { clientId: client.id, purpose: 'renewal_due' },
          include: { recipients: true },
        }),
      );
    const [m] = await waitFor('the renewal notice SMS', notices, (ms) => ms.length > 0, { ms: 20_000 });
    // Under 160 GSM-7 characters: one segment, one recipient, one unit.
    expect(m).toMatchObject({ eventId: due.id, templateCode: 'renewal_due', recipientCount: 1, segments: 1 });
    expect(m).toMatchObject({ unitsReserved: 1, unitsReleased: 0 });
    expect(m.body).toBe(
      `Dear ${client.name.split(' ')[0]}, your policy ${pol.policy_no} expires on ${end} (30 days). ` +
        `Renew to stay covered. ${org.name}`,
    );
    expect(m.recipients.map((r) => [r.phone, r.units])).toEqual([[client.phone, m.segments]]);
    const charges = () => t.db.tenant(o.id, (tx) => tx.smsLedgerEntry.findMany({ where: { messageId: m.id } }));
    expect((await charges()).map((l) => [l.kind, l.units])).toEqual([['reserve', -m.segments]]);

    // A rerun finds the notice given (no second event), and a dispatch of the event again records nothing new.
    expect((await runLifecycle(app, asOf)).renewalNotices).toBe(0);
    expect(await dues()).toHaveLength(1);
    expect(await smsService.noticeForEvent(app, due.id)).toBe('recorded');
    expect((await notices()).map((x) => x.id)).toEqual([m.id]);
    expect((await charges()).map((l) => [l.kind, l.units])).toEqual([['reserve', -m.segments]]);
    const outbox = await o.as('staff').get('/sms?purpose=renewal_due&limit=100');
    expect(outbox.body.data.map((x: { uuid: string }) => x.uuid)).toContain(m.uuid);
  });
});
