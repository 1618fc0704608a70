import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, TODAY, useKit } from './kit.ts';
import { COVER_RISKS } from './kit/cover-bind.ts';
import { cancel, pay, policyInStatus } from './kit/policies.ts';

/**
 * Medical, travel and standard covers through the public API alone (docs/covers.md "Medical, travel and standard covers"):
 * a family medical policy, a Schengen trip and a domestic package, each quoted → saved as a quote → bound → paid by
 * STK push → active → cancelled with a refund that reconciles; the same quote over GraphQL; another organisation and
 * an agent out of reach see 404.
 *
 * Independent figures: each option's levies are worked here from the demo levy table (docs/api-conventions.md "Money": training levy
 * 0.2 % and PHCF 0.25 % of each premium item — each insured's share, or the cover as a whole — each rounded half away
 * from zero to the cent; stamp duty KES 40 flat, once), never read from the code under test. Cancelled on its first day of cover (or before a trip departs), the whole basic
 * premium is unearned: the credit is the basic premium with its percent levies; stamp duty is kept.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const halfUp = (n: bigint, bps: bigint) => (n * bps + 5_000n) / 10_000n; // n ≥ 0: half away from zero
/** The percent levies of an option: taken on each premium item (each insured's share, or the cover as a whole). */
const percentLevies = (items: bigint[]) => items.reduce((s, b) => s + halfUp(b, 20n) + halfUp(b, 25n), 0n);
const itemsOf = (opt: any): bigint[] =>
  opt.insured_premiums
    ? opt.insured_premiums.map((p: any) => BigInt(p.amount_minor))
    : [BigInt(opt.basic_premium_minor)];
const gqlClient = (n: string) => {
  const { idno, ...c } = client(n);
  return { ...c, idNo: idno };
};
const client = (n: string) => ({
  name: `Wanjiru ${n}`,
  phone: `07${String(Date.now()).slice(-8)}`,
  idno: `${Date.now() % 1e8}`,
});

const CASES = [
  { line: 'medical', key: 'medical', prefix: 'MED-', risk: COVER_RISKS.medical, insured: 3 },
  { line: 'travel', key: 'trip', prefix: 'TRV-', risk: COVER_RISKS.travel, insured: 2 },
  { line: 'standard', key: 'cover', prefix: 'STD-', risk: COVER_RISKS.standard, insured: 2 },
] as const;

describe.each(CASES)('$line: quoted → saved → bound → paid by STK → active → cancelled', (c) => {
  it('goes the whole way, with figures that reconcile', async () => {
    const quote = await o.api.post(`/${c.line}/quote`, { token: o.tokens.staff, body: c.risk });
    expect(quote.status, quote.text).toBe(200);
    const options: any[] = quote.body.options;
    expect(options.length).toBeGreaterThan(1);
    expect(quote.body.quote.product_line).toBe(c.line);
    expect(quote.body.quote.insured).toHaveLength(c.insured);
    for (const [i, opt] of options.entries()) {
      const basic = BigInt(opt.basic_premium_minor);
      expect(itemsOf(opt).reduce((s, b) => s + b, 0n)).toBe(basic);
      expect(BigInt(opt.taxes_total_minor)).toBe(percentLevies(itemsOf(opt)) + 4_000n);
      expect(BigInt(opt.total_minor)).toBe(basic + percentLevies(itemsOf(opt)) + 4_000n);
      expect(opt.breakdown.reduce((s: bigint, b: any) => s + BigInt(b.amount_minor), 0n)).toBe(basic);
      if (i) expect(BigInt(opt.total_minor)).toBeGreaterThanOrEqual(BigInt(options[i - 1].total_minor));
    }
    // GraphQL gives the same options.
    const cheapest = options[0];

    const saved = await o.api.post(`/${c.line}/save_quote`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {
        client: client(c.line),
        [c.key]: c.risk,
        quotes: [{ insurer_id: cheapest.insurer_id, total: cheapest.total }],
      },
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.data.product_line).toBe(c.line);
    expect(saved.body.data.options).toHaveLength(options.length);

    const bound = await o.api.post(`/${c.line}/save`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {
        client: { ...client(c.line), client_no: saved.body.client_no },
        policy: {
          ...(c.line === 'travel' ? {} : { start_date: TODAY }),
          insurer_id: cheapest.insurer_id,
          premium: cheapest.total,
          product_version: cheapest.product_version,
        },
        [c.key]: c.risk,
      },
    });
    expect(bound.status, bound.text).toBe(201);
    expect(bound.body.status).toBe('pending_payment');
    expect(bound.body.product_line).toBe(c.line);
    expect(bound.body.policy_no.startsWith(c.prefix)).toBe(true);
    expect(bound.body.premium.total_minor).toBe(Number(cheapest.total_minor));

    await pay(o, bound.body.policy_no, cheapest.total_minor);
    const active = await policyInStatus(o, bound.body.uuid, 'active');
    expect(active.product_line).toBe(c.line);
    const certs = await o.api.get(`/policies/${bound.body.uuid}/certificates`, { token: o.tokens.staff });
    expect(certs.status === 404 || (certs.status === 200 && certs.body.data.length === 0), certs.text).toBe(true);

    const cancelled = await cancel(o, bound.body.uuid);
    const basic = BigInt(cheapest.basic_premium_minor);
    expect(BigInt(cancelled.refund.credit_total_minor)).toBe(basic + percentLevies(itemsOf(cheapest)));
    expect(BigInt(cancelled.refund.refund_to_client_minor)).toBe(basic + percentLevies(itemsOf(cheapest)));
    expect(cancelled.refund.non_refundable.map((l: any) => [l.code, l.amount_minor])).toEqual([['SD', 4_000]]);
    await policyInStatus(o, bound.body.uuid, 'cancelled');

    // Out of reach: another organisation, and an agent who neither made nor sells the policy.
    expectProblem(await other.api.get(`/policies/${bound.body.uuid}`, { token: other.tokens.staff }), 404, 'not_found');
    expectProblem(await o.api.get(`/policies/${bound.body.uuid}`, { token: o.tokens.agent }), 404, 'not_found');
  });
});

