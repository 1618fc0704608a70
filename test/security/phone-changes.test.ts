import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  clientHeaders,
  expectProblem,
  handsetMessages,
  INSTANT_RAIL,
  lastCode,
  msisdn,
  requestCode,
  signIn,
  TODAY,
  useKit,
  waitFor,
  withClock,
  type Org,
} from '../kit.ts';
import { now } from '../../src/lib/clock.ts';
import { ipfPolicy } from '../kit/ipf.ts';
import { command, decidedApplication, holderOf, lastSigningCode } from '../kit/ipf-application.ts';

/**
 * A phone the organisation changes is not trusted for one-time codes for 72 hours (docs/motor-and-clients.md "Phone
 * changes"): sign-in and signing codes go to the phone trusted before the change, the old phone is told of the change,
 * the client's own change in the client area is trusted at once. Two organisations side by side.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

/** A handset nobody else in the suite uses: 0745 xxx xxx. */
let seq = 0;
const newHandset = () => msisdn(`0745${String(process.pid % 1000).padStart(3, '0')}${String(++seq).padStart(3, '0')}`);
/** 72 hours and a minute after `from` (hand-worked: 72 × 3600 s + 60 s). */
const pastHold = (from: Date) => new Date(from.getTime() + (72 * 3600 + 60) * 1000);

async function boundClient(org: Org) {
  const pol = await org.pendingPolicy();
  const c = await org.t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }));
  return { clientNo: pol.client_no, phone: c.phone, idNo: c.idNo };
}

const staffChangesPhone = (org: Org, clientNo: string, phone: string) =>
  org.as('staff').patch(`/clients/${clientNo}`, { body: { phone }, idempotencyKey: randomUUID() });

const UPDATE = `mutation($i: UpdateClientInput!) { updateClient(input: $i) { __typename ... on Client { phone } } }`;

const verify = (org: Org, body: Record<string, unknown>) => org.as('staff').post('/client-area/verify-otp', { body });

/** Every 6-digit run the handset ever received from the organisation. */
const codesOn = async (org: Org, phone: string) =>
  (await handsetMessages(org, phone)).filter((m) => /(?<!\d)\d{6}(?!\d)/.test(m.message));

/** The notice of the change, as the previous phone received it (the sms.send job hands it to the gateway). */
async function noticeOn(org: Org, phone: string) {
  const got = await waitFor(
    `the phone_changed notice on ${phone}`,
    () => handsetMessages(org, phone),
    (ms) => ms.some((m) => m.message.includes('phone number on your')),
  );
  return got.find((m) => m.message.includes('phone number on your'))!;
}

const audits = (org: Org, clientNo: string) =>
  org.t.db.tenant(org.id, (tx) =>
    tx.auditLog.findMany({ where: { entityType: 'client', entityId: clientNo, action: 'client.updated' } }),
  );

