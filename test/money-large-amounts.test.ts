import { randomUUID } from 'node:crypto';
import type { GraphQLError, GraphQLScalarType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.ts';
import { coverBindBody, coverQuote } from './kit/cover-bind.ts';
import { newPerson } from './kit/prospects.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, waitFor } from './kit.ts';

/**
 * Amounts above 2^31 − 1 shillings (GraphQL's Int) cross both transports exactly (docs/api-conventions.md "Money"):
 * request amounts are JSON integers up to KES 90,071,992,547,409 (Shillings) or 9,007,199,254,740,991 cents (Cents);
 * one more is 422 validation_failed on REST and refused on GraphQL. Every figure below is worked by hand.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o] = t.useOrgs(1, { fast: true });

const MAX_SHILLINGS = 90_071_992_547_409; // floor((2^53 − 1) / 100)
const post = (path: string, body: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
const gql = (query: string, variables: Record<string, unknown>) => o.as('staff').gql(query, variables);

describe('a prospect estimated at KES 3,000,000,000 a year', () => {
  it('round-trips over REST and GraphQL', async () => {
    const p = newPerson('Bigco');
    const r = await post('/prospects', { name: p.name, phone: p.phone, estimated_premium: 3_000_000_000 });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ estimated_premium: 3_000_000_000, estimated_premium_minor: 300_000_000_000 });
    const read = await o.as('staff').get(`/prospects/${r.body.data.uuid}`);
    expect(read.body.data.estimated_premium_minor, read.text).toBe(300_000_000_000);

    const q = newPerson('Gqlco');
    const g = await gql(
      `mutation ($input: CreateProspectInput!) { createProspect(input: $input) { __typename
        ... on Prospect { estimatedPremium { amount amountMinor } } ... on Problem { code detail } } }`,
      { input: { name: q.name, phone: q.phone, estimatedPremium: 3_000_000_000 } },
    );
    expect(g.body.data.createProspect, JSON.stringify(g.body)).toEqual({
      __typename: 'Prospect',
      estimatedPremium: { amount: 3_000_000_000, amountMinor: 300_000_000_000 },
    });
  });
});

/**
 * A factory's fire cover of KES 4,000,000,000 on one item. The demo FIRE product stops at KES 2,000,000,000; this
 * organisation's first insurer adds a fifth band above it at 0.08 % (test data), so its option is the only one.
 */
const FACTORY = {
  product: 'FIRE',
  items: [{ description: 'Factory buildings, plant and stock', sum_insured: 4_000_000_000 }],
};
let firePolicy: { uuid: string; itemId: number };

describe('a fire cover of KES 4,000,000,000', () => {
  beforeAll(async () => {
    await t.db.tenant(o.id, async (tx) => {
      const products = await tx.coverProduct.findMany({ where: { code: 'FIRE' }, include: { rates: true } });
      // The insurer at 100 % of the demo scale: its last base band is 0.10 % up to KES 2,000,000,000.
      const fire = products.find((p) => p.rates.some((r) => r.rateTable === 'base' && r.rateBps === 10))!;
      await tx.coverRate.create({
        data: {
          tenantId: o.id,
          coverProductId: fire.id,
          rateTable: 'base',
          fromValue: 200_000_000_001n,
          toValue: null,
          rateBps: 8,
        },
      });
    });
  });

  it('quotes, binds over REST and reads back exactly', async () => {
    const quote = await waitFor(
      'the rating cache to see the new band',
      () => coverQuote(o.api, o.tokens.staff, 'standard', FACTORY),
      (q) => q.options.length > 0,
    );
    // 10,000,000 at 0.25 % = 25,000; 40,000,000 at 0.18 % = 72,000; 450,000,000 at 0.12 % = 540,000;
    // 1,500,000,000 at 0.10 % = 1,500,000; 2,000,000,000 at 0.08 % = 1,600,000. Basic 3,737,000.
    // Levies: training levy 0.2 % = 7,474; PHCF 0.25 % = 9,342.50; stamp duty 40. Total 3,753,856.50.
    const o1 = quote.options[0];
    expect(o1.basic_premium_minor).toBe(373_700_000);
    expect(o1.total_minor).toBe(375_385_650);
    expect(o1.total).toBe(3_753_857);

    const { body } = await coverBindBody(o.api, o.tokens.staff, 'standard', FACTORY);
    const r = await post('/standard/save', body);
    expect(r.status, r.text).toBe(201);
    expect(r.body.premium).toMatchObject({ total: 3_753_857, total_minor: 375_385_650 });
    const rec = await o.as('staff').get(`/policies/${r.body.uuid}`);
    expect(rec.status, rec.text).toBe(200);
    const item = rec.body.data.insured[0];
    expect(item).toMatchObject({ sum_insured: 4_000_000_000, sum_insured_minor: 400_000_000_000 });
    firePolicy = { uuid: r.body.uuid, itemId: item.id };
  });

  it('quotes and binds over GraphQL with the same figures', async () => {
    const cover = {
      product: 'FIRE',
      items: [{ description: 'Factory buildings, plant and stock', sumInsured: 4_000_000_000 }],
    };
    const q = await gql(
      `query ($input: StandardCoverInput!) { standardQuote(input: $input) { __typename
        ... on CoverQuote { options { insurerId productVersion total { amount amountMinor } } } } }`,
      { input: cover },
    );
    const opt = q.body.data.standardQuote.options[0];
    expect(opt.total, JSON.stringify(q.body)).toEqual({ amount: 3_753_857, amountMinor: 375_385_650 });
    const p = newPerson('Factory');
    const b = await gql(
      `mutation ($client: InsuredInput!, $policy: CoverBindPolicyInput!, $cover: StandardCoverInput!) {
        bindStandardPolicy(client: $client, policy: $policy, cover: $cover) { __typename
          ... on BoundPolicy { policy { total { amount amountMinor } insured { sumInsured { amount amountMinor } } } }
          ... on Problem { code detail } } }`,
      {
        client: { name: p.name, phone: p.phone, idNo: p.id_no },
        policy: {
          startDate: TODAY,
          insurerId: opt.insurerId,
          premium: 3_753_856.5,
          productVersion: opt.productVersion,
        },
        cover,
      },
    );
    expect(b.body.data.bindStandardPolicy, JSON.stringify(b.body)).toEqual({
      __typename: 'BoundPolicy',
      policy: {
        total: { amount: 3_753_857, amountMinor: 375_385_650 },
        insured: [{ sumInsured: { amount: 4_000_000_000, amountMinor: 400_000_000_000 } }],
      },
    });
  });
});

describe('a claim above KES 2,147,483,647', () => {
  let claimUuid: string;
  beforeAll(async () => {
    // On cover as a paid policy is (the premium is beyond what the simulated STK rail takes in one push).
    await t.db.tenant(o.id, (tx) => tx.policy.update({ where: { uuid: firePolicy.uuid }, data: { status: 'active' } }));
  });

  it('registers an estimated loss of KES 5,000,000,000 over REST; the reserve is capped at the sum insured', async () => {
    const r = await post('/claims', {
      policy_uuid: firePolicy.uuid,
      insured_id: firePolicy.itemId,
      cause: 'fire_perils',
      loss_date: TODAY,
      loss_place: 'Athi River',
      description: 'Fire in the main warehouse',
      estimated_loss: 5_000_000_000,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({
      estimated_loss: 5_000_000_000,
      estimated_loss_minor: 500_000_000_000,
      reserve: 4_000_000_000,
      reserve_minor: 400_000_000_000,
    });
    claimUuid = r.body.data.uuid;
  });

  it('registers the same over GraphQL', async () => {
    const g = await gql(
      `mutation ($input: RegisterClaimInput!) { registerClaim(input: $input) { __typename
        ... on Claim { estimatedLoss { amount amountMinor } reserve { amount amountMinor } } ... on Problem { code detail } } }`,
      {
        input: {
          policyId: firePolicy.uuid,
          insuredId: firePolicy.itemId,
          cause: 'fire_perils',
          lossDate: TODAY,
          lossPlace: 'Athi River',
          description: 'Fire in the dispatch bay',
          estimatedLoss: 5_000_000_000,
        },
      },
    );
    expect(g.body.data.registerClaim, JSON.stringify(g.body)).toEqual({
      __typename: 'Claim',
      estimatedLoss: { amount: 5_000_000_000, amountMinor: 500_000_000_000 },
      reserve: { amount: 4_000_000_000, amountMinor: 400_000_000_000 },
    });
  });

  it('is assessed at KES 3,500,000,000 and approved at KES 3,000,000,000 (no excess on fire)', async () => {
    const move = (to: string) => post(`/claims/${claimUuid}/transitions`, { to, reason: 'test' });
    expect((await move('documents_pending')).status).toBe(200);
    await t.db.tenant(o.id, async (tx) => {
      const c = await tx.claim.findUniqueOrThrow({ where: { uuid: claimUuid } });
      await tx.claimDocument.updateMany({ where: { claimId: c.id }, data: { status: 'received' } });
    });
    expect((await move('with_underwriter')).status).toBe(200);
    expect((await post(`/claims/${claimUuid}/assessor`, { name: 'Moto Loss Adjusters' })).status).toBe(200);
    expect((await move('under_assessment')).status).toBe(200);
    const a = await post(`/claims/${claimUuid}/assessment`, { assessed_amount: 3_500_000_000 });
    expect(a.status, a.text).toBe(200);
    expect(a.body.data).toMatchObject({ assessment: { assessed_amount_minor: 350_000_000_000 } });

    const g = await gql(
      `mutation ($uuid: String!, $input: ApproveClaimInput!) { approveClaim(uuid: $uuid, input: $input) { __typename
        ... on Claim { approvedAmount { amount amountMinor } netPayable { amount amountMinor } } ... on Problem { code detail } } }`,
      { uuid: claimUuid, input: { approvedAmount: 3_000_000_000, reason: 'As assessed, less underinsurance' } },
    );
    expect(g.body.data.approveClaim, JSON.stringify(g.body)).toEqual({
      __typename: 'Claim',
      approvedAmount: { amount: 3_000_000_000, amountMinor: 300_000_000_000 },
      netPayable: { amount: 3_000_000_000, amountMinor: 300_000_000_000 },
    });
    const rest = await o.as('staff').get(`/claims/${claimUuid}`);
    expect(rest.body.data, rest.text).toMatchObject({
      approved_amount: 3_000_000_000,
      approved_amount_minor: 300_000_000_000,
      net_payable_minor: 300_000_000_000,
    });
  });
});

describe('the Cents and Shillings scalars', () => {
  const scalar = (name: string) => schema.getType(name) as GraphQLScalarType;
  it('take integers up to the bound either side of zero, and refuse more, fractions and strings', () => {
    expect(scalar('Cents').parseValue(9_007_199_254_740_991)).toBe(9_007_199_254_740_991n);
    expect(scalar('Cents').parseValue(-9_007_199_254_740_991)).toBe(-9_007_199_254_740_991n);
    expect(scalar('Shillings').parseValue(MAX_SHILLINGS)).toBe(MAX_SHILLINGS);
    for (const bad of [9_007_199_254_740_992, 1.5, '100', null])
      expect(() => scalar('Cents').parseValue(bad)).toThrow(/whole cents, at most 9007199254740991/);
    for (const bad of [MAX_SHILLINGS + 1, -MAX_SHILLINGS - 1, 0.5, '1'])
      expect(() => scalar('Shillings').parseValue(bad)).toThrow(/whole shillings, at most 90071992547409/);
    try {
      scalar('Shillings').parseValue(0.5);
    } catch (e) {
      expect((e as GraphQLError).extensions.code).toBe('validation_failed');
    }
  });
  it('write any amount a JSON number holds exactly, and refuse to write one it does not', () => {
    expect(scalar('Cents').serialize(9_007_199_254_740_991n)).toBe(9_007_199_254_740_991);
    expect(scalar('Shillings').serialize(5_000_000_000n)).toBe(5_000_000_000);
    expect(() => scalar('Cents').serialize(9_007_199_254_740_993n)).toThrow(/out of range/);
  });
});

describe('the upper bound of a request amount', () => {
  const motorless = (estimated_loss: unknown) => ({
    policy_uuid: firePolicy.uuid,
    insured_id: firePolicy.itemId,
    cause: 'fire_perils',
    loss_date: TODAY,
    loss_place: 'Athi River',
    description: 'Bound test',
    estimated_loss,
  });

  it('REST: one shilling above KES 90,071,992,547,409 is 422 naming the field; the bound itself is taken', async () => {
    const over = await post('/claims', motorless(MAX_SHILLINGS + 1));
    expectProblem(over, 422, 'validation_failed', 'estimated_loss');
    expect(over.body.errors, over.text).toEqual([
      {
        field: 'estimated_loss',
        code: 'out_of_range',
        message: 'must be a whole number from -90071992547409 to 90071992547409',
      },
    ]);
    const at = await post('/claims', motorless(MAX_SHILLINGS));
    expect(at.status, at.text).toBe(201);
    expect(at.body.data).toMatchObject({ estimated_loss: MAX_SHILLINGS, estimated_loss_minor: 9_007_199_254_740_900 });
    // A fraction and a negative stay refused as before.
    expectProblem(await post('/claims', motorless(12.5)), 422, 'validation_failed', 'estimated_loss');
    expectProblem(await post('/claims', motorless(-1)), 422, 'validation_failed', 'estimated_loss');
    expectProblem(
      await post('/prospects', { name: 'Over Bound', phone: '0756 999111', estimated_premium: 10_000_000_001 }),
      422,
      'validation_failed',
      'estimated_premium',
    );
  });

  it('GraphQL: a Shillings or Cents variable above its bound is refused before anything runs', async () => {
    const register = `mutation ($input: RegisterClaimInput!) { registerClaim(input: $input) { __typename } }`;
    const input = {
      policyId: firePolicy.uuid,
      insuredId: firePolicy.itemId,
      cause: 'fire_perils',
      lossDate: TODAY,
      lossPlace: 'Athi River',
      description: 'Bound test',
    };
    const over = await gql(register, { input: { ...input, estimatedLoss: MAX_SHILLINGS + 1 } });
    expect(over.body.data ?? null, JSON.stringify(over.body)).toBeNull();
    expect(over.body.errors![0].extensions.code).toBe('validation_failed');
    expect(over.body.errors![0].extensions.errors).toEqual([
      {
        field: 'input.estimatedLoss',
        code: 'out_of_range',
        message: 'must be a whole number from -90071992547409 to 90071992547409',
      },
    ]);
    const fraction = await gql(register, { input: { ...input, estimatedLoss: 12.5 } });
    expect(fraction.body.errors![0].extensions.code, JSON.stringify(fraction.body)).toBe('validation_failed');
    expect(fraction.body.errors![0].extensions.errors).toEqual([
      { field: 'input.estimatedLoss', code: 'not_a_whole_number', message: 'must be a whole number' },
    ]);
    const before = await t.db.tenant(o.id, (tx) => tx.claim.count({ where: { description: 'Bound test' } }));
    expect(before).toBe(1); // only the REST claim at the bound
  });
});
