import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { THIS_YEAR, TODAY } from '../helpers/clock.ts';
import type { Org } from './org.ts';
import { waitFor } from './wait.ts';

/**
 * State builders: a policy in the state a test needs, made through the public REST API as a client would (quote,
 * bind, STK push, cancellation, endorsement), never by writing rows. Each step asserts its answer with the response
 * text, and every wait polls with a deadline that fails naming what it waited for.
 */

/** The simulator's number that pays at once (PHONES.success, as a customer types it). */
const PAYING_PHONE = '0708 374 149';

let seq = 0;
/** Unique in this process: client names, phones and id numbers, chassis and registrations. */
// Never 000nnn: the demo seed's clients have the phones 07xx 000nnn, and a number equal to one is a duplicate client
// (a process whose pid ended in 00 drew 0711 000202, a seeded client's).
const unique = () => `${(process.pid % 90) + 10}${String((seq += 1)).padStart(3, '0')}`;

export interface RiskOptions {
  /** Sum insured in shillings (default 1,500,000). */
  value?: number;
  /** Year of manufacture (default three years ago). */
  yom?: number;
  insurer?: string;
  /** Default the staff key. */
  token?: string;
}

export interface BindOptions extends RiskOptions {
  /** Debit notes to raise (default 1). */
  instalments?: number;
  headers?: Record<string, string>;
  regno?: string;
  startDate?: string;
  /** Email, engine number and body type too: what the registry records when it is given them. */
  fullParticulars?: boolean;
  /** Merged over the generated parts of the bind body. */
  client?: Record<string, unknown>;
  policy?: Record<string, unknown>;
  vehicle?: Record<string, unknown>;
}

export interface ActiveOptions extends BindOptions {
  /** How many instalments to pay, first first (default 1). */
  paid?: number;
  /**
   * Where each instalment's push goes: the policy number (default; the rail's whole shillings' excess then goes to
   * the next instalment) or the instalment's own debit note (its excess to the client's credit).
   */
  payInto?: 'policy' | 'debit_note';
}

export interface PayOptions {
  token?: string;
  phone?: string;
  /** Also wait until the rail's callback is processed (default true): nothing of the payment is still running. */
  callback?: boolean;
  /** premium (default) or ipf_repayment (`account` a loan number). */
  purpose?: 'premium' | 'ipf_repayment';
}

/** An active policy: the bind's answer, and `record`, GET /policies/{uuid} once it was active. */
export type Active = Bound & { record: any };

export interface AsOptions {
  token?: string;
  headers?: Record<string, string>;
}

/** The /motor/save answer (policy, premium, debit notes, portal) and the regno it was bound with. */
export interface Bound {
  [field: string]: any;
  uuid: string;
  policy_no: string;
  client_no: string;
  regno: string;
  debit_note: { [field: string]: any; instalments: { [field: string]: any; number: string; amount_minor: number }[] };
}

const insurerIds = new WeakMap<object, Promise<Map<string, number>>>();

/** The organisation's insurers' ids by name (reference data, read once from the database). */
export function insurers(o: Org): Promise<Map<string, number>> {
  let ids = insurerIds.get(o.org);
  if (!ids) {
    ids = o.t.db.tenant(o.id, async (tx) => new Map((await tx.insurer.findMany()).map((r) => [r.name, r.id])));
    insurerIds.set(o.org, ids);
  }
  return ids;
}

export async function insurerId(o: Org, name: string): Promise<number> {
  const id = (await insurers(o)).get(name);
  if (id === undefined) throw new Error(`no insurer named ${name}`);
  return id;
}

export async function quote(o: Org, r: RiskOptions = {}): Promise<any> {
  const q = await o.api.post('/motor/quote', {
    token: r.token ?? o.tokens.staff,
    body: {
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      year: r.yom ?? THIS_YEAR - 3,
      value: r.value ?? 1_500_000,
      insurer_id: await insurerId(o, r.insurer ?? 'Simba General'),
    },
  });
  expect(q.status, q.text).toBe(200);
  return q.body.options[0];
}

/** A bind body for a new client (Simba, private comprehensive), priced by the server's quote (`option`). */
export async function bindBody(o: Org, b: BindOptions = {}): Promise<{ body: Record<string, any>; option: any }> {
  const option = await quote(o, b);
  const n = unique();
  const yom = b.yom ?? THIS_YEAR - 3;
  const body = {
    client: {
      name: `Payer ${n} Otieno`,
      phone: `0711 ${n.padStart(6, '0')}`,
      idno: `55${n.padStart(6, '0')}`,
      ...(b.fullParticulars ? { email: `payer${n}@example.co.ke` } : {}),
      ...b.client,
    },
    policy: {
      start_date: b.startDate ?? TODAY,
      insurer_id: option.insurer_id,
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      cover_period: 'annual',
      premium: option.total,
      premium_instalments: b.instalments ?? 1,
      ...b.policy,
    },
    vehicles: [
      {
        regno: b.regno ?? `KDE ${n.slice(-3)}${'ABCDEFGHJK'[seq % 10]}`,
        chassis_no: `NZE141-${n}`,
        ...(b.fullParticulars ? { engine_no: `1NZ-${n}`, body_type: 'Saloon' } : {}),
        make: 'Toyota',
        model: 'Axio',
        yom,
        value: b.value ?? 1_500_000,
        ...b.vehicle,
      },
    ],
  };
  return { body, option };
}

export async function pendingPolicy(o: Org, b: BindOptions = {}): Promise<Bound> {
  const { body } = await bindBody(o, b);
  const r = await o.api.post('/motor/save', {
    token: b.token ?? o.tokens.staff,
    headers: b.headers,
    idempotencyKey: randomUUID(),
    body,
  });
  expect(r.status, r.text).toBe(201);
  return { ...r.body, regno: body.vehicles[0].regno };
}

