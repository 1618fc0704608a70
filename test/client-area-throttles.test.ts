import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendCode } from '../src/modules/client-area/sign-in/request.ts';
import { OTP_RULES } from '../src/modules/sms/otp-code.ts';
import { expectProblem, INSTANT_RAIL, msisdn, requestCode, useKit, type HttpResult, type Org } from './kit.ts';

/**
 * The sign-in code's hourly throttles (docs/client-area.md "Sign-in"): 5 codes per phone per hour and 20 per address
 * per hour, per organisation, each refused as 422 validation_failed on `otp` with Retry-After. The address is the
 * `customer_ip` the organisation's app sends (requestCode gives every call its own, nextIp()), else the connection's.
 *
 * The throttles' windows are on the system clock (rate-limit windows are not business dates, src/lib/clock.ts), and a
 * phone's codes are 60 s apart at least: the per-phone test moves the system clock's Date.now() on by the cool-down
 * between requests, and puts it back after.
 */
const t = useKit(INSTANT_RAIL);
const [o, other] = t.useOrgs(2, { fast: true });

/** Moves Date.now() (the rate-limit store's clock) on by `seconds` from here, until the test ends. */
let shiftMs = 0;
function moveSystemClock(seconds: number): void {
  if (shiftMs === 0) {
    const real = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => real() + shiftMs);
  }
  shiftMs += seconds * 1000;
}
afterEach(() => {
  vi.restoreAllMocks();
  shiftMs = 0;
});

const phoneOf = (org: Org, clientNo: string) =>
  t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.phone);
/** Codes issued for a handset (rows written; this kit runs no jobs, so nothing is sent). */
const codesIssuedTo = (org: Org, phone: string) =>
  t.db.tenant(org.id, (tx) => tx.clientOtp.count({ where: { phone: msisdn(phone) } }));
const smsTo = (org: Org, phone: string) =>
  t.db.tenant(org.id, (tx) => tx.smsMessage.count({ where: { recipients: { some: { phone: msisdn(phone) } } } }));
const idNoOf = (org: Org, clientNo: string) =>
  t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.idNo);
/** A stranger's number (no client has it): throttled alike, sent nothing. */
const stranger = (i: number) => `0799 3${String(i).padStart(5, '0')}`;

function expectThrottled(r: HttpResult, reason: RegExp) {
  expectProblem(r, 422, 'validation_failed', 'otp');
  expect(r.body.errors[0].message).toMatch(reason);
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(OTP_RULES.resendCooldownSeconds); // the hour's, not the cool-down's
  expect(retryAfter).toBeLessThanOrEqual(3600);
}

describe('per phone: 5 codes an hour', () => {
  it('sends 5 codes a cool-down apart, then refuses the 6th from any address; other phones and organisations go on', async () => {
    const pol = await o.pendingPolicy();
    const phone = await phoneOf(o, pol.client_no);
    const before = await codesIssuedTo(o, phone);
    for (let i = 0; i < OTP_RULES.perPhonePerHour; i++) {
      if (i > 0) moveSystemClock(OTP_RULES.resendCooldownSeconds + 1);
      const r = await requestCode(o, { phone });
      expect(r.status, `code ${i + 1}: ${r.text}`).toBe(202);
    }
    moveSystemClock(OTP_RULES.resendCooldownSeconds + 1);
    // Each request comes from its own address (requestCode): the phone is held, not the address.
    const sixth = await requestCode(o, { phone });
    expectThrottled(sixth, /at most 5 codes per phone per hour/);
    // Registering with that phone counts against the same phone.
    expectThrottled(await requestCode(o, { phone, purpose: 'register' }), /per phone per hour/);
    expect(await codesIssuedTo(o, phone)).toBe(before + OTP_RULES.perPhonePerHour);
    // Another phone, and the same phone at another organisation, have their own allowance.
    expect((await requestCode(o, { phone: stranger(1) })).status).toBe(202);
    expect((await requestCode(other, { phone })).status).toBe(202);
  });
});

describe('per address: 20 codes an hour', () => {
  it('refuses the 21st code asked from one customer_ip, whatever the phones; another address and organisation go on', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < OTP_RULES.perIpPerHour; i++) {
      const r = await requestCode(o, { phone: stranger(100 + i), customer_ip: ip });
      expect(r.status, `code ${i + 1}: ${r.text}`).toBe(202);
    }
    const next = stranger(100 + OTP_RULES.perIpPerHour);
    expectThrottled(await requestCode(o, { phone: next, customer_ip: ip }), /at most 20 codes per address per hour/);
    // The refusal spent nothing of that phone's allowance: from another address it goes through.
    expect((await requestCode(o, { phone: next, customer_ip: '203.0.113.8' })).status).toBe(202);
    expect((await requestCode(other, { phone: stranger(200), customer_ip: ip })).status).toBe(202);
  });

  it("counts the connection's address when the app sends no customer_ip", async () => {
    const ask = (phone: string) => o.as('staff').post('/client-area/otp', { body: { phone } });
    for (let i = 0; i < OTP_RULES.perIpPerHour; i++) {
      const r = await ask(stranger(300 + i));
      expect(r.status, `code ${i + 1}: ${r.text}`).toBe(202);
    }
    expectThrottled(await ask(stranger(300 + OTP_RULES.perIpPerHour)), /per address per hour/);
    // The app naming its customer's address is counted there instead.
    expect((await requestCode(o, { phone: stranger(300 + OTP_RULES.perIpPerHour) })).status).toBe(202);
  });
});

