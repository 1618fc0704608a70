import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  activeCoverPolicy,
  clientHeaders,
  type CoverPolicy,
  expectProblem,
  INSTANT_RAIL,
  signIn,
  TODAY,
  useKit,
  withClock,
} from './kit.ts';
import { plusDays as plus } from './helpers/money-oracle.ts';

/**
 * Claims on medical, travel and standard policies (docs/covers.md "Non-motor policies"): a claim names the insured person,
 * traveller or item (the policy record's insured[].id) on cover on the loss date, uses its line's causes and their
 * document checklists, and carries no vehicle. Motor claims are unchanged (claims.test.ts).
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const post = (path: string, body: unknown, token = o.tokens.staff) =>
  o.api.post(path, { token, body, idempotencyKey: randomUUID() });
const notice = (p: { uuid: string }, extra: Record<string, unknown>) => ({
  policy_uuid: p.uuid,
  loss_date: TODAY,
  loss_time: '08:15',
  loss_place: 'Nairobi',
  description: 'First notice of loss',
  ...extra,
});
/** The organisation's cause row (its data: the reserve rule and checklist a registration must follow). */
const causeRow = (productLine: string, code: string) =>
  t.db.tenant(o.id, (tx) => tx.claimCause.findFirstOrThrow({ where: { productLine, code } }));

let med: CoverPolicy;
let std: CoverPolicy;
beforeAll(async () => {
  [med, std] = await Promise.all([activeCoverPolicy(o, 'medical'), activeCoverPolicy(o, 'standard')]);
}, 60_000);

describe('the causes of each line', () => {
  it('lists a sensible set per line, each with its checklist', async () => {
    const codes = async (line: string) => {
      const r = await o.as('staff').get(`/claims/causes?product_line=${line}`);
      expect(r.status, r.text).toBe(200);
      return r.body.data.map((c: any) => c.code);
    };
    expect(await codes('medical')).toEqual(['inpatient', 'outpatient', 'maternity', 'dental', 'optical']);
    expect(await codes('travel')).toEqual(['medical_emergency', 'baggage', 'trip_cancellation', 'personal_accident']);
    expect(await codes('standard')).toEqual([
      'personal_accident',
      'fire_perils',
      'burglary',
      'accidental_damage',
      'work_injury',
    ]);
  });
});