export async function pay(o: Org, account: string, amountMinor: number | bigint, p: PayOptions = {}): Promise<string> {
  const amount = Math.ceil(Number(amountMinor) / 100);
  const purpose = p.purpose ? { purpose: p.purpose } : {};
  const push = await o.push({ phone: p.phone ?? PAYING_PHONE, amount, account, ...purpose }, p.token);
  expect(push.status, push.text).toBe(202);
  const id: string = push.body.data.checkout_request_id;
  const s = await o.settled(id);
  expect(s.body.data?.status, `the payment of KES ${amount} to ${account}: ${s.text}`).toBe('succeeded');
  if (p.callback ?? true)
    await waitFor(
      `the rail's callback for ${id} to be processed`,
      () => o.t.db.tenant(o.id, (tx) => tx.mpesaCallback.findMany({ where: { checkoutRequestId: id } })),
      (rows) => rows.length > 0 && rows.every((r) => r.processedAt),
    );
  return id;
}

export async function payInstalments(o: Org, pol: { uuid: string; policy_no: string }, nos: number[]) {
  const notes = await o.t.db.tenant(o.id, (tx) =>
    tx.debitNote.findMany({ where: { policy: { uuid: pol.uuid }, instalmentNo: { in: nos } } }),
  );
  const open = notes.reduce((s, d) => s + (d.amountMinor - d.paidMinor - d.creditedMinor), 0n);
  return pay(o, pol.policy_no, open);
}

export async function policyRecord(o: Org, uuid: string, token = o.tokens.staff): Promise<any> {
  const r = await o.api.get(`/policies/${uuid}`, { token });
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

/** Waits until the policy's record shows `status` (payments apply in the background of the rail's callback). */
export function policyInStatus(o: Org, uuid: string, status: string) {
  return waitFor(
    `policy ${uuid} to be ${status}`,
    () => policyRecord(o, uuid),
    (p) => p.status === status,
  );
}

export async function activePolicy(o: Org, a: ActiveOptions = {}): Promise<Active> {
  const pol = await pendingPolicy(o, a);
  const notes = pol.debit_note.instalments;
  for (const dn of notes.slice(0, a.paid ?? 1))
    await pay(o, a.payInto === 'debit_note' ? dn.number : pol.policy_no, dn.amount_minor);
  const active: Active = { ...pol, record: await policyInStatus(o, pol.uuid, 'active') };
  return active;
}

const write = (o: Org, path: string, body: unknown, a: AsOptions) =>
  o.api.post(path, { token: a.token ?? o.tokens.staff, headers: a.headers, body, idempotencyKey: randomUUID() });

export async function cancel(o: Org, uuid: string, body: Record<string, unknown> = {}, a: AsOptions = {}) {
  const preview = await write(
    o,
    `/policies/${uuid}/cancellation`,
    {
      reason: 'insured_request',
      requested_by: 'insured',
      ...body,
    },
    a,
  );
  expect(preview.status, preview.text).toBe(201);
  const confirm = await write(o, `/policies/${uuid}/cancellations/${preview.body.data.uuid}/confirm`, undefined, a);
  expect(confirm.status, confirm.text).toBe(200);
  return confirm.body.data;
}

export async function cancelledPolicy(
  o: Org,
  a: ActiveOptions & { cancellation?: Record<string, unknown> } = {},
): Promise<Active & { cancellation: any }> {
  const pol = await activePolicy(o, a);
  return { ...pol, cancellation: await cancel(o, pol.uuid, a.cancellation) };
}

export async function endorse(o: Org, uuid: string, body: Record<string, unknown>, a: AsOptions = {}) {
  const preview = await write(o, `/policies/${uuid}/endorse`, body, a);
  expect(preview.status, `${JSON.stringify(body)} → ${preview.text}`).toBe(201);
  const confirm = await write(o, `/policies/${uuid}/endorsements/${preview.body.data.uuid}/confirm`, undefined, a);
  expect(confirm.status, confirm.text).toBe(200);
  return confirm.body.data;
}

export async function certifiedPolicy(o: Org, a: ActiveOptions = {}): Promise<Active & { certificates: any[] }> {
  const pol = await activePolicy(o, a);
  const certificates = await waitFor(
    `a certificate issued for ${pol.policy_no}`,
    async () => {
      const r = await o.api.get(`/policies/${pol.uuid}/certificates`, { token: o.tokens.staff });
      expect(r.status, r.text).toBe(200);
      return r.body.data as any[];
    },
    (list) => list.some((c) => c.status === 'issued'),
    { ms: 30_000, every: 150 },
  );
  return { ...pol, certificates };
}

/** A REST motor bind body's parts in GraphQL spelling: the variables of bindMotorPolicy. */
export function bindVars(b: any) {
  const v = b.vehicles[0];
  return {
    client: { name: b.client.name, phone: b.client.phone, idNo: b.client.idno },
    policy: {
      startDate: b.policy.start_date,
      insurerId: b.policy.insurer_id,
      class: b.policy.class,
      coverage: b.policy.coverage,
      scope: b.policy.scope,
      coverPeriod: b.policy.cover_period,
      premium: b.policy.premium,
      premiumInstalments: b.policy.premium_instalments ?? null,
    },
    vehicles: [
      {
        regNo: v.regno,
        chassisNo: v.chassis_no,
        make: v.make,
        model: v.model,
        yom: v.yom,
        value: v.value,
        coverage: v.coverage,
      },
    ],
  };
}