describe('a phone changed by the organisation is held for one-time codes', () => {
  it('REST: the sign-in code goes to the old handset, never the new one; the old one is told; audited', async () => {
    const a = await boundClient(o);
    const b = await boundClient(other);
    const attacker = newHandset();
    const r = await staffChangesPhone(o, a.clientNo, attacker);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.phone).toBe(attacker);

    // Asked by the new phone: the same 202, and the code goes to the phone trusted before the change.
    const asked = await requestCode(o, { phone: attacker });
    expect(asked.status, asked.text).toBe(202);
    const code = await lastCode(o, a.phone);
    expect(code).toMatch(/^\d{6}$/);
    expect(await codesOn(o, attacker)).toEqual([]);
    // The code does not sign in through the new phone; through the old one it does.
    expectProblem(await verify(o, { phone: attacker, code }), 422, 'validation_failed', 'otp');
    const v = await verify(o, { phone: a.phone, code });
    expect(v.status, v.text).toBe(200);
    expect(v.body.data.client_no).toBe(a.clientNo);

    // The previous phone's notice: no code in it, recorded and charged like every service message.
    const notice = await noticeOn(o, a.phone);
    const first = (await holderOf(o, { client_no: a.clientNo })).name.split(' ')[0];
    const org = await t.db.tenant(o.id, (tx) => tx.tenant.findUniqueOrThrow({ where: { id: o.id } }));
    expect(notice.message).toBe(
      `Dear ${first}, the phone number on your ${org.name} account was changed on ${TODAY}. ` +
        `If you did not ask for this, contact ${org.name} at once.`,
    );
    const sms = await t.db.tenant(o.id, (tx) =>
      tx.smsMessage.findFirstOrThrow({ where: { purpose: 'phone_changed' }, include: { recipients: true } }),
    );
    expect(sms.recipients.map((x) => x.phone)).toEqual([a.phone]);
    expect(sms.unitsReserved).toBeGreaterThan(0);
    // Who changed it, in the audit trail.
    const [audit] = await audits(o, a.clientNo);
    expect(audit.changes).toMatchObject({
      phone: { from: a.phone, to: attacker },
      phone_changed_by: 'organisation',
      codes_held_until: expect.stringMatching(/\+03:00$/),
    });

    // The other organisation's client is untouched: its own code goes to its own phone.
    expect((await requestCode(other, { phone: b.phone })).status).toBe(202);
    expect(await lastCode(other, b.phone)).toMatch(/^\d{6}$/);
    expect(await codesOn(other, attacker)).toEqual([]);
  });

  it('GraphQL, by client number and ID number: the code goes to the old handset; after 72 hours to the new one', async () => {
    const a = await boundClient(o);
    const attacker = newHandset();
    const at = now();
    await withClock(at, async () => {
      const r = await o.as('staff').gql(UPDATE, { i: { clientNo: a.clientNo, phone: attacker } });
      expect(r.body.data.updateClient).toEqual({ __typename: 'Client', phone: attacker });
      expect((await requestCode(o, { client_no: a.clientNo, id_no: a.idNo })).status).toBe(202);
      const code = await lastCode(o, a.phone);
      expect(code).toMatch(/^\d{6}$/);
      expect(await codesOn(o, attacker)).toEqual([]);
      const v = await verify(o, { client_no: a.clientNo, code });
      expect(v.status, v.text).toBe(200);
    });
    await withClock(pastHold(at), async () => {
      expect((await requestCode(o, { phone: attacker })).status).toBe(202);
      const code = await lastCode(o, attacker);
      expect(code).toMatch(/^\d{6}$/);
      const v = await verify(o, { phone: attacker, code });
      expect(v.status, v.text).toBe(200);
      expect(v.body.data.client_no).toBe(a.clientNo);
    });
  });

  it('a second change within the hold keeps the codes with the first phone; changing it back ends the hold', async () => {
    const a = await boundClient(o);
    expect((await staffChangesPhone(o, a.clientNo, newHandset())).status).toBe(200);
    const second = newHandset();
    expect((await staffChangesPhone(o, a.clientNo, second)).status).toBe(200);
    const held = await holderOf(o, { client_no: a.clientNo });
    expect(held.codesPhone).toBe(a.phone);
    expect((await staffChangesPhone(o, a.clientNo, a.phone)).status).toBe(200);
    const back = await holderOf(o, { client_no: a.clientNo });
    expect({ until: back.phoneHeldUntil, codes: back.codesPhone }).toEqual({ until: null, codes: null });
  });
});