describe('a medical claim', () => {
  it('names the member, opens its cause’s checklist, carries no vehicle', async () => {
    const principal = med.risks[0];
    const r = await post('/claims', notice(med, { cause: 'maternity', insured_id: principal.id }));
    expect(r.status, r.text).toBe(201);
    const c = r.body.data;
    const cause = await causeRow('medical', 'maternity');
    expect(c).toMatchObject({
      product_line: 'medical',
      cause: 'maternity',
      registration: null,
      insured: { id: principal.id, kind: 'member', name: principal.name },
      sum_insured: null,
      reserve_minor: Number(cause.reserveMinMinor),
    });
    const detail = await o.as('staff').get(`/claims/${c.uuid}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.data.documents.filter((d: any) => d.required).map((d: any) => d.kind)).toEqual(cause.documents);
    const onPolicy = await o.policy(med.uuid);
    expect(onPolicy.claims.map((x: any) => x.uuid)).toContain(c.uuid);
  });

  it('refuses a motor cause, a missing insured, one of another policy, and a registration-only notice', async () => {
    const spouse = med.risks[1];
    expectProblem(
      await post('/claims', notice(med, { cause: 'accident', insured_id: spouse.id })),
      422,
      'validation_failed',
      'cause',
    );
    expectProblem(await post('/claims', notice(med, { cause: 'inpatient' })), 422, 'validation_failed', 'insured_id');
    expectProblem(
      await post('/claims', notice(med, { cause: 'inpatient', registration: 'KDA 123A' })),
      422,
      'validation_failed',
      'insured_id',
    );
    expectProblem(
      await post('/claims', notice(med, { cause: 'inpatient', insured_id: std.risks[0].id })),
      422,
      'domain_rule',
    );
    // Another organisation: the policy is not within its reach (422 on policy_uuid, never a hint it exists).
    expectProblem(
      await post('/claims', notice(med, { cause: 'inpatient', insured_id: spouse.id }), other.tokens.staff),
      422,
      'validation_failed',
      'policy_uuid',
    );
  });

  it('a member removed by an endorsement is covered until the day before the removal only', async () => {
    const pol = await activeCoverPolicy(o, 'medical');
    const child = pol.risks[2];
    const removal = plus(TODAY, 10);
    const preview = await post(`/policies/${pol.uuid}/endorse`, {
      operation: 'remove_member',
      insured_id: child.id,
      effective_date: removal,
    });
    expect(preview.status, preview.text).toBe(201);
    const confirmed = await post(`/policies/${pol.uuid}/endorsements/${preview.body.data.uuid}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
    await withClock(`${plus(TODAY, 20)}T06:00:00.000Z`, async () => {
      expectProblem(
        await post(
          '/claims',
          notice(pol, { cause: 'outpatient', insured_id: child.id, loss_date: removal, loss_time: null }),
        ),
        422,
        'domain_rule',
      );
      const before = await post(
        '/claims',
        notice(pol, { cause: 'outpatient', insured_id: child.id, loss_date: plus(removal, -1), loss_time: null }),
      );
      expect(before.status, before.text).toBe(201);
      expect(before.body.data.insured).toMatchObject({ id: child.id, name: child.name });
    });
  }, 60_000);

  it('GraphQL registerClaim takes insuredId and shows Claim.insured', async () => {
    const r = await o.as('staff').gql(
      `mutation ($i: RegisterClaimInput!) {
        registerClaim(input: $i) { __typename ... on Claim { productLine registration insured { databaseId kind name } } ... on Problem { code detail } }
      }`,
      {
        i: {
          policyId: med.uuid,
          insuredId: med.risks[2].id,
          cause: 'optical',
          lossDate: TODAY,
          lossPlace: 'Nairobi',
          description: 'Spectacles',
        },
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.registerClaim).toMatchObject({
      __typename: 'Claim',
      productLine: 'medical',
      registration: null,
      insured: { databaseId: med.risks[2].id, kind: 'member', name: med.risks[2].name },
    });
  });

  it('the client registers one in the client area, naming the member by its id there', async () => {
    const s = await signIn(o, med.clientPhone);
    const mine = await o.as('staff').get('/client-area/policies', { headers: clientHeaders(s) });
    const listed = mine.body.data.find((p: any) => p.uuid === med.uuid);
    expect(listed.insured.map((i: any) => i.id)).toEqual(med.risks.map((r) => r.id));
    const r = await o.as('staff').post('/client-area/claims', {
      headers: clientHeaders(s),
      idempotencyKey: randomUUID(),
      body: notice(med, { cause: 'dental', insured_id: listed.insured[1].id }),
    });
    expect(r.status, r.text).toBe(201);
    const row = await t.db.tenant(o.id, (tx) => tx.claim.findFirstOrThrow({ where: { uuid: r.body.data.uuid } }));
    expect(row).toMatchObject({ riskId: med.risks[1].id, vehicleId: null, channel: 'client_area' });
  });
});

describe('a travel claim', () => {
  it('only within the trip’s dates, for a traveller on it', async () => {
    const trv = await activeCoverPolicy(o, 'travel', { startDate: plus(TODAY, -3), endDate: plus(TODAY, 11) });
    const traveller = trv.risks[1];
    expectProblem(
      await post('/claims', notice(trv, { cause: 'baggage', insured_id: traveller.id, loss_date: plus(TODAY, -4) })),
      422,
      'domain_rule',
    );
    const r = await post(
      '/claims',
      notice(trv, { cause: 'trip_cancellation', insured_id: traveller.id, loss_date: plus(TODAY, -1) }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({
      product_line: 'travel',
      cause: 'trip_cancellation',
      insured: { kind: 'traveller', name: traveller.name },
    });
  }, 60_000);
});

describe('a standard claim', () => {
  it('names the item; the reserve follows its sum insured and the cause’s rule', async () => {
    const electronics = std.risks[1];
    const r = await post('/claims', notice(std, { cause: 'burglary', insured_id: electronics.id }));
    expect(r.status, r.text).toBe(201);
    const cause = await causeRow('standard', 'burglary');
    // Hand computation: rate × sum insured (half away from zero), at least the floor, at most the sum insured.
    const si = electronics.sumInsuredMinor!;
    const share = (si * BigInt(cause.reserveBps) + 5_000n) / 10_000n;
    const expected = share > cause.reserveMinMinor ? share : cause.reserveMinMinor;
    expect(r.body.data).toMatchObject({
      insured: { id: electronics.id, kind: 'item', name: 'Portable electronics' },
      sum_insured_minor: Number(si),
      reserve_minor: Number(expected < si ? expected : si),
    });
  });

  it('motor claims are as before: a motor notice naming an insured is refused on insured_id', async () => {
    const motor = await o.activePolicy();
    expectProblem(
      await post('/claims', notice(motor, { cause: 'accident', registration: motor.regno, insured_id: 1 })),
      422,
      'validation_failed',
      'insured_id',
    );
    const ok = await post('/claims', notice(motor, { cause: 'accident', registration: motor.regno }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data).toMatchObject({ insured: null, registration: motor.regno.replace(' ', '') });
  }, 60_000);
});
