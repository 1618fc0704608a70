import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  activeCoverPolicy,
  type CoverPolicy,
  expectProblem,
  INSTANT_RAIL,
  noteTotals,
  oracleLevies,
  TODAY,
  useKit,
} from './kit.ts';
import {
  earnedOver,
  flatTotal,
  type OracleLevy,
  type OraclePeriod,
  priceOf,
  plusDays as plus,
  sumMoney,
} from './helpers/money-oracle.ts';

/**
 * Cancelling (and reinstating) a medical, a travel and a standard policy (docs/covers.md "Non-motor policies"): the refund
 * is itemised by insured person, traveller or the policy as a whole, and reconciles to the cent against the naive
 * oracle (test/helpers/money-oracle.ts), never the code under test: Σ debit notes − Σ credit notes = what the days
 * covered earn plus the flat duties.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
let table: OracleLevy[];
beforeAll(async () => {
  table = await oracleLevies(o);
});

const dayBefore = (ymd: string) => plus(ymd, -1);
const post = (path: string, body?: unknown, token = o.tokens.staff) =>
  o.api.post(path, { token, body, idempotencyKey: randomUUID() });

/** The annual basic premiums of the policy's premium items, as the fixture priced them. */
const itemBasics = (p: CoverPolicy): bigint[] =>
  p.policyPremiumMinor != null ? [p.policyPremiumMinor] : p.risks.map((r) => r.annualBasicMinor!);

/** The oracle's credit for cancelling at c every item on cover for the whole period. */
function expectedCredit(p: CoverPolicy, c: string) {
  const period: OraclePeriod = { start: p.startDate, end: p.endDate };
  return priceOf(
    period,
    itemBasics(p).map((b) => ({ annualBasicMinor: b, at: c, sign: 1 as const })),
    table,
  );
}

/** What the policy still charges after a cancellation at c: each item's earnings up to c − 1, plus the flat duties. */
function expectedKept(p: CoverPolicy, c: string): bigint {
  const period: OraclePeriod = { start: p.startDate, end: p.endDate };
  if (c <= p.startDate) return flatTotal(table);
  const earned = sumMoney(
    itemBasics(p).map((b) => earnedOver(period, { annualBasicMinor: b, from: p.startDate, to: dayBefore(c) }, table)),
  );
  return earned.totalMinor + flatTotal(table);
}

async function ledger(uuid: string) {
  const totals = await noteTotals(o, uuid);
  const certificates = await t.db.tenant(o.id, (tx) => tx.certificate.count({ where: { policyId: totals.p.id } }));
  return { ...totals, certificates };
}

async function previewAndConfirm(p: CoverPolicy, body: Record<string, unknown>) {
  const preview = await post(`/policies/${p.uuid}/cancellation`, {
    reason: 'insured_request',
    requested_by: 'insured',
    ...body,
  });
  expect(preview.status, preview.text).toBe(201);
  const confirm = await post(`/policies/${p.uuid}/cancellations/${preview.body.data.uuid}/confirm`);
  expect(confirm.status, confirm.text).toBe(200);
  return { preview: preview.body.data, confirmed: confirm.body.data };
}

