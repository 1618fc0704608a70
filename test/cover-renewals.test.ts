import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  activeCoverPolicy,
  type CoverPolicy,
  expectProblem,
  INSTANT_RAIL,
  oracleLevies,
  TODAY,
  useKit,
  waitFor,
} from './kit.ts';
import { flatTotal, type OracleLevy, percentOf, plusDays as plus } from './helpers/money-oracle.ts';

/**
 * Renewal of medical and standard policies (docs/covers.md "Non-motor policies"): the insured on cover priced again by
 * their line on the policy's cover product at current rates (members' ages carried on to the new start), bound into
 * a new policy that holds them; a single trip is not renewed. The levies are checked against the naive oracle
 * (test/helpers/money-oracle.ts): each premium item levied on its own, flat duties once.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
let table: OracleLevy[];
beforeAll(async () => {
  table = await oracleLevies(o);
});

const post = (path: string, body: unknown, token = o.tokens.staff) =>
  o.api.post(path, { token, body, idempotencyKey: randomUUID() });

/** Σ basics, each percent levy item by item, flat duties once: the total a new period of these items costs. */
function expectedTotal(basics: bigint[]): bigint {
  const percent = table
    .filter((l) => l.basis === 'percent')
    .reduce((s, l) => s + basics.reduce((x, b) => x + percentOf(b, l.rateBps ?? 0), 0n), 0n);
  return basics.reduce((s, b) => s + b, 0n) + percent + flatTotal(table);
}

describe('a family medical policy renewed', () => {
  let med: CoverPolicy;
  let q: any;

  beforeAll(async () => {
    med = await activeCoverPolicy(o, 'medical');
  }, 60_000);

  it('quotes the next year: each member priced at their age on the new start, levied item by item', async () => {
    expectProblem(
      await post(`/policies/${med.uuid}/renewal-quote`, { vehicles: [{ regno: 'KDA 123A', value: 1_000 }] }),
      422,
      'validation_failed',
      'vehicles',
    );
    const r = await post(`/policies/${med.uuid}/renewal-quote`, {});
    expect(r.status, r.text).toBe(201);
    q = r.body.data;
    const start = plus(med.endDate, 1);
    expect(q).toMatchObject({ status: 'quoted', start_date: start, vehicles: [], cover_premium: null });
    // Ages on 2027-06-15, from the dates of birth (1986-03-02, 1988-09-30, 2017-01-15), worked out by hand.
    expect(start).toBe('2027-06-15');
    expect(q.insured.map((i: any) => [i.id, i.name, i.age])).toEqual([
      [med.risks[0].id, 'Amina Wanjiru', 41],
      [med.risks[1].id, 'Otieno Wanjiru', 38],
      [med.risks[2].id, 'Neema Wanjiru', 10],
    ]);
    expect(q.insured.map((i: any) => i.previous_annual_basic_minor)).toEqual(
      med.risks.map((r) => Number(r.annualBasicMinor)),
    );
    const basics = q.insured.map((i: any) => BigInt(i.renewal_annual_basic_minor));
    expect(basics.every((b: bigint) => b > 0n)).toBe(true);
    expect(q.renewal.basic_premium_minor).toBe(Number(basics.reduce((s: bigint, b: bigint) => s + b, 0n)));
    expect(q.renewal.total_minor).toBe(Number(expectedTotal(basics)));
    expect(q.previous.total_minor).toBe(Number(med.totalMinor));
  });

  it('binds it into a new medical policy holding the members at their new ages; paid, the old one is renewed', async () => {
    const r = await post(`/policies/${med.uuid}/renew`, {
      renewal_quote_uuid: q.uuid,
      premium: q.renewal.total,
      premium_instalments: 1,
    });
    expect(r.status, r.text).toBe(201);
    const next = r.body.data;
    expect(next).toMatchObject({
      policy_no: expect.stringMatching(/^MED-/),
      status: 'pending_payment',
      product_line: 'medical',
      class: null,
      start_date: q.start_date,
      renewal_of: { uuid: med.uuid },
      product: { id: med.productId, code: 'MEDICAL' },
      cover: { cover_type: 'family' },
      vehicles: [],
    });
    expect(next.premium.total_minor).toBe(q.renewal.total_minor);
    expect(next.insured.map((i: any) => [i.name, i.relationship, i.age, i.status, i.added_on])).toEqual([
      ['Amina Wanjiru', 'principal', 41, 'active', q.start_date],
      ['Otieno Wanjiru', 'spouse', 38, 'active', q.start_date],
      ['Neema Wanjiru', 'child', 10, 'active', q.start_date],
    ]);
    const items = await t.db.tenant(o.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policy: { uuid: next.uuid } }, orderBy: { id: 'asc' } }),
    );
    expect(items.map((i) => i.annualBasicMinor)).toEqual(
      q.insured.map((i: any) => BigInt(i.renewal_annual_basic_minor)),
    );
    expect(items.every((i) => i.riskId != null && i.vehicleId == null)).toBe(true);
    await o.pay(next.debit_notes[0].number, BigInt(next.debit_notes[0].amount_minor));
    await waitFor(
      'the expiring policy to be renewed',
      () => o.policy(med.uuid),
      (p) => p.status === 'renewed',
    );
    expectProblem(await post(`/policies/${med.uuid}/renewal-quote`, {}), 409, 'invalid_state');
  }, 60_000);

  it('another organisation cannot quote or bind it (404)', async () => {
    expectProblem(await post(`/policies/${med.uuid}/renewal-quote`, {}, other.tokens.staff), 404, 'not_found');
    expectProblem(
      await post(`/policies/${med.uuid}/renew`, { renewal_quote_uuid: q.uuid, premium: 1 }, other.tokens.staff),
      404,
      'not_found',
    );
  });
});