describe('one handset, however the client is named', () => {
  /** Runs the `client-area.otp` job for every code row written since `since` (this kit runs no jobs of its own). */
  async function runCodeJobs(org: Org, since: number): Promise<string[]> {
    const rows = await t.db.tenant(org.id, (tx) =>
      tx.clientOtp.findMany({ where: { id: { gt: since } }, orderBy: { id: 'asc' }, select: { id: true } }),
    );
    const outcomes: string[] = [];
    for (const r of rows) outcomes.push(await sendCode(t.app.services, org.id, r.id));
    return outcomes;
  }
  const lastOtpId = (org: Org) =>
    t.db.tenant(org.id, (tx) => tx.clientOtp.aggregate({ _max: { id: true } })).then((a) => a._max.id ?? 0);

  it('sends a handset one code a cool-down, however the client is named; every request is answered alike', async () => {
    const a = await o.pendingPolicy();
    const [phoneA, idA] = await Promise.all([phoneOf(o, a.client_no), idNoOf(o, a.client_no)]);
    const since = await lastOtpId(o);
    const smsBefore = await smsTo(o, phoneA);
    const byPhone = await requestCode(o, { phone: phoneA });
    const byNumber = await requestCode(o, { client_no: a.client_no, id_no: idA });
    expect(byPhone.status, byPhone.text).toBe(202);
    expect(byNumber.status, byNumber.text).toBe(202);
    expect(byNumber.body).toEqual(byPhone.body);
    // The first is sent; the second, the same handset within the cool-down, is held back: one SMS, one live code.
    expect(await runCodeJobs(o, since)).toEqual(['sent', 'held']);
    expect(await smsTo(o, phoneA)).toBe(smsBefore + 1);
    const live = await t.db.tenant(o.id, (tx) =>
      tx.clientOtp.findMany({ where: { phone: msisdn(phoneA), consumedAt: null, smsMessageId: { not: null } } }),
    );
    expect(live).toHaveLength(1);
  });

  it('tells nothing of an ID number: after a first request, a right and a wrong one are refused alike', async () => {
    const [c, d] = [await o.pendingPolicy(), await o.pendingPolicy()];
    const [idC, idD] = await Promise.all([idNoOf(o, c.client_no), idNoOf(o, d.client_no)]);
    // Wrong, then right, for one client; right, then wrong, for another: the same answers in the same order.
    const wrongFirst = [
      await requestCode(o, { client_no: c.client_no, id_no: '11110001' }),
      await requestCode(o, { client_no: c.client_no, id_no: idC }),
    ];
    const rightFirst = [
      await requestCode(o, { client_no: d.client_no, id_no: idD }),
      await requestCode(o, { client_no: d.client_no, id_no: '11110002' }),
    ];
    for (const [x, y] of [wrongFirst, rightFirst]) {
      expect(x.status, x.text).toBe(202);
      expectProblem(y, 422, 'validation_failed', 'otp');
      expect(y.body.errors[0].message).toMatch(/a code was sent moments ago/);
    }
    expect(wrongFirst[1].body.errors).toEqual(rightFirst[1].body.errors);
  });

  it('counts the hourly allowance per handset across both ways of naming the client', async () => {
    const pol = await o.pendingPolicy();
    const [phone, idNo] = await Promise.all([phoneOf(o, pol.client_no), idNoOf(o, pol.client_no)]);
    const smsBefore = await smsTo(o, phone);
    const asked = OTP_RULES.perPhonePerHour + 2;
    const outcomes: string[] = [];
    for (let i = 0; i < asked; i++) {
      if (i > 0) moveSystemClock(OTP_RULES.resendCooldownSeconds + 1);
      const since = await lastOtpId(o);
      const r = await requestCode(o, i % 2 ? { client_no: pol.client_no, id_no: idNo } : { phone });
      // Neither name alone has used its own hour's allowance: every request is answered.
      expect(r.status, `code ${i + 1}: ${r.text}`).toBe(202);
      outcomes.push(...(await runCodeJobs(o, since)));
    }
    expect(outcomes).toEqual([
      ...Array<string>(OTP_RULES.perPhonePerHour).fill('sent'),
      ...Array<string>(asked - OTP_RULES.perPhonePerHour).fill('held'),
    ]);
    expect(await smsTo(o, phone)).toBe(smsBefore + OTP_RULES.perPhonePerHour);
  });

  it('answers before any SMS is recorded, with the same writes for a client, a stranger and an unknown client number', async () => {
    // This kit runs no jobs: whatever the request itself does is all that happens. The SMS is the job's work.
    const pol = await o.pendingPolicy();
    const phone = await phoneOf(o, pol.client_no);
    const smsBefore = await smsTo(o, phone);
    const rowsBefore = await t.db.tenant(o.id, (tx) => tx.clientOtp.count());
    const client = await requestCode(o, { phone });
    const strange = await requestCode(o, { phone: stranger(500) });
    const unknown = await requestCode(o, { client_no: 'C-999998', id_no: '20000001' });
    for (const r of [client, strange, unknown]) {
      expect(r.status, r.text).toBe(202);
      expect(r.body).toEqual(client.body);
    }
    expect(await smsTo(o, phone)).toBe(smsBefore);
    const rows = await t.db.tenant(o.id, (tx) =>
      tx.clientOtp.findMany({ where: {}, orderBy: { id: 'asc' }, skip: rowsBefore }),
    );
    // One code row each, alike: a hash of a code nobody was told, no message, nothing spent.
    expect(rows).toHaveLength(3);
    for (const row of rows)
      expect(row).toMatchObject({
        codeHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        smsMessageId: null,
        attempts: 0,
        consumedAt: null,
      });
    expect(rows.map((r) => r.phone)).toEqual([phone, msisdn(stranger(500)), null]);
    // Without the simulated gateway (no job runner here) the handset inspection does not exist.
    expectProblem(await o.as('admin').get(`/simulator/sms/handsets/${phone}/messages`), 404, 'not_found');
  });
});
