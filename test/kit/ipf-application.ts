import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { codeOnHandset, msisdn } from './handset.ts';
import type { Org } from './org.ts';
import type { Bound } from './policies.ts';
import { waitFor } from './wait.ts';

/**
 * The application flow through the public API (test/ipf-applications*.test.ts): apply for a policy bound with
 * payment_mode ipf, wait for the lender's decision (the real pg-boss job), read the signing code on the handset.
 */

export const MKOPO = 'Mkopo Premium Finance';
export const JAMII = 'Jamii Credit';
export const PIN = 'A004416331M';

export async function lenderId(o: Org, name = MKOPO): Promise<number> {
  const l = await o.t.db.tenant(o.id, (tx) => tx.ipfLender.findFirstOrThrow({ where: { name } }));
  return l.id;
}

/** The policyholder as the database holds them (the application's KYC must match their ID number). */
export function holderOf(o: Org, pol: { client_no: string }) {
  return o.t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }));
}

/** A valid application body for `pol`: Mkopo over 4 months, the holder's ID number, a comfortable income. */
export async function applicationBody(o: Org, pol: Bound, extra: Record<string, unknown> = {}) {
  const holder = await holderOf(o, pol);
  return {
    policy_uuid: pol.uuid,
    lender_id: await lenderId(o),
    tenor_months: 4,
    id_number: holder.idNo,
    kra_pin: PIN,
    income_band: '100k_250k',
    consent: true,
    ...extra,
  };
}

export function postApplication(o: Org, body: unknown, token = o.tokens.staff, headers?: Record<string, string>) {
  return o.api.post('/ipf/applications', { token, headers, body, idempotencyKey: randomUUID() });
}

/** Creates an application for `pol` (201 asserted) and returns its record. */
export async function apply(o: Org, pol: Bound, extra: Record<string, unknown> = {}, token?: string) {
  const r = await postApplication(o, await applicationBody(o, pol, extra), token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

export function command(o: Org, uuid: string, verb: string, body: unknown = {}, token = o.tokens.staff) {
  return o.api.post(`/ipf/applications/${uuid}/${verb}`, { token, body, idempotencyKey: randomUUID() });
}

export async function readApplication(o: Org, uuid: string, token = o.tokens.staff) {
  const r = await o.api.get(`/ipf/applications/${uuid}`, { token });
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

/** Waits for the lender's decision (the ipf.decide job) and returns the decided record. */
export function decided(o: Org, uuid: string) {
  return waitFor(
    `the lender's decision on application ${uuid}`,
    () => readApplication(o, uuid),
    (a) => a.status !== 'submitted',
  );
}

/** An application created and submitted at once, decided by the lender (asserted `approved` unless told). */
export async function decidedApplication(o: Org, pol: Bound, extra: Record<string, unknown> = {}) {
  const a = await apply(o, pol, { submit: true, ...extra });
  expect(a.status).toBe('submitted');
  return decided(o, a.uuid);
}

/** The newest signing code sent to `phone`, as the handset received it (the outbox shows it masked), or null. */
export async function lastSigningCode(o: Org, phone: string): Promise<string | null> {
  const m = await o.t.db.tenant(o.id, (tx) =>
    tx.smsMessage.findFirst({
      where: { purpose: 'ipf_sign', recipients: { some: { phone: msisdn(phone) } } },
      orderBy: { id: 'desc' },
    }),
  );
  return m ? codeOnHandset(o, m.id) : null;
}

/** Requests a signing code (200 asserted) and reads it on the client's handset. */
export async function signingCode(o: Org, a: { uuid: string; client: { client_no: string } }) {
  const r = await command(o, a.uuid, 'signing-code');
  expect(r.status, r.text).toBe(200);
  const holder = await holderOf(o, a.client);
  const code = await lastSigningCode(o, holder.phone);
  expect(code, 'a signing code on the handset').toMatch(/^\d{6}$/);
  return { sent: r.body.data, code: code!, phone: holder.phone };
}