describe('a domestic package renewed', () => {
  it('prices the cover as a whole again and carries its items over', async () => {
    const std = await activeCoverPolicy(o, 'standard');
    const r = await post(`/policies/${std.uuid}/renewal-quote`, {});
    expect(r.status, r.text).toBe(201);
    const q = r.body.data;
    expect(q.cover_premium).toMatchObject({ previous_annual_basic_minor: Number(std.policyPremiumMinor) });
    const basic = BigInt(q.cover_premium.renewal_annual_basic_minor);
    expect(q.renewal.total_minor).toBe(Number(expectedTotal([basic])));
    expect(q.insured.map((i: any) => [i.name, i.sum_insured, i.renewal_annual_basic])).toEqual([
      ['Household contents', 2_000_000, null],
      ['Portable electronics', 450_000, null],
    ]);
    const b = await post(`/policies/${std.uuid}/renew`, { renewal_quote_uuid: q.uuid, premium: q.renewal.total });
    expect(b.status, b.text).toBe(201);
    expect(b.body.data).toMatchObject({ policy_no: expect.stringMatching(/^STD-/), product: { code: 'DOMESTIC' } });
    expect(b.body.data.insured.map((i: any) => i.sum_insured)).toEqual([2_000_000, 450_000]);
    const items = await t.db.tenant(o.id, (tx) =>
      tx.policyPremiumItem.findMany({ where: { policy: { uuid: b.body.data.uuid } } }),
    );
    expect(items.map((i) => [i.riskId, i.vehicleId, i.annualBasicMinor])).toEqual([[null, null, basic]]);
  }, 60_000);
});

describe('a single trip', () => {
  it('is not renewed (422 domain_rule) and is never listed as due for renewal', async () => {
    const trv = await activeCoverPolicy(o, 'travel', { startDate: plus(TODAY, -2), endDate: plus(TODAY, 12) });
    const r = await post(`/policies/${trv.uuid}/renewal-quote`, {});
    expectProblem(r, 422, 'domain_rule');
    expect(r.body.detail).toMatch(/single trips are not renewed/);
    // The positive control: a medical policy ending as soon is listed.
    const med = await activeCoverPolicy(o, 'medical', { endDate: plus(TODAY, 12) });
    const due = await o.as('staff').get('/policies/renewals-due?within_days=30&limit=100');
    expect(due.status, due.text).toBe(200);
    const uuids = due.body.data.map((p: any) => p.uuid);
    expect(uuids).toContain(med.uuid);
    expect(uuids).not.toContain(trv.uuid);
  }, 60_000);
});
