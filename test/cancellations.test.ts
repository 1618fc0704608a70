import { randomUUID } from 'node:crypto';
import { now as clockNow } from '../src/lib/clock.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../src/lib/dates.ts';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, type Org } from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
let levyRates: { code: string; basis: string; rateBps: number | null; amountMinor: bigint | null }[];
beforeAll(async () => {
  levyRates = await t.db.tenant(o.org.id, (tx) => tx.levy.findMany());
});

// ---- independent arithmetic (not proration.ts) ----------------------------------------------------------------
const roundDiv = (num: bigint, den: bigint) => {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = (2n * a + den) / (2n * den);
  return neg ? -q : q;
};
const days = (a: string, b: string) =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
/** Unearned basic and levy shares for one item on cover for the whole period, cancelled at c. */
function expectedCredit(basic: bigint, start: string, end: string, c: string) {
  const D = BigInt(days(start, end) + 1);
  const R = BigInt(Math.max(0, Math.min(Number(D), days(c, end) + 1)));
  const u = roundDiv(basic * R, D);
  const levies = levyRates
    .filter((l) => l.basis === 'percent')
    .map((l) => ({ code: l.code, amount: roundDiv(u * BigInt(l.rateBps!), 10_000n) }));
  const taxes = levies.reduce((s, l) => s + l.amount, 0n);
  return { basic: u, levies, taxes, total: u + taxes, unearnedDays: Number(R), D: Number(D) };
}

/** Mismatches between a response body and its OpenAPI schema: required keys, no undocumented keys, JSON types. */
const components = (buildOpenApi() as any).components.schemas as Record<string, any>;
function mismatches(schema: any, v: unknown, at = '$'): string[] {
  if (schema.$ref) return mismatches(components[schema.$ref.split('/').pop()], v, at);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const actual = v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (types.length && !types.includes(actual) && !(actual === 'integer' && types.includes('number')))
    return [`${at}: ${actual} is not ${types.join('|')}`];
  if (actual === 'array') return (v as unknown[]).flatMap((x, i) => mismatches(schema.items, x, `${at}.${i}`));
  if (actual !== 'object' || !schema.properties) return [];
  const o = v as Record<string, unknown>;
  return [
    ...(schema.required ?? []).filter((k: string) => !(k in o)).map((k: string) => `${at}.${k}: missing`),
    ...Object.keys(o)
      .filter((k) => !(k in schema.properties))
      .map((k) => `${at}.${k}: not documented`),
    ...Object.entries(o).flatMap(([k, x]) =>
      schema.properties[k] ? mismatches(schema.properties[k], x, `${at}.${k}`) : [],
    ),
  ];
}

const post = (
  path: string,
  body: unknown,
  token = o.tokens.staff,
  key: string = randomUUID(),
  headers?: Record<string, string>,
) => o.api.post(path, { token, body, idempotencyKey: key, headers });
const get = (path: string, token = o.tokens.staff, headers?: Record<string, string>) =>
  o.api.get(path, { token, headers });

/** An active policy with `paid` of its instalments paid (all unless told), each into its own debit note; its record. */
async function bindPaid(org: Org, instalments = 1, paid = instalments) {
  const pol = await org.activePolicy({ instalments, paid, payInto: 'debit_note' });
  return { pol, rec: pol.record };
}

async function ledger(tenantId: number, uuid: string) {
  return t.db.tenant(tenantId, async (tx) => {
    const p = await tx.policy.findFirstOrThrow({
      where: { uuid },
      include: { debitNotes: true, creditNotes: true, taxes: true },
    });
    const dn = p.debitNotes.reduce((s, n) => s + n.amountMinor, 0n);
    const cn = p.creditNotes.reduce((s, n) => s + n.amountMinor, 0n);
    const paid = p.debitNotes.reduce((s, n) => s + n.paidMinor, 0n);
    const open = p.debitNotes.reduce((s, n) => s + (n.amountMinor - n.paidMinor - n.creditedMinor), 0n);
    return { p, dn, cn, paid, open, taxLines: p.taxes.reduce((s, x) => s + x.amountMinor, 0n) };
  });
}

const history = (uuid: string) =>
  t.db.tenant(o.org.id, (tx) =>
    tx.policyStatusChange.findMany({ where: { policy: { uuid } }, orderBy: { id: 'asc' } }),
  );

async function credit(org: Org, clientNo: string): Promise<number> {
  const r = await get(`/clients/${clientNo}/balance`, org.tokens.staff);
  expect(r.status, r.text).toBe(200);
  return r.body.data.credit.amount_minor;
}

