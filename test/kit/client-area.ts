import { expect, vi } from 'vitest';
import { OTP_RULES } from '../../src/modules/sms/otp-code.ts';
import { codeOnHandset, msisdn } from './handset.ts';
import type { Org } from './org.ts';
import { waitFor } from './wait.ts';

/**
 * Client-area sign-in as a customer's app does it (docs/client-area.md "Client area"): ask for a code, read it on the
 * customer's handset (the simulated gateway's handset inspection, kit/handset.ts: the outbox shows it masked), verify it.
 */

export { msisdn };

/** Each call its own address, so a file's many sign-ins stay under the per-address hourly throttle. */
let ipSeq = 0;
export const nextIp = () => `198.51.100.${(ipSeq = (ipSeq % 250) + 1)}`;

/**
 * The code of the newest sign-in (or registration) request for `phone`, as its handset received it; null when that
 * request sends nothing (the phone is no client's). Waits for the request's job (`client-area.otp`) to send it.
 */
export async function lastCode(o: Org, phone: string): Promise<string | null> {
  const newest = () =>
    o.t.db.tenant(o.id, (tx) => tx.clientOtp.findFirst({ where: { phone: msisdn(phone) }, orderBy: { id: 'desc' } }));
  const row = await newest();
  if (!row || (row.clientId === null && row.purpose !== 'register')) return null;
  const sent = await waitFor(`the code for ${phone} sent`, newest, (r) => !!r?.smsMessageId);
  return codeOnHandset(o, sent!.smsMessageId!);
}

export async function requestCode(o: Org, body: Record<string, unknown>) {
  return o.as('staff').post('/client-area/otp', { body: { customer_ip: nextIp(), ...body } });
}

/** Requests a sign-in code for `phone`, reads it from the outbox and verifies it: the app's credentials. */
export async function signIn(o: Org, phone: string): Promise<{ client_no: string; client_key: string }> {
  const r = await requestCode(o, { phone });
  expect(r.status, r.text).toBe(202);
  const code = await lastCode(o, phone);
  expect(code, 'a code in the outbox').toMatch(/^\d{6}$/);
  const v = await o.as('staff').post('/client-area/verify-otp', { body: { phone, code } });
  expect(v.status, v.text).toBe(200);
  return v.body.data;
}

/**
 * Runs `ask` with the system clock (Date.now: the rate-limit store's clock, the server runs in this process) moved on
 * past the handset's 60 s cool-down, then puts it back: a second code for a handset moments after the first.
 */
export async function pastCoolDown<T>(ask: () => Promise<T>): Promise<T> {
  const real = Date.now.bind(Date);
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + (OTP_RULES.resendCooldownSeconds + 1) * 1000);
  try {
    return await ask();
  } finally {
    spy.mockRestore();
  }
}

/**
 * Signs in by client number and ID number (the code still goes to the registered phone). The cool-down is the
 * handset's however the client is named, so a second sign-in moments after the first asks past it (pastCoolDown).
 */
export async function signInByClientNo(o: Org, clientNo: string): Promise<{ client_no: string; client_key: string }> {
  const c = await o.t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } }));
  const r = await pastCoolDown(() => requestCode(o, { client_no: clientNo, id_no: c.idNo }));
  expect(r.status, r.text).toBe(202);
  const code = await lastCode(o, c.phone);
  expect(code, 'a code in the outbox').toMatch(/^\d{6}$/);
  const v = await o.as('staff').post('/client-area/verify-otp', { body: { client_no: clientNo, code } });
  expect(v.status, v.text).toBe(200);
  return v.body.data;
}

/** The client headers of a session. */
export const clientHeaders = (s: { client_no: string; client_key: string }) => ({
  'X-Client-No': s.client_no,
  'X-Client-Key': s.client_key,
});
