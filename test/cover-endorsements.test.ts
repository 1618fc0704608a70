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
  plusDays as plus,
  priceOf,
  sumMoney,
} from './helpers/money-oracle.ts';

/**
 * Endorsements of non-motor policies (docs/covers.md "Non-motor policies"): add_member and remove_member on medical cover,
 * change_sum_insured on a standard product, each priced pro rata like the vehicle operations; operations of another
 * line refused. The annual premiums come from the line's rating on the policy's product (whatever its figures); the
 * money around them is checked against the naive oracle (test/helpers/money-oracle.ts), never the code under test.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
let table: OracleLevy[];
beforeAll(async () => {
  table = await oracleLevies(o);
});

const post = (path: string, body?: unknown, token = o.tokens.staff) =>
  o.api.post(path, { token, body, idempotencyKey: randomUUID() });
const endorse = (p: { uuid: string }, body: Record<string, unknown>) => post(`/policies/${p.uuid}/endorse`, body);
async function confirm(p: { uuid: string }, body: Record<string, unknown>) {
  const r = await endorse(p, body);
  expect(r.status, r.text).toBe(201);
  const c = await post(`/policies/${p.uuid}/endorsements/${r.body.data.uuid}/confirm`);
  expect(c.status, c.text).toBe(200);
  return c.body.data;
}
const periodOf = (p: CoverPolicy): OraclePeriod => ({ start: p.startDate, end: p.endDate });

const ledger = (uuid: string) => noteTotals(o, uuid);

describe('a family medical policy: a child added, the spouse removed, then cancelled', () => {
  let med: CoverPolicy;
  const e1 = plus(TODAY, 30);
  const e2 = plus(TODAY, 61);
  const c = plus(TODAY, 200);
  let childBasic: bigint;

  beforeAll(async () => {
    med = await activeCoverPolicy(o, 'medical');
  }, 60_000);

  it('add_member: the new member priced by the medical line on the policy’s product, pro rata from the effective date', async () => {
    const r = await endorse(med, {
      operation: 'add_member',
      effective_date: e1,
      member: { name: 'Baraka Wanjiru', relationship: 'child', date_of_birth: '2021-04-10' },
      note: 'newborn’s sibling',
    });
    expect(r.status, r.text).toBe(201);
    const d = r.body.data;
    expect(d).toMatchObject({ operation: 'add_member', status: 'pending', effective_date: e1 });
    expect(d.changes.member).toMatchObject({ name: 'Baraka Wanjiru', relationship: 'child', age: 5 });
    expect(d.items).toHaveLength(1);
    expect(d.items[0]).toMatchObject({ regno: null, insured: 'Baraka Wanjiru', annual_basic_before_minor: null });
    childBasic = BigInt(d.items[0].annual_basic_after_minor);
    expect(childBasic).toBeGreaterThan(0n);
    const exp = priceOf(periodOf(med), [{ annualBasicMinor: childBasic, at: e1, sign: 1 }], table);
    expect(d.premium_effect.basic_premium_minor).toBe(Number(exp.basicMinor));
    expect(d.premium_effect.total_minor).toBe(Number(exp.totalMinor));
    const done = await post(`/policies/${med.uuid}/endorsements/${d.uuid}/confirm`);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.note).toMatchObject({ kind: 'debit', amount_minor: Number(exp.totalMinor) });
    const rec = await o.policy(med.uuid);
    expect(rec.insured).toHaveLength(4);
    expect(rec.insured[3]).toMatchObject({
      kind: 'member',
      name: 'Baraka Wanjiru',
      relationship: 'child',
      age: 5,
      date_of_birth: '2021-04-10',
      status: 'active',
      added_on: e1,
      removed_on: null,
    });
  });

  it('remove_member: the spouse’s unearned premium credited from the effective date', async () => {
    const spouse = med.risks[1];
    const d = await confirm(med, { operation: 'remove_member', insured_id: spouse.id, effective_date: e2 });
    const exp = priceOf(periodOf(med), [{ annualBasicMinor: spouse.annualBasicMinor!, at: e2, sign: -1 }], table);
    expect(d.items).toEqual([
      expect.objectContaining({
        insured: spouse.name,
        annual_basic_before_minor: Number(spouse.annualBasicMinor),
        annual_basic_after_minor: null,
      }),
    ]);
    expect(d.premium_effect.total_minor).toBe(Number(exp.totalMinor));
    expect(d.note).toMatchObject({ kind: 'credit', amount_minor: -Number(exp.totalMinor) });
    const rec = await o.policy(med.uuid);
    expect(rec.insured[1]).toMatchObject({ name: spouse.name, status: 'removed', removed_on: e2 });
    const l = await ledger(med.uuid);
    expect(l.p.totalMinor).toBe(l.dn - l.cn);
  });

  it('refuses what does not fit the family or the line (422 domain_rule) and bad input (422 on the field)', async () => {
    const principal = med.risks[0];
    const vehicle = { regno: 'KDE 901Z', chassis_no: 'X1', make: 'Toyota', model: 'Axio', yom: 2022, value: 900_000 };
    const refused: [Record<string, unknown>, string, string?][] = [
      [{ operation: 'remove_member', insured_id: principal.id }, 'domain_rule'],
      [{ operation: 'add_member', member: { name: 'Second', relationship: 'principal', age: 45 } }, 'domain_rule'],
      [{ operation: 'add_member', member: { name: 'Wrong Kind', relationship: 'employee', age: 30 } }, 'domain_rule'],
      [{ operation: 'add_vehicle', vehicle }, 'domain_rule'],
      [{ operation: 'remove_vehicle', regno: 'KDE 901Z' }, 'domain_rule'],
      [{ operation: 'change_sum_insured', insured_id: principal.id, sum_insured: 1_000 }, 'domain_rule'],
      [{ operation: 'add_member' }, 'validation_failed', 'member'],
      [
        { operation: 'add_member', member: { name: 'No Age', relationship: 'child' } },
        'validation_failed',
        'member.date_of_birth',
      ],
      [{ operation: 'remove_member' }, 'validation_failed', 'insured_id'],
      // The spouse is no longer on cover: an insured not on cover is refused the same way as a stranger.
      [{ operation: 'remove_member', insured_id: med.risks[1].id }, 'validation_failed', 'insured_id'],
    ];
    for (const [body, code, field] of refused)
      expectProblem(await endorse(med, { ...body, effective_date: e2 }), 422, code, field);
  });

  it('another organisation and an agent out of reach cannot endorse it (404)', async () => {
    const body = { operation: 'remove_member', insured_id: med.risks[2].id };
    expectProblem(await post(`/policies/${med.uuid}/endorse`, body, other.tokens.staff), 404, 'not_found');
    expectProblem(
      await o.as('staff', { agent: 2 }).post(`/policies/${med.uuid}/endorse`, { body, idempotencyKey: randomUUID() }),
      404,
      'not_found',
    );
  });

  it('cancelled: Σ debit notes − Σ credit notes is what every member’s days on cover earn, plus the flat duties', async () => {
    await o.cancel(med.uuid, { effective_date: c });
    const p = periodOf(med);
    const span = (b: bigint, from: string, to: string) => earnedOver(p, { annualBasicMinor: b, from, to }, table);
    const earned = sumMoney([
      span(med.risks[0].annualBasicMinor!, med.startDate, plus(c, -1)),
      span(med.risks[1].annualBasicMinor!, med.startDate, plus(e2, -1)),
      span(med.risks[2].annualBasicMinor!, med.startDate, plus(c, -1)),
      span(childBasic, e1, plus(c, -1)),
    ]);
    const l = await ledger(med.uuid);
    expect(l.dn - l.cn).toBe(earned.totalMinor + flatTotal(table));
    expect(l.p.totalMinor).toBe(l.dn - l.cn);
  });
});

describe('GraphQL: add_member through endorsePolicy', () => {
  it('takes the member input and shows the insured on the endorsement’s items', async () => {
    const med = await activeCoverPolicy(o, 'medical');
    const r = await o.as('staff').gql(
      `mutation ($u: String!, $i: EndorsePolicyInput!) {
        endorsePolicy(policyUuid: $u, input: $i) {
          __typename
          ... on Endorsement { operation items { regNo insured annualBasicAfter { amountMinor } } }
          ... on Problem { code detail }
        }
      }`,
      {
        u: med.uuid,
        i: { operation: 'add_member', member: { name: 'Imani Wanjiru', relationship: 'child', age: 3 } },
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.endorsePolicy).toMatchObject({
      __typename: 'Endorsement',
      operation: 'add_member',
      items: [{ regNo: null, insured: 'Imani Wanjiru', annualBasicAfter: { amountMinor: expect.any(Number) } }],
    });
  }, 60_000);
});

describe('a domestic package: a new sum insured for its household contents, then cancelled', () => {
  it('re-prices the whole cover and pro-rates the change of its premium; reconciles after a cancellation', async () => {
    const std = await activeCoverPolicy(o, 'standard');
    const contents = std.risks[0];
    const e = plus(TODAY, 40);
    const d = await confirm(std, {
      operation: 'change_sum_insured',
      insured_id: contents.id,
      sum_insured: 3_000_000,
      effective_date: e,
    });
    expect(d.changes).toMatchObject({
      insured_id: contents.id,
      sum_insured: 3_000_000,
      sum_insured_minor: 300_000_000,
      previous_sum_insured_minor: Number(contents.sumInsuredMinor),
    });
    // Priced as a whole: one item, the policy's premium before (the bind's) and after (the line's new price).
    expect(d.items).toHaveLength(1);
    expect(d.items[0]).toMatchObject({
      regno: null,
      insured: null,
      annual_basic_before_minor: Number(std.policyPremiumMinor),
    });
    const after = BigInt(d.items[0].annual_basic_after_minor);
    const exp = priceOf(
      periodOf(std),
      [
        { annualBasicMinor: after, at: e, sign: 1 },
        { annualBasicMinor: std.policyPremiumMinor!, at: e, sign: -1 },
      ],
      table,
    );
    expect(d.premium_effect.total_minor).toBe(Number(exp.totalMinor));
    const rec = await o.policy(std.uuid);
    expect(rec.insured[0]).toMatchObject({ sum_insured: 3_000_000, sum_insured_minor: 300_000_000 });
    expectProblem(
      await endorse(std, { operation: 'add_member', member: { name: 'X', relationship: 'child', age: 3 } }),
      422,
      'domain_rule',
    );
    expectProblem(
      await endorse(std, { operation: 'change_sum_insured', insured_id: contents.id, sum_insured: 0 }),
      422,
      'validation_failed',
      'sum_insured',
    );
    const c = plus(TODAY, 150);
    await o.cancel(std.uuid, { effective_date: c });
    const p = periodOf(std);
    const earned = sumMoney([
      earnedOver(p, { annualBasicMinor: std.policyPremiumMinor!, from: std.startDate, to: plus(e, -1) }, table),
      earnedOver(p, { annualBasicMinor: after, from: e, to: plus(c, -1) }, table),
    ]);
    const l = await ledger(std.uuid);
    expect(l.dn - l.cn).toBe(earned.totalMinor + flatTotal(table));
  }, 60_000);
});

describe('a trip and a motor policy', () => {
  it('a trip takes no member or sum insured changes, only its general details; a motor policy no member', async () => {
    const trv = await activeCoverPolicy(o, 'travel', { startDate: TODAY });
    expectProblem(
      await endorse(trv, { operation: 'add_member', member: { name: 'Y', relationship: 'child', age: 4 } }),
      422,
      'domain_rule',
    );
    expectProblem(await endorse(trv, { operation: 'remove_member', insured_id: trv.risks[0].id }), 422, 'domain_rule');
    expectProblem(
      await endorse(trv, { operation: 'change_details', regno: 'KDA 123A', details: { make: 'Mazda' } }),
      422,
      'domain_rule',
    );
    const d = await confirm(trv, {
      operation: 'change_details',
      limits_of_liability: { medical_expenses: 'EUR 30,000' },
    });
    expect(d).toMatchObject({ operation: 'change_details', status: 'confirmed', note: null, items: [] });
    const motor = await o.activePolicy();
    expectProblem(
      await endorse(motor, { operation: 'add_member', member: { name: 'Z', relationship: 'child', age: 4 } }),
      422,
      'domain_rule',
    );
  }, 60_000);
});