describe('cancellation of a fully paid annual policy mid-term', () => {
  let pol: any;
  let rec: any;
  let preview: any;
  const c = addDays(TODAY, 100);

  beforeAll(async () => {
    ({ pol, rec } = await bindPaid(o));
  }, 60_000);

  it('previews an itemised refund, exact to the cent', async () => {
    const r = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'vehicle_sold',
      requested_by: 'insured',
      effective_date: c,
      note: 'sold to a dealer',
    });
    expect(r.status, r.text).toBe(201);
    preview = r.body.data;
    expect(mismatches({ $ref: '#/components/schemas/Cancellation' }, preview)).toEqual([]);
    const exp = expectedCredit(BigInt(rec.premium.basic_premium_minor), rec.start_date, rec.end_date, c);
    expect(preview).toMatchObject({
      status: 'quoted',
      reason: 'vehicle_sold',
      registry_reason_id: 15,
      requested_by: 'insured',
      note: 'sold to a dealer',
      effective_date: c,
      credit_note: null,
      policy: { uuid: pol.uuid, status: 'active' },
    });
    const f = preview.refund;
    expect(f.days).toEqual({ in_period: exp.D, covered: 100, unearned: exp.unearnedDays });
    expect(f.basic_premium_minor).toBe(Number(exp.basic));
    expect(f.basic_premium).toBe(Math.round(Number(exp.basic) / 100));
    expect(f.levies.map((l: any) => [l.code, l.amount_minor]).sort()).toEqual(
      exp.levies.map((l) => [l.code, Number(l.amount)]).sort(),
    );
    expect(f.taxes_minor).toBe(Number(exp.taxes));
    expect(f.credit_total_minor).toBe(Number(exp.total));
    const sd = rec.premium.levies.find((l: any) => l.code === 'SD');
    expect(f.non_refundable).toEqual([
      expect.objectContaining({ code: 'SD', amount_minor: sd.amount_minor, reason: expect.any(String) }),
    ]);
    // Fully paid: nothing open to write off, the whole credit goes to the client.
    expect(f.applied_to_debit_notes).toEqual([]);
    expect(f.refund_to_client_minor).toBe(Number(exp.total));
    expect(f.outstanding_after_minor).toBe(0);
    expect(f.items).toHaveLength(1);
    expect(f.items[0]).toMatchObject({
      regno: rec.vehicles[0].regno,
      annual_basic_premium_minor: rec.premium.basic_premium_minor,
      from: rec.start_date,
      to: rec.end_date,
      unearned_basic_premium_minor: Number(exp.basic),
    });
    expect(Date.parse(preview.expires_at) - Date.parse(preview.created_at)).toBe(72 * 3600_000);
    // A preview changes nothing.
    expect((await get(`/policies/${pol.uuid}`)).body.data.status).toBe('active');
  });

  it('confirms: credit note, refund to the client balance, policy cancelled, totals reconcile, event recorded', async () => {
    const before = await credit(o, pol.client_no);
    const key = randomUUID();
    const r = await post(`/policies/${pol.uuid}/cancellations/${preview.uuid}/confirm`, undefined, o.tokens.staff, key);
    expect(r.status, r.text).toBe(200);
    const d = r.body.data;
    expect(mismatches({ $ref: '#/components/schemas/Cancellation' }, d)).toEqual([]);
    expect(d).toMatchObject({
      status: 'confirmed',
      policy: { status: 'cancelled' },
      credit_note: {
        number: `CN-${pol.policy_no}-1`,
        amount_minor: preview.refund.credit_total_minor,
        applied_minor: 0,
        refunded_minor: preview.refund.credit_total_minor,
      },
    });
    expect(d.refund.refund_to_client_minor).toBe(preview.refund.credit_total_minor);
    expect(d.confirmed_at).toEqual(expect.any(String));
    // Idempotent replay: same bytes, flagged.
    const again = await post(
      `/policies/${pol.uuid}/cancellations/${preview.uuid}/confirm`,
      undefined,
      o.tokens.staff,
      key,
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);

    expect(await credit(o, pol.client_no)).toBe(before + preview.refund.credit_total_minor);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.p.status).toBe('cancelled');
    expect(l.p.revision).toBe(1);
    expect(l.p.totalMinor).toBe(l.dn - l.cn);
    expect(l.p.basicMinor + l.p.taxesMinor).toBe(l.p.totalMinor);
    expect(l.taxLines).toBe(l.p.taxesMinor);
    // What the client pays for the days covered: earned basic and levies plus stamp duty.
    const exp = expectedCredit(BigInt(rec.premium.basic_premium_minor), rec.start_date, rec.end_date, c);
    expect(l.dn - l.cn).toBe(BigInt(rec.premium.total_minor) - exp.total);
    const items = await t.db.tenant(o.org.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policy: { uuid: pol.uuid } } }),
    );
    expect(items.map((i) => [i.toDate.toISOString().slice(0, 10), i.endedByCancellationId != null])).toEqual([
      [addDays(c, -1), true],
    ]);
    const hist = await history(pol.uuid);
    expect(hist.at(-1)).toMatchObject({
      fromStatus: 'active',
      toStatus: 'cancelled',
      source: 'api',
      reason: 'vehicle_sold (requested by insured)',
    });

    const ev = await t.db.tenant(o.org.id, (tx) => tx.event.findMany({ where: { name: 'policy.cancelled' } }));
    const mine = ev.map((e) => e.data as any).filter((x) => x.policy_uuid === pol.uuid);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      policy_no: pol.policy_no,
      client_no: pol.client_no,
      cancellation_uuid: preview.uuid,
      reason: 'vehicle_sold',
      requested_by: 'insured',
      effective_date: c,
      credit_note_no: `CN-${pol.policy_no}-1`,
      credit: { amount_minor: preview.refund.credit_total_minor },
      refund: { amount_minor: preview.refund.credit_total_minor },
    });
    const audit = await t.db.tenant(o.org.id, (tx) =>
      tx.auditLog.findMany({ where: { action: 'policy.cancelled', entityId: pol.uuid } }),
    );
    expect(audit).toHaveLength(1);

    const list = await get(`/policies/${pol.uuid}/cancellations`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((x: any) => [x.uuid, x.status])).toEqual([[preview.uuid, 'confirmed']]);
  });

  it('refuses a second confirmation and a new preview of a cancelled policy (409 invalid_state)', async () => {
    expectProblem(
      await post(`/policies/${pol.uuid}/cancellations/${preview.uuid}/confirm`, undefined),
      409,
      'invalid_state',
    );
    expectProblem(
      await post(`/policies/${pol.uuid}/cancellation`, { reason: 'insured_request', requested_by: 'insured' }),
      409,
      'invalid_state',
    );
    expectProblem(
      await post(`/policies/${pol.uuid}/cancellations/${preview.uuid}/discard`, undefined),
      409,
      'invalid_state',
    );
  });

  it('reinstates within the window: active again, DN − CN = full premium, client credit taken back', async () => {
    const before = await credit(o, pol.client_no);
    const r = await post(`/policies/${pol.uuid}/reinstate`, { note: 'buyer backed out' });
    expect(r.status, r.text).toBe(200);
    expect(mismatches({ $ref: '#/components/schemas/Cancellation' }, r.body.data)).toEqual([]);
    expect(r.body.data).toMatchObject({
      uuid: preview.uuid,
      status: 'reinstated',
      policy: { status: 'active' },
      reinstatement_debit_note: {
        number: `DN-${pol.policy_no}-R1`,
        amount_minor: preview.refund.credit_total_minor,
        credited_minor: preview.refund.credit_total_minor,
      },
    });
    expect(await credit(o, pol.client_no)).toBe(before - preview.refund.credit_total_minor);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.p.status).toBe('active');
    expect(l.p.revision).toBe(2);
    expect(l.dn - l.cn).toBe(BigInt(rec.premium.total_minor));
    expect(l.p.totalMinor).toBe(BigInt(rec.premium.total_minor));
    expect(l.p.basicMinor).toBe(BigInt(rec.premium.basic_premium_minor));
    expect(l.taxLines).toBe(BigInt(rec.premium.taxes_minor));
    // The refund was still on the balance: recovered in full, so nothing is owed.
    expect(l.open).toBe(0n);
    const items = await t.db.tenant(o.org.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policy: { uuid: pol.uuid } } }),
    );
    expect(items.map((i) => [i.toDate.toISOString().slice(0, 10), i.endedByCancellationId])).toEqual([
      [rec.end_date, null],
    ]);
    const hist = await history(pol.uuid);
    expect(hist.at(-1)).toMatchObject({
      fromStatus: 'cancelled',
      toStatus: 'active',
      source: 'reinstatement',
      reason: 'buyer backed out',
    });
    const ev = await t.db.tenant(o.org.id, (tx) => tx.event.findMany({ where: { name: 'policy.reinstated' } }));
    expect(ev.map((e) => e.data as any).filter((x) => x.policy_uuid === pol.uuid)).toEqual([
      expect.objectContaining({
        cancellation_uuid: preview.uuid,
        previous_status: 'cancelled',
        debit_note_no: `DN-${pol.policy_no}-R1`,
      }),
    ]);
    // Reinstating an active policy is refused.
    expectProblem(await post(`/policies/${pol.uuid}/reinstate`, {}), 409, 'invalid_state');
  });

  it('refuses reinstatement outside the window (409 invalid_state naming the window)', async () => {
    const p2 = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'intermediary',
      effective_date: c,
    });
    expect(p2.status, p2.text).toBe(201);
    // Priced on the same item and date: the same figures as the first time.
    expect(p2.body.data.refund.credit_total_minor).toBe(preview.refund.credit_total_minor);
    const cf = await post(`/policies/${pol.uuid}/cancellations/${p2.body.data.uuid}/confirm`, undefined);
    expect(cf.status, cf.text).toBe(200);
    expect(cf.body.data.credit_note.number).toBe(`CN-${pol.policy_no}-2`);
    await t.db.tenant(o.org.id, (tx) =>
      tx.cancellation.update({
        where: { uuid: p2.body.data.uuid },
        data: { confirmedAt: new Date(clockNow().getTime() - 31 * 86_400_000) },
      }),
    );
    const r = await post(`/policies/${pol.uuid}/reinstate`, {});
    expectProblem(r, 409, 'invalid_state');
    expect(r.body.detail).toMatch(/30 days/);
    expect((await get(`/policies/${pol.uuid}`)).body.data.status).toBe('cancelled');
  });
});