describe('a family medical policy cancelled mid-term, then reinstated', () => {
  let med: CoverPolicy;
  const c = plus(TODAY, 100);
  let preview: any;

  beforeAll(async () => {
    med = await activeCoverPolicy(o, 'medical');
  }, 60_000);

  it('refuses a vehicle reason (422 on reason); another organisation and an agent out of reach get 404', async () => {
    expectProblem(
      await post(`/policies/${med.uuid}/cancellation`, { reason: 'vehicle_sold', requested_by: 'insured' }),
      422,
      'validation_failed',
      'reason',
    );
    expectProblem(
      await other.api.post(`/policies/${med.uuid}/cancellation`, {
        token: other.tokens.staff,
        body: { reason: 'insured_request', requested_by: 'insured' },
        idempotencyKey: randomUUID(),
      }),
      404,
      'not_found',
    );
    expectProblem(
      await o.as('staff', { agent: 2 }).post(`/policies/${med.uuid}/cancellation`, {
        body: { reason: 'insured_request', requested_by: 'insured' },
        idempotencyKey: randomUUID(),
      }),
      404,
      'not_found',
    );
  });

  it('itemises the refund by member and reconciles to the cent', async () => {
    const done = await previewAndConfirm(med, { effective_date: c });
    preview = done.preview;
    const exp = expectedCredit(med, c);
    expect(preview.refund.basic_premium_minor).toBe(Number(exp.basicMinor));
    expect(preview.refund.credit_total_minor).toBe(Number(exp.totalMinor));
    expect(preview.refund.levies.map((l: any) => [l.code, l.amount_minor]).sort()).toEqual(
      Object.entries(exp.levies)
        .map(([code, v]) => [code, Number(v)])
        .sort(),
    );
    expect(preview.registry_reason_id).toBeNull();
    expect(preview.refund.items.map((i: any) => [i.regno, i.insured, i.annual_basic_premium_minor])).toEqual(
      med.risks.map((r) => [null, r.name, Number(r.annualBasicMinor)]),
    );
    expect(done.confirmed).toMatchObject({ status: 'confirmed', policy: { status: 'cancelled' } });
    expect(done.confirmed.credit_note.amount_minor).toBe(Number(exp.totalMinor));
    const l = await ledger(med.uuid);
    expect(l.dn - l.cn).toBe(expectedKept(med, c));
    expect(l.p.totalMinor).toBe(l.dn - l.cn);
    // No registry certificates: nothing was issued, nothing to cancel.
    expect(l.certificates).toBe(0);
  });

  it('reinstates: active again, the members’ cover restored, Σ debit notes − Σ credit notes the full premium', async () => {
    const r = await post(`/policies/${med.uuid}/reinstate`, { note: 'changed their mind' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'reinstated', policy: { status: 'active' } });
    const l = await ledger(med.uuid);
    expect(l.dn - l.cn).toBe(med.totalMinor);
    const items = await t.db.tenant(o.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policyId: med.id }, orderBy: { id: 'asc' } }),
    );
    expect(items.map((i) => [i.riskId, i.toDate.toISOString().slice(0, 10), i.endedByCancellationId])).toEqual(
      med.risks.map((r) => [r.id, med.endDate, null]),
    );
  });
});

describe('a trip cancelled before departure', () => {
  it('refunds the whole basic premium and its levies; only the flat duties stay', async () => {
    const trv = await activeCoverPolicy(o, 'travel');
    const { preview, confirmed } = await previewAndConfirm(trv, {});
    // Today is before departure: the cancellation takes effect from the start of the trip.
    expect(preview.effective_date).toBe(trv.startDate);
    const exp = expectedCredit(trv, trv.startDate);
    expect(exp.basicMinor).toBe(trv.basicMinor);
    expect(confirmed.refund.credit_total_minor).toBe(Number(exp.totalMinor));
    expect(confirmed.refund.items.map((i: any) => i.insured)).toEqual(['Grace Achieng', 'Brian Achieng']);
    expect(confirmed.refund.refund_to_client_minor).toBe(Number(exp.totalMinor));
    const l = await ledger(trv.uuid);
    expect(l.dn - l.cn).toBe(flatTotal(table));
  }, 60_000);
});

describe('a domestic package in two instalments, the second unpaid, cancelled mid-term', () => {
  it('credits the policy-level premium item, writes off the open instalment first, and reconciles', async () => {
    const std = await activeCoverPolicy(o, 'standard', { instalments: 2 });
    const c = plus(TODAY, 45);
    const { preview, confirmed } = await previewAndConfirm(std, {
      effective_date: c,
      requested_by: 'insurer',
      reason: 'insurer_request',
    });
    const exp = expectedCredit(std, c);
    expect(preview.refund.items).toEqual([
      expect.objectContaining({
        regno: null,
        insured: null,
        annual_basic_premium_minor: Number(std.policyPremiumMinor),
      }),
    ]);
    expect(confirmed.refund.credit_total_minor).toBe(Number(exp.totalMinor));
    const second = std.debitNotes[1];
    const applied = exp.totalMinor < second.amountMinor ? exp.totalMinor : second.amountMinor;
    expect(confirmed.refund.applied_to_debit_notes).toEqual([
      expect.objectContaining({ debit_note_no: second.number, amount_minor: Number(applied) }),
    ]);
    expect(confirmed.refund.refund_to_client_minor).toBe(Number(exp.totalMinor - applied));
    expect(confirmed.refund.outstanding_after_minor).toBe(Number(second.amountMinor - applied));
    const l = await ledger(std.uuid);
    expect(l.dn - l.cn).toBe(expectedKept(std, c));
  }, 60_000);
});