describe("the client's own change in the client area is trusted at once", () => {
  it('REST PATCH /client-area/me and GraphQL updateViewerContact: the new phone signs in at once', async () => {
    const a = await boundClient(o);
    const session = await signIn(o, a.phone);
    const mine = newHandset();
    const r = await o.as('staff').patch('/client-area/me', {
      headers: clientHeaders(session),
      body: { phone: mine },
      idempotencyKey: randomUUID(),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.phone).toBe(mine);
    const s2 = await signIn(o, mine);
    expect(s2.client_no).toBe(a.clientNo);
    await noticeOn(o, a.phone);
    const [audit] = await audits(o, a.clientNo);
    expect(audit.changes).toMatchObject({ phone_changed_by: 'client', codes_held_until: null });

    const again = newHandset();
    const g = await o.api.gql(
      `mutation($i: UpdateViewerContactInput!) { updateViewerContact(input: $i) { __typename ... on Viewer { phone } } }`,
      { i: { phone: again } },
      { token: o.tokens.staff, headers: clientHeaders(s2) },
    );
    expect(g.body.data.updateViewerContact).toEqual({ __typename: 'Viewer', phone: again });
    expect((await signIn(o, again)).client_no).toBe(a.clientNo);
  });
});

describe('a change through the client area with a key the organisation was handed is held', () => {
  it("a policy save's key (kind policy) is not the client's proof of presence: the code stays with the old phone", async () => {
    const pol = await o.pendingPolicy();
    const holder = await holderOf(o, pol);
    expect(pol.portal.client_key).toMatch(/^bck_/);
    const attacker = newHandset();
    const r = await o.as('staff').patch('/client-area/me', {
      headers: clientHeaders({ client_no: pol.client_no, client_key: pol.portal.client_key }),
      body: { phone: attacker },
      idempotencyKey: randomUUID(),
    });
    expect(r.status, r.text).toBe(200);
    const [audit] = await audits(o, pol.client_no);
    expect(audit.changes).toMatchObject({ phone_changed_by: 'organisation' });
    expect((await requestCode(o, { phone: attacker })).status).toBe(202);
    expect(await lastCode(o, holder.phone)).toMatch(/^\d{6}$/);
    expect(await codesOn(o, attacker)).toEqual([]);
  });

  it("another client's phone is 409 duplicate_client naming nobody", async () => {
    const [a, b] = [await boundClient(o), await boundClient(o)];
    const session = await signIn(o, a.phone);
    const r = await o.as('staff').patch('/client-area/me', {
      headers: clientHeaders(session),
      body: { phone: b.phone },
      idempotencyKey: randomUUID(),
    });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([]);
    expect((await holderOf(o, { client_no: a.clientNo })).phone).toBe(a.phone);
  });
});

describe('the premium-finance signing code follows the same rule', () => {
  it('goes to the old handset while held, never the new one; after 72 hours the new phone gets it and signs', async () => {
    const at = now();
    const pol = await ipfPolicy(o);
    const approved = await decidedApplication(o, pol);
    const holder = await holderOf(o, approved.client);
    const attacker = newHandset();
    await withClock(at, async () => {
      expect((await staffChangesPhone(o, holder.clientNo, attacker)).status).toBe(200);
      const r = await command(o, approved.uuid, 'signing-code');
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.sent_to.slice(-3)).toBe(holder.phone.slice(-3));
      expect(await lastSigningCode(o, attacker)).toBeNull();
      expect(await codesOn(o, attacker)).toEqual([]);
      const code = await lastSigningCode(o, holder.phone);
      expect(code).toMatch(/^\d{6}$/);
    });
    await withClock(pastHold(at), async () => {
      const r = await command(o, approved.uuid, 'signing-code');
      expect(r.status, r.text).toBe(200);
      const code = await lastSigningCode(o, attacker);
      expect(code).toMatch(/^\d{6}$/);
      const s = await command(o, approved.uuid, 'sign', { code });
      expect(s.status, s.text).toBe(200);
      expect(s.body.data.status).toBe('signed');
    });
  });

  it('with no trusted phone left is refused 409 phone_recently_changed on phone (REST and GraphQL), sending nothing', async () => {
    const pol = await ipfPolicy(other);
    const approved = await decidedApplication(other, pol);
    const holder = await holderOf(other, approved.client);
    const until = new Date(now().getTime() + 3600_000);
    // No API path leaves a held phone without a trusted one: the state is made directly.
    await t.db.tenant(other.id, (tx) =>
      tx.client.update({ where: { id: holder.id }, data: { phoneHeldUntil: until, codesPhone: null } }),
    );
    const r = await command(other, approved.uuid, 'signing-code');
    expectProblem(r, 409, 'phone_recently_changed', 'phone');
    const g = await other
      .as('staff')
      .gql(`mutation($i: RequestIpfSigningCodeInput!) { requestIpfSigningCode(input: $i) { __typename } }`, {
        i: { uuid: approved.uuid },
      });
    expect(g.body.errors?.[0].extensions?.code).toBe('phone_recently_changed');
    expect(await lastSigningCode(other, holder.phone)).toBeNull();
    const stored = await t.db.tenant(other.id, (tx) =>
      tx.ipfApplication.findUniqueOrThrow({ where: { uuid: approved.uuid } }),
    );
    expect(stored.signingCodeHash).toBeNull();
  });
});