describe('cancellation of a 3-instalment policy with only instalment 1 paid', () => {
  it('applies the credit to the open instalments; the client owes exactly earned − paid', async () => {
    const { pol, rec } = await bindPaid(o, 3, 1);
    const c = addDays(TODAY, 200);
    const before = await credit(o, pol.client_no);
    const pre = await ledger(o.org.id, pol.uuid);
    const r = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'non_payment',
      requested_by: 'insurer',
      effective_date: c,
    });
    expect(r.status, r.text).toBe(201);
    const f = r.body.data.refund;
    const exp = expectedCredit(BigInt(rec.premium.basic_premium_minor), rec.start_date, rec.end_date, c);
    expect(f.credit_total_minor).toBe(Number(exp.total));
    expect(r.body.data.registry_reason_id).toBe(21);
    // Oldest due first: instalment 2 (partly paid by the rounding excess of the first receipt), then 3.
    const [, dn2, dn3] = pre.p.debitNotes.sort((a, b) => a.instalmentNo - b.instalmentNo);
    const open2 = dn2.amountMinor - dn2.paidMinor;
    const open3 = dn3.amountMinor - dn3.paidMinor;
    const take2 = exp.total < open2 ? exp.total : open2;
    const take3 = exp.total - take2 < open3 ? exp.total - take2 : open3;
    expect(f.applied_to_debit_notes).toEqual([
      { debit_note_no: dn2.number, amount: Math.round(Number(take2) / 100), amount_minor: Number(take2) },
      ...(take3 > 0n
        ? [{ debit_note_no: dn3.number, amount: Math.round(Number(take3) / 100), amount_minor: Number(take3) }]
        : []),
    ]);
    const refund = exp.total - take2 - take3;
    expect(f.refund_to_client_minor).toBe(Number(refund));
    expect(f.outstanding_after_minor).toBe(Number(open2 + open3 - take2 - take3));
    // Net: what is still owed minus what is refunded = earned premium (plus stamp duty) − paid.
    const owedForDaysCovered = BigInt(rec.premium.total_minor) - exp.total;
    expect(BigInt(f.outstanding_after_minor) - BigInt(f.refund_to_client_minor)).toBe(owedForDaysCovered - pre.paid);

    const cf = await post(`/policies/${pol.uuid}/cancellations/${r.body.data.uuid}/confirm`, undefined);
    expect(cf.status, cf.text).toBe(200);
    expect(cf.body.data.refund.applied_to_debit_notes).toEqual(f.applied_to_debit_notes);
    expect(cf.body.data.refund.outstanding_after_minor).toBe(f.outstanding_after_minor);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.open).toBe(BigInt(f.outstanding_after_minor));
    expect(l.dn - l.cn).toBe(owedForDaysCovered);
    expect(l.p.totalMinor).toBe(l.dn - l.cn);
    expect(await credit(o, pol.client_no)).toBe(before + Number(refund));
  }, 60_000);
});