const GQL_QUOTE = {
  medical: `query ($input: MedicalCoverInput!) { medicalQuote(input: $input) { __typename ... on CoverQuote { quote { productLine product startDate endDate days insured { name age } } options { insurerId productVersion total { amountMinor } basicPremium { amountMinor } insuredPremiums { amountMinor } } } } }`,
  travel: `query ($input: TripInput!) { travelQuote(input: $input) { __typename ... on CoverQuote { quote { productLine product startDate endDate days insured { name age } } options { insurerId productVersion total { amountMinor } basicPremium { amountMinor } insuredPremiums { amountMinor } } } } }`,
  standard: `query ($input: StandardCoverInput!) { standardQuote(input: $input) { __typename ... on CoverQuote { quote { productLine product startDate endDate days insured { name age } } options { insurerId productVersion total { amountMinor } basicPremium { amountMinor } insuredPremiums { amountMinor } } } } }`,
} as const;

const GQL_SAVE = {
  medical: `mutation ($client: InsuredInput!, $medical: MedicalCoverInput!) { saveMedicalQuote(client: $client, medical: $medical) { __typename ... on SavedQuote { quoteNo productLine options { insurerId total { amountMinor } } } ... on Problem { code detail } } }`,
  travel: `mutation ($client: InsuredInput!, $trip: TripInput!) { saveTravelQuote(client: $client, trip: $trip) { __typename ... on SavedQuote { quoteNo productLine options { insurerId total { amountMinor } } } ... on Problem { code detail } } }`,
  standard: `mutation ($client: InsuredInput!, $cover: StandardCoverInput!) { saveStandardQuote(client: $client, cover: $cover) { __typename ... on SavedQuote { quoteNo productLine options { insurerId total { amountMinor } } } ... on Problem { code detail } } }`,
} as const;

const GQL_BIND = {
  medical: `mutation ($client: InsuredInput!, $policy: CoverBindPolicyInput!, $medical: MedicalCoverInput!) { bindMedicalPolicy(client: $client, policy: $policy, medical: $medical) { __typename ... on BoundPolicy { clientNo policy { policyNo status productLine total { amountMinor } } } ... on Problem { code detail } } }`,
  travel: `mutation ($client: InsuredInput!, $policy: CoverBindPolicyInput!, $trip: TripInput!) { bindTravelPolicy(client: $client, policy: $policy, trip: $trip) { __typename ... on BoundPolicy { clientNo policy { policyNo status productLine total { amountMinor } } } ... on Problem { code detail } } }`,
  standard: `mutation ($client: InsuredInput!, $policy: CoverBindPolicyInput!, $cover: StandardCoverInput!) { bindStandardPolicy(client: $client, policy: $policy, cover: $cover) { __typename ... on BoundPolicy { clientNo policy { policyNo status productLine total { amountMinor } } } ... on Problem { code detail } } }`,
} as const;

