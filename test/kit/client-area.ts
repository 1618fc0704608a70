import { expect } from 'vitest';
import type { Org } from './org.ts';

/**
 * Client-area sign-in as a customer's app does it (docs/client-area.md "Client area"): ask for a code, read it from the SMS outbox
 * (the message the service recorded for that phone: what the customer's handset would show), verify it.
 */

/** 07… / 01… / +254… → 2547XXXXXXXX, the outbox's spelling. */
export const msisdn = (phone: string) => `254${phone.replace(/\D/g, '').replace(/^(254|0)/, '')}`;

/** Each call its own address, so a file's many sign-ins stay under the per-address hourly throttle. */
let ipSeq = 0;
export const nextIp = () => `198.51.100.${(ipSeq = (ipSeq % 250) + 1)}`;

/** The newest one-time code sent to `phone` (from the outbox), or null when none was sent. */
export async function lastCode(o: Org, phone: string): Promise<string | null> {
  const m = await o.t.db.tenant(o.id, (tx) =>
    tx.smsMessage.findFirst({
      where: { purpose: 'otp', recipients: { some: { phone: msisdn(phone) } } },
      orderBy: { id: 'desc' },
    }),
  );
  return m ? (/\b(\d{6})\b/.exec(m.body)?.[1] ?? null) : null;
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
 * Signs in by client number and ID number (the code still goes to the registered phone): a second sign-in of a client
 * within the phone's 60 s cool-down, since the cool-down is per phone or per client number.
 */
export async function signInByClientNo(o: Org, clientNo: string): Promise<{ client_no: string; client_key: string }> {
  const c = await o.t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } }));
  const r = await requestCode(o, { client_no: clientNo, id_no: c.idNo });
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