describe('cancellation on the start date', () => {
  it('refunds every pro-rated part in full and keeps stamp duty', async () => {
    const { pol, rec } = await bindPaid(o);
    // Any date before the start reads as the start.
    const r = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'duplicate_cover',
      requested_by: 'insured',
      effective_date: addDays(TODAY, -5),
    });
    expect(r.status, r.text).toBe(201);
    const f = r.body.data.refund;
    expect(r.body.data.effective_date).toBe(rec.start_date);
    const sd = rec.premium.levies.find((l: any) => l.code === 'SD').amount_minor;
    expect(f.days).toMatchObject({ covered: 0 });
    expect(f.basic_premium_minor).toBe(rec.premium.basic_premium_minor);
    expect(f.taxes_minor).toBe(rec.premium.taxes_minor - sd);
    expect(f.credit_total_minor).toBe(rec.premium.total_minor - sd);
    expect(f.non_refundable.map((x: any) => [x.code, x.amount_minor])).toEqual([['SD', sd]]);
    const cf = await post(`/policies/${pol.uuid}/cancellations/${r.body.data.uuid}/confirm`, undefined);
    expect(cf.status, cf.text).toBe(200);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.dn - l.cn).toBe(BigInt(sd));
    expect(l.p.totalMinor).toBe(BigInt(sd));
    const items = await t.db.tenant(o.org.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policy: { uuid: pol.uuid } } }),
    );
    expect(items[0].toDate.toISOString().slice(0, 10)).toBe(addDays(TODAY, -1));
  }, 60_000);
});