/** The REST body's risk in GraphQL's spelling (what the facade's mapper does, written out here independently). */
function gqlRisk(line: string, r: any): Record<string, unknown> {
  if (line === 'medical')
    return {
      coverType: r.cover_type,
      inpatientLimit: r.inpatient_limit,
      riders: r.riders,
      members: r.members.map((m: any) => ({ name: m.name, relationship: m.relationship, age: m.age })),
    };
  if (line === 'travel')
    return {
      plan: r.plan,
      region: r.region,
      destination: r.destination,
      departureDate: r.departure_date,
      returnDate: r.return_date,
      travellers: r.travellers.map((x: any) => ({ name: x.name, age: x.age, passportNo: x.passport_no })),
    };
  return {
    product: r.product,
    items: r.items.map((i: any) => ({ description: i.description, sumInsured: i.sum_insured })),
  };
}

describe.each(CASES)('$line over GraphQL', (c) => {
  it('quotes the same options as REST, saves the quote and binds', async () => {
    const rest = await o.api.post(`/${c.line}/quote`, { token: o.tokens.staff, body: c.risk });
    expect(rest.status, rest.text).toBe(200);
    const caller = o.as('staff');
    const q = (await caller.gql(GQL_QUOTE[c.line], { input: gqlRisk(c.line, c.risk) })).body;
    const field = `${c.line}Quote`;
    expect(q.data[field].__typename, JSON.stringify(q)).toBe('CoverQuote');
    const gql = q.data[field];
    expect(gql.quote.productLine).toBe(c.line);
    expect(gql.quote.startDate).toBe(rest.body.quote.start_date);
    expect(gql.options.map((x: any) => [x.insurerId, x.total.amountMinor, x.basicPremium.amountMinor])).toEqual(
      rest.body.options.map((x: any) => [x.insurer_id, x.total_minor, x.basic_premium_minor]),
    );

    const Save = `save${c.line[0].toUpperCase()}${c.line.slice(1)}Quote`;
    const s = (
      await caller.gql(GQL_SAVE[c.line], { client: gqlClient(`g${c.line}`), [c.key]: gqlRisk(c.line, c.risk) })
    ).body;
    expect(s.data[Save].__typename, JSON.stringify(s)).toBe('SavedQuote');
    expect(s.data[Save].productLine).toBe(c.line);

    const cheapest = gql.options[0];
    const Bind = `bind${c.line[0].toUpperCase()}${c.line.slice(1)}Policy`;
    const policy = {
      ...(c.line === 'travel' ? {} : { startDate: TODAY }),
      insurerId: cheapest.insurerId,
      premium: Number(cheapest.total.amountMinor) / 100,
      productVersion: cheapest.productVersion,
    };
    const b = (
      await caller.gql(GQL_BIND[c.line], { client: gqlClient(`b${c.line}`), policy, [c.key]: gqlRisk(c.line, c.risk) })
    ).body;
    expect(b.data[Bind].__typename, JSON.stringify(b)).toBe('BoundPolicy');
    expect(b.data[Bind].policy).toMatchObject({ status: 'pending_payment', productLine: c.line });
    expect(b.data[Bind].policy.total.amountMinor).toBe(cheapest.total.amountMinor);

    // A premium more than KES 1 off is refused with the server's figures; a stale rating version with price_changed.
    const off = (
      await caller.gql(GQL_BIND[c.line], {
        client: gqlClient(`m${c.line}`),
        policy: { ...policy, premium: policy.premium + 2 },
        [c.key]: gqlRisk(c.line, c.risk),
      })
    ).body;
    expect(off.data[Bind]).toMatchObject({ __typename: 'PremiumMismatchProblem', code: 'premium_mismatch' });
    const stale = (
      await caller.gql(GQL_BIND[c.line], {
        client: gqlClient(`v${c.line}`),
        policy: { ...policy, productVersion: cheapest.productVersion - 1 },
        [c.key]: gqlRisk(c.line, c.risk),
      })
    ).body;
    expect(stale.data[Bind]).toMatchObject({ code: 'price_changed' });
  });
});