describe('previews: stale, expired, discarded, invalid input, state', () => {
  let pol: any;
  let rec: any;
  beforeAll(async () => {
    ({ pol, rec } = await bindPaid(o));
  }, 60_000);
  const preview = async (body: Record<string, unknown> = {}) => {
    const r = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'insured',
      ...body,
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  };

  it('refuses junk with 422 validation_failed and field paths, changing nothing', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['reason', 'requested_by']],
      [{ reason: 'bored', requested_by: 'insured' }, ['reason']],
      [{ reason: 'stolen', requested_by: 'cousin' }, ['requested_by']],
      [{ reason: 'stolen', requested_by: 'insured', effective_date: '2026-02-30' }, ['effective_date']],
      [{ reason: 'stolen', requested_by: 'insured', effective_date: 'tomorrow' }, ['effective_date']],
      [{ reason: 'stolen', requested_by: 'insured', effective_date: addDays(rec.end_date, 2) }, ['effective_date']],
      [{ reason: 'stolen', requested_by: 'insured', note: 'x'.repeat(501) }, ['note']],
      [{ reason: 7, requested_by: ['insured'] }, ['reason', 'requested_by']],
      // A body that is not an object is refused as such (code not_an_object), before its fields are looked for.
      [[1, 2], ['body']],
      ['text', ['body']],
    ];
    for (const [body, fields] of cases) {
      const r = await post(`/policies/${pol.uuid}/cancellation`, body);
      expectProblem(r, 422, 'validation_failed');
      expect(r.body.errors.map((e: any) => e.field).sort(), JSON.stringify(body)).toEqual(fields);
    }
    expectProblem(
      await post(
        `/policies/${pol.uuid}/cancellation`,
        { reason: 'stolen', requested_by: 'insured' },
        o.tokens.staff,
        '',
      ),
      400,
      'idempotency_key_invalid',
    );
    const r = await o.api.post(`/policies/${pol.uuid}/cancellation`, {
      token: o.tokens.staff,
      body: { reason: 'stolen', requested_by: 'insured' },
    });
    expectProblem(r, 400, 'idempotency_key_required');
    expectProblem(
      await post(`/policies/not-a-uuid/cancellation`, { reason: 'stolen', requested_by: 'insured' }),
      404,
      'not_found',
    );
    expectProblem(
      await post(`/policies/${randomUUID()}/cancellation`, { reason: 'stolen', requested_by: 'insured' }),
      404,
      'not_found',
    );
    expectProblem(await post(`/policies/${pol.uuid}/cancellations/junk/confirm`, undefined), 404, 'not_found');
    expectProblem(
      await post(`/policies/${pol.uuid}/cancellations/${'-'.repeat(36)}/confirm`, undefined),
      404,
      'not_found',
    );
    expectProblem(await post(`/policies/${'-'.repeat(36)}/reinstate`, {}), 404, 'not_found');
    expectProblem(await get(`/policies/${'-'.repeat(36)}/cancellations`), 404, 'not_found');
    expectProblem(
      await post(`/policies/${pol.uuid}/cancellations/${randomUUID()}/confirm`, undefined),
      404,
      'not_found',
    );
    expectProblem(await post(`/policies/${pol.uuid}/reinstate`, { note: 'x'.repeat(501) }), 422, 'validation_failed');
    expectProblem(
      await o.api.post(`/policies/${pol.uuid}/cancellation`, {
        token: o.tokens.readonly,
        idempotencyKey: randomUUID(),
        body: { reason: 'stolen', requested_by: 'insured' },
      }),
      403,
      'insufficient_scope',
    );
    expect((await get(`/policies/${pol.uuid}/cancellations`)).body.data).toEqual([]);
  });

  it('the day after the end is the last date accepted: no refund, no credit note', async () => {
    const p = await preview({ effective_date: addDays(rec.end_date, 1) });
    expect(p.refund).toMatchObject({
      credit_total_minor: 0,
      basic_premium_minor: 0,
      refund_to_client_minor: 0,
      days: { unearned: 0 },
    });
    const d = await post(`/policies/${pol.uuid}/cancellations/${p.uuid}/discard`, undefined);
    expect(d.status, d.text).toBe(200);
    expect(d.body.data.status).toBe('discarded');
  });

  it('discarded and expired previews cannot be confirmed; a stale one neither', async () => {
    const a = await preview();
    const d = await post(`/policies/${pol.uuid}/cancellations/${a.uuid}/discard`, undefined);
    expect(d.status, d.text).toBe(200);
    expectProblem(await post(`/policies/${pol.uuid}/cancellations/${a.uuid}/confirm`, undefined), 409, 'invalid_state');
    expectProblem(await post(`/policies/${pol.uuid}/cancellations/${a.uuid}/discard`, undefined), 409, 'invalid_state');

    const b = await preview();
    await t.db.tenant(o.org.id, (tx) =>
      tx.cancellation.update({ where: { uuid: b.uuid }, data: { expiresAt: new Date(clockNow().getTime() - 1000) } }),
    );
    expectProblem(
      await post(`/policies/${pol.uuid}/cancellations/${b.uuid}/confirm`, undefined),
      409,
      'preview_expired',
    );
    const listed = (await get(`/policies/${pol.uuid}/cancellations`)).body.data;
    expect(listed.find((x: any) => x.uuid === b.uuid).status).toBe('expired');

    const [x, y] = [
      await preview({ effective_date: addDays(TODAY, 10) }),
      await preview({ effective_date: addDays(TODAY, 20) }),
    ];
    const cx = await post(`/policies/${pol.uuid}/cancellations/${x.uuid}/confirm`, undefined);
    expect(cx.status, cx.text).toBe(200);
    expectProblem(await post(`/policies/${pol.uuid}/cancellations/${y.uuid}/confirm`, undefined), 409, 'preview_stale');
    // Reinstated: the policy moved on again (revision 2), so the old preview stays stale.
    expect((await post(`/policies/${pol.uuid}/reinstate`, {})).status).toBe(200);
    expectProblem(await post(`/policies/${pol.uuid}/cancellations/${y.uuid}/confirm`, undefined), 409, 'preview_stale');
    // A cancellation uuid under another policy's path is not found.
    const otherPol = await o.bind(1);
    expectProblem(
      await post(`/policies/${otherPol.uuid}/cancellations/${y.uuid}/discard`, undefined),
      404,
      'not_found',
    );
    // Never paid: pending_payment cannot be cancelled (it becomes not_taken_up by schedule).
    const r = await post(`/policies/${otherPol.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'insured',
    });
    expectProblem(r, 409, 'invalid_state');
    expect(r.body.detail).toMatch(/pending_payment/);
    expectProblem(await post(`/policies/${otherPol.uuid}/reinstate`, {}), 409, 'invalid_state');
  }, 60_000);
});

describe('two confirmations at once', () => {
  it('the policy row lock lets one apply; the other answers 409', async () => {
    const { pol } = await bindPaid(o);
    const mk = async (d: number) =>
      (
        await post(`/policies/${pol.uuid}/cancellation`, {
          reason: 'insured_request',
          requested_by: 'insured',
          effective_date: addDays(TODAY, d),
        })
      ).body.data.uuid;
    const [a, b] = [await mk(10), await mk(20)];
    const rs = await Promise.all(
      [a, b, a].map((u) => post(`/policies/${pol.uuid}/cancellations/${u}/confirm`, undefined)),
    );
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 200))
      expect([r.status, ['preview_stale', 'invalid_state'].includes(r.body.code)], r.text).toEqual([409, true]);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.p.creditNotes).toHaveLength(1);
    expect(l.p.revision).toBe(1);
  }, 60_000);
});

describe('visibility', () => {
  it('another organisation and an agent outside reach get 404 on every endpoint', async () => {
    const { pol } = await bindPaid(o);
    const p = await post(`/policies/${pol.uuid}/cancellation`, { reason: 'insured_request', requested_by: 'insured' });
    expect(p.status, p.text).toBe(201);
    const a2 = o.org.agents[1];
    const asAgent2 = { 'X-Agent-Code': a2.code, 'X-Agent-Key': a2.key };
    const callers: [string, Record<string, string> | undefined][] = [
      [other.tokens.staff, undefined],
      [o.tokens.staff, asAgent2],
      [o.tokens.agent, undefined],
    ];
    for (const [token, headers] of callers) {
      expectProblem(
        await post(
          `/policies/${pol.uuid}/cancellation`,
          { reason: 'insured_request', requested_by: 'insured' },
          token,
          randomUUID(),
          headers,
        ),
        404,
        'not_found',
      );
      expectProblem(await get(`/policies/${pol.uuid}/cancellations`, token, headers), 404, 'not_found');
      expectProblem(
        await post(
          `/policies/${pol.uuid}/cancellations/${p.body.data.uuid}/confirm`,
          undefined,
          token,
          randomUUID(),
          headers,
        ),
        404,
        'not_found',
      );
      expectProblem(
        await post(
          `/policies/${pol.uuid}/cancellations/${p.body.data.uuid}/discard`,
          undefined,
          token,
          randomUUID(),
          headers,
        ),
        404,
        'not_found',
      );
      expectProblem(await post(`/policies/${pol.uuid}/reinstate`, {}, token, randomUUID(), headers), 404, 'not_found');
    }
    // GraphQL too.
    const g = await o.api.gql(
      'mutation($u: String!) { confirmCancellation(uuid: $u) { __typename } }',
      { u: p.body.data.uuid },
      { token: other.tokens.staff },
    );
    expect(g.body.errors?.[0]?.extensions?.code).toBe('not_found');
    expect((await get(`/policies/${pol.uuid}`)).body.data.status).toBe('active');
  }, 60_000);
});

describe('reinstatement after the refund was paid out', () => {
  it('raises a reinstatement debit note owing what could not be taken back from the client credit', async () => {
    const { pol, rec } = await bindPaid(o);
    const r = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'insured',
      effective_date: addDays(TODAY, 30),
    });
    expect(r.status, r.text).toBe(201);
    const cf = await post(`/policies/${pol.uuid}/cancellations/${r.body.data.uuid}/confirm`, undefined);
    expect(cf.status, cf.text).toBe(200);
    const cn = cf.body.data.credit_note.amount_minor as number;
    // The client's whole credit balance was paid out (e.g. by cheque) before they asked to reinstate.
    const bal = await credit(o, pol.client_no);
    const client = await t.db.tenant(o.org.id, (tx) =>
      tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }),
    );
    await t.db.tenant(o.org.id, (tx) =>
      tx.clientCredit.create({
        data: { tenantId: o.org.id, clientId: client.id, amountMinor: BigInt(-bal), reason: 'paid out' },
      }),
    );
    const rs = await post(`/policies/${pol.uuid}/reinstate`, {});
    expect(rs.status, rs.text).toBe(200);
    expect(rs.body.data.reinstatement_debit_note).toMatchObject({ amount_minor: cn, credited_minor: 0 });
    expect(await credit(o, pol.client_no)).toBe(0);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.dn - l.cn).toBe(BigInt(rec.premium.total_minor));
    expect(l.open).toBe(BigInt(cn));
  }, 60_000);
});

describe('reinstatement of a vehicle insured elsewhere since', () => {
  it('is refused with 409 double_insurance, changing nothing', async () => {
    const { pol, rec } = await bindPaid(o);
    const r = await post(`/policies/${pol.uuid}/cancellation`, { reason: 'duplicate_cover', requested_by: 'insured' });
    expect((await post(`/policies/${pol.uuid}/cancellations/${r.body.data.uuid}/confirm`, undefined)).status).toBe(200);
    // The client bought cover for the same car elsewhere (same registration on a new policy).
    const elsewhere = await o.bind(1);
    await t.db.tenant(o.org.id, (tx) =>
      tx.policyVehicle.updateMany({
        where: { policy: { uuid: elsewhere.uuid } },
        data: { regNo: rec.vehicles[0].regno },
      }),
    );
    const before = await ledger(o.org.id, pol.uuid);
    const rs = await post(`/policies/${pol.uuid}/reinstate`, {});
    expectProblem(rs, 409, 'double_insurance');
    expect(rs.body.detail).toContain(elsewhere.policy_no);
    const after = await ledger(o.org.id, pol.uuid);
    expect([after.p.status, after.dn, after.cn]).toEqual(['cancelled', before.dn, before.cn]);
  }, 60_000);
});

describe('after an endorsement', () => {
  it('refuses a date before the latest confirmed endorsement; credits every live item, each term by term', async () => {
    const { pol, rec } = await bindPaid(o);
    const e = addDays(TODAY, 50);
    const en = await post(`/policies/${pol.uuid}/endorse`, {
      operation: 'add_vehicle',
      effective_date: e,
      vehicle: {
        regno: `KDM ${String(100 + (process.pid % 900)).slice(-3)}Q`,
        chassis_no: 'JTD99887766',
        make: 'Mazda',
        model: 'CX-5',
        yom: Number(TODAY.slice(0, 4)) - 3,
        value: 2_000_000,
      },
    });
    expect(en.status, en.text).toBe(201);
    expect((await post(`/policies/${pol.uuid}/endorsements/${en.body.data.uuid}/confirm`, undefined)).status).toBe(200);
    const items = await t.db.tenant(o.org.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policy: { uuid: pol.uuid } }, orderBy: { id: 'asc' } }),
    );
    expect(items).toHaveLength(2);
    // The certificates the job issues for the paid policy, settled before it is cancelled (so the check below has some).
    const certsOf = () =>
      t.db.tenant(o.org.id, (tx) => tx.certificate.findMany({ where: { policy: { uuid: pol.uuid } } }));
    const certsUntil = async (done: (l: Awaited<ReturnType<typeof certsOf>>) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const l = await certsOf();
        if (done(l) || Date.now() > deadline) return l;
        await new Promise((res) => setTimeout(res, 150));
      }
    };
    const issued = (
      await certsUntil((l) => l.some((x) => x.status === 'issued') && !l.some((x) => /pending|issuing/.test(x.status)))
    ).filter((x) => x.status === 'issued');
    expect(issued.length).toBeGreaterThan(0);

    const early = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'insured',
      effective_date: addDays(e, -1),
    });
    expectProblem(early, 422, 'validation_failed');
    expect(early.body.errors[0]).toMatchObject({ field: 'effective_date', message: expect.stringContaining(e) });

    const c = addDays(e, 30);
    const r = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'insured',
      effective_date: c,
    });
    expect(r.status, r.text).toBe(201);
    const f = r.body.data.refund;
    // Term by term: each item's −U(B, c) priced on its own, levies rounded per term.
    const parts = items.map((i) => expectedCredit(i.annualBasicMinor, rec.start_date, rec.end_date, c));
    expect(f.basic_premium_minor).toBe(Number(parts.reduce((s, x) => s + x.basic, 0n)));
    expect(f.credit_total_minor).toBe(Number(parts.reduce((s, x) => s + x.total, 0n)));
    expect(f.items.map((i: any) => i.unearned_basic_premium_minor)).toEqual(parts.map((x) => Number(x.basic)));
    expect(f.items.map((i: any) => i.from)).toEqual([rec.start_date, e]);
    const cf = await post(`/policies/${pol.uuid}/cancellations/${r.body.data.uuid}/confirm`, undefined);
    expect(cf.status, cf.text).toBe(200);
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.p.totalMinor).toBe(l.dn - l.cn);
    // Every certificate the registry issued is cancelled there with the reason's registry id (8, insured_request).
    const after = await certsUntil((l) => issued.every((c) => l.find((x) => x.id === c.id)?.status === 'cancelled'));
    const cancelled = after.filter((x) => issued.some((c) => c.id === x.id));
    expect(cancelled.map((x) => [x.status, x.cancelReasonId])).toEqual(issued.map(() => ['cancelled', 8]));
  }, 60_000);

  it('an agent cancels a policy within their reach', async () => {
    const pol = await o.activePolicy({ token: o.tokens.agent, payInto: 'debit_note' });
    const r = await post(
      `/policies/${pol.uuid}/cancellation`,
      { reason: 'written_off', requested_by: 'intermediary' },
      o.tokens.agent,
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ registry_reason_id: 29, effective_date: TODAY });
    const cf = await post(`/policies/${pol.uuid}/cancellations/${r.body.data.uuid}/confirm`, undefined, o.tokens.agent);
    expect(cf.status, cf.text).toBe(200);
    expect((await get(`/policies/${pol.uuid}/cancellations`, o.tokens.agent)).body.data).toHaveLength(1);
  }, 60_000);
});

describe('GraphQL', () => {
  const FIELDS = `__typename ... on Problem { code status detail } ... on Cancellation { uuid state: status effectiveDate creditNote { number } registryReasonId
    refund { days { inPeriod covered unearned } basicPremium { amountMinor } taxes { amountMinor } creditTotal { amountMinor } refundToClient { amountMinor } outstandingAfter { amountMinor } levies { code amount { amountMinor } } }
    policy { status cancellations { uuid state: status } } }`;

  it('previews, confirms and reinstates with the same figures as REST; problems are typed', async () => {
    const { pol, rec } = await bindPaid(o);
    const c = addMonths(TODAY, 5);
    const rest = await post(`/policies/${pol.uuid}/cancellation`, {
      reason: 'stolen',
      requested_by: 'insured',
      effective_date: c,
    });
    expect(rest.status, rest.text).toBe(201);
    const pv = await o.api.gql(
      `mutation($p: String!, $i: CancellationInput!) { previewCancellation(policyUuid: $p, input: $i) { ${FIELDS} } }`,
      { p: pol.uuid, i: { reason: 'stolen', requestedBy: 'insured', effectiveDate: c } },
      { token: o.tokens.staff },
    );
    expect(pv.body.errors, JSON.stringify(pv.body.errors)).toBeUndefined();
    const g = pv.body.data.previewCancellation;
    expect(g).toMatchObject({
      __typename: 'Cancellation',
      state: 'quoted',
      effectiveDate: c,
      registryReasonId: 30,
      creditNote: null,
    });
    expect(g.refund.creditTotal.amountMinor).toBe(rest.body.data.refund.credit_total_minor);
    expect(g.refund.basicPremium.amountMinor).toBe(rest.body.data.refund.basic_premium_minor);
    expect(g.refund.days).toEqual({
      inPeriod: rest.body.data.refund.days.in_period,
      covered: rest.body.data.refund.days.covered,
      unearned: rest.body.data.refund.days.unearned,
    });
    const exp = expectedCredit(BigInt(rec.premium.basic_premium_minor), rec.start_date, rec.end_date, c);
    expect(g.refund.creditTotal.amountMinor).toBe(Number(exp.total));

    const bad = await o.api.gql(
      `mutation($p: String!, $i: CancellationInput!) { previewCancellation(policyUuid: $p, input: $i) { ${FIELDS} ... on ValidationProblem { fieldErrors { field } } } }`,
      { p: pol.uuid, i: { reason: 'nope', requestedBy: 'insured' } },
      { token: o.tokens.staff },
    );
    expect(bad.body.data.previewCancellation).toMatchObject({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.reason' }],
    });

    const cf = await o.api.gql(
      `mutation($u: String!) { confirmCancellation(uuid: $u) { ${FIELDS} } }`,
      { u: g.uuid },
      { token: o.tokens.staff },
    );
    expect(cf.body.errors, JSON.stringify(cf.body.errors)).toBeUndefined();
    expect(cf.body.data.confirmCancellation).toMatchObject({
      state: 'confirmed',
      creditNote: { number: `CN-${pol.policy_no}-1` },
      policy: { status: 'cancelled' },
    });
    // The REST preview was priced on the old revision.
    const stale = await o.api.gql(
      `mutation($u: String!) { confirmCancellation(uuid: $u) { ${FIELDS} } }`,
      { u: rest.body.data.uuid },
      { token: o.tokens.staff },
    );
    expect(stale.body.data.confirmCancellation).toMatchObject({
      __typename: 'PreviewStaleProblem',
      code: 'preview_stale',
      status: 409,
    });

    const rs = await o.api.gql(
      `mutation($p: String!) { reinstatePolicy(policyUuid: $p, note: "error") { ${FIELDS} } }`,
      { p: pol.uuid },
      { token: o.tokens.staff },
    );
    expect(rs.body.errors, JSON.stringify(rs.body.errors)).toBeUndefined();
    expect(rs.body.data.reinstatePolicy).toMatchObject({
      uuid: g.uuid,
      state: 'reinstated',
      policy: { status: 'active' },
    });
    // The policy's cancellations are the ones that took effect; the quoted REST preview is listed with all: true.
    expect(rs.body.data.reinstatePolicy.policy.cancellations.map((x: any) => x.uuid)).toEqual([g.uuid]);
    const all = await o.api.gql(
      `query($u: String!) { policy(uuid: $u) { cancellations(all: true) { uuid } } }`,
      { u: pol.uuid },
      { token: o.tokens.staff },
    );
    expect(all.body.data.policy.cancellations.map((x: any) => x.uuid)).toEqual([g.uuid, rest.body.data.uuid]);
    const again = await o.api.gql(
      `mutation($p: String!) { reinstatePolicy(policyUuid: $p) { ${FIELDS} } }`,
      { p: pol.uuid },
      { token: o.tokens.staff },
    );
    expect(again.body.data.reinstatePolicy).toMatchObject({ __typename: 'InvalidStateProblem', code: 'invalid_state' });
    const l = await ledger(o.org.id, pol.uuid);
    expect(l.dn - l.cn).toBe(BigInt(rec.premium.total_minor));
  }, 60_000);
});
