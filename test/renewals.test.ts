import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonths, annualEnd, toDbDate } from '../src/lib/dates.ts';
import { runLifecycle } from '../src/modules/policies/lifecycle.service.ts';
import { POLICY_RULES } from '../src/modules/policies/policy-state.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, type Org } from './kit.ts';

const YOM = Number(TODAY.slice(0, 4)) - 3;
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
const asAgent2 = o.as('staff', { agent: 2 });
let simbaProductId: number;

beforeAll(async () => {
  const pol = await t.db.tenant(o.org.id, (tx) =>
    tx.motorProduct.findFirstOrThrow({
      where: { insurer: { name: 'Simba General' }, vehicleClass: 'private', coverType: 'comprehensive' },
    }),
  );
  simbaProductId = pol.id;
});

const post = (path: string, body: unknown, token = o.tokens.staff, headers?: Record<string, string>) =>
  o.api.post(path, { token, body, headers, idempotencyKey: randomUUID() });
const quote = (uuid: string, body: unknown = {}, token?: string, headers?: Record<string, string>) =>
  post(`/policies/${uuid}/renewal-quote`, body, token, headers);
const renew = (uuid: string, body: unknown, token?: string, headers?: Record<string, string>) =>
  post(`/policies/${uuid}/renew`, body, token, headers);
const policyRow = (org: Org, uuid: string) =>
  t.db.tenant(org.org.id, (tx) =>
    tx.policy.findUniqueOrThrow({
      where: { uuid },
      include: {
        vehicles: true,
        premiumItems: true,
        debitNotes: { orderBy: { instalmentNo: 'asc' } },
        statusHistory: true,
        taxes: true,
      },
    }),
  );
const counts = () =>
  t.db.tenant(o.org.id, async (tx) => ({
    policies: await tx.policy.count(),
    notes: await tx.debitNote.count(),
    quotes: await tx.renewalQuote.count({ where: { status: 'bound' } }),
  }));

/** Today's price of the bound risk on current rates (the motor quote endpoint), to compare the renewal with. */
const currentPrice = (value = 1_500_000) => o.quote({ value, yom: YOM });

/** Raises Simba's rates, and waits until the server has heard (its rating cache dropped the old ones). */
const raiseRates = async (bps: number) => {
  await t.db.tenant(o.org.id, (tx) =>
    tx.motorRateBand.updateMany({ where: { motorProductId: simbaProductId }, data: { rateBps: { increment: bps } } }),
  );
  await t.heard();
};

describe('POST /policies/{uuid}/renewal-quote', () => {
  let pol: any;
  beforeAll(async () => {
    pol = await o.activePolicy({ instalments: 2 });
  });

  it('prices the next annual period on current rates, with the expiring period beside it', async () => {
    const before = await currentPrice();
    await raiseRates(100); // +1 percentage point on every band: KES 15,000 more on KES 1.5M
    const now = await currentPrice();
    expect(BigInt(now.basic_premium_minor) - BigInt(before.basic_premium_minor)).toBe(1_500_000n);

    const r = await quote(pol.uuid);
    expect(r.status, r.text).toBe(201);
    const q = r.body.data;
    const start = addDays(pol.end_date, 1);
    expect(q).toMatchObject({
      status: 'quoted',
      policy_uuid: pol.uuid,
      policy_no: pol.policy_no,
      start_date: start,
      end_date: annualEnd(start),
      insurer: { name: 'Simba General' },
      product_version: now.product_version,
      valid_until: addDays(TODAY, POLICY_RULES.previewValidHours / 24),
      new_policy: null,
    });
    // The expiring period's figures.
    expect(q.previous).toMatchObject({
      basic_premium_minor: Number(pol.premium.basic_premium_minor),
      taxes_minor: Number(pol.premium.taxes_minor),
      total_minor: Number(pol.premium.total_minor),
    });
    // The new ones: the current price of the same risk, levy by levy.
    expect(q.renewal).toMatchObject({
      basic_premium_minor: Number(now.basic_premium_minor),
      taxes_minor: Number(now.taxes_total_minor),
      total_minor: Number(now.total_minor),
    });
    expect(q.renewal.levies.map((l: any) => [l.code, l.amount_minor]).sort()).toEqual(
      now.taxes.map((l: any) => [l.code, Number(l.amount_minor)]).sort(),
    );
    expect(q.renewal.levies.reduce((s: number, l: any) => s + l.amount_minor, 0)).toBe(q.renewal.taxes_minor);
    expect(q.change.total_minor).toBe(q.renewal.total_minor - q.previous.total_minor);
    expect(q.change.total_minor).toBeGreaterThan(0);
    expect(q.vehicles).toEqual([
      expect.objectContaining({
        value: 1_500_000,
        previous_annual_basic_minor: Number(pol.premium.basic_premium_minor),
        renewal_annual_basic_minor: Number(now.basic_premium_minor),
      }),
    ]);
    // Instalment options as the insurer allows, summing to the total.
    expect(q.instalment_options.map((x: any) => x.parts)).toEqual(now.instalments.map((x: any) => x.parts));
    for (const opt of q.instalment_options)
      expect(opt.amounts.reduce((s: number, a: any) => s + a.amount_minor, 0)).toBe(q.renewal.total_minor);
  });

  it('prices a new sum insured for a vehicle', async () => {
    const reg = (await policyRow(o, pol.uuid)).vehicles[0].regNo;
    const spaced = `${reg.slice(0, 3).toLowerCase()} ${reg.slice(3)}`;
    const r = await quote(pol.uuid, { vehicles: [{ regno: spaced, value: 1_200_000 }] });
    expect(r.status, r.text).toBe(201);
    const now = await currentPrice(1_200_000);
    expect(r.body.data.vehicles[0]).toMatchObject({
      regno: reg,
      value: 1_200_000,
      renewal_annual_basic_minor: Number(now.basic_premium_minor),
    });
    expect(r.body.data.renewal.total_minor).toBe(Number(now.total_minor));
  });

  it('422 validation_failed for a registration not on the policy or a bad value; nothing stored', async () => {
    const n = await t.db.tenant(o.org.id, (tx) => tx.renewalQuote.count());
    expectProblem(
      await quote(pol.uuid, { vehicles: [{ regno: 'KZZ 999Z', value: 1_000_000 }] }),
      422,
      'validation_failed',
    );
    const bad = await quote(pol.uuid, { vehicles: [{ regno: 'KZZ 999Z', value: -5 }] });
    expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors.map((e: any) => e.field)).toContain('vehicles.0.value');
    expectProblem(await quote(pol.uuid, { vehicles: [{ value: 'lots' }] }), 422, 'validation_failed');
    expectProblem(await quote(pol.uuid, { vehicles: 'all' }), 422, 'validation_failed');
    expect(await t.db.tenant(o.org.id, (tx) => tx.renewalQuote.count())).toBe(n);
  });

  it('409 invalid_state for a policy pending payment; 400 without Idempotency-Key', async () => {
    const pending = await o.bind(1);
    expectProblem(await quote(pending.uuid), 409, 'invalid_state');
    const r = await o.api.post(`/policies/${pol.uuid}/renewal-quote`, { token: o.tokens.staff, body: {} });
    expectProblem(r, 400, 'idempotency_key_required');
  });

  it('an expired policy is renewable within the reinstatement window only', async () => {
    const p = await o.activePolicy();
    // The end date is set, and the start a year before it: no 29 February in between can shift the end.
    const move = (end: string) =>
      t.db.tenant(o.org.id, (tx) =>
        tx.policy.update({
          where: { uuid: p.uuid },
          data: { status: 'expired', startDate: toDbDate(addMonths(addDays(end, 1), -12)), endDate: toDbDate(end) },
        }),
      );
    await move(addDays(TODAY, -POLICY_RULES.reinstatementDays)); // ended exactly reinstatementDays ago
    expect((await quote(p.uuid)).status).toBe(201);
    await move(addDays(TODAY, -POLICY_RULES.reinstatementDays - 1));
    expectProblem(await quote(p.uuid), 409, 'invalid_state');
  });
});

describe('POST /policies/{uuid}/renew', () => {
  let pol: any;
  let q: any;
  let next: any;
  beforeAll(async () => {
    pol = await o.activePolicy();
    const r = await quote(pol.uuid);
    expect(r.status, r.text).toBe(201);
    q = r.body.data;
  });

  it('422 premium_mismatch more than KES 1 off the quote; nothing created', async () => {
    const before = await counts();
    const r = await renew(pol.uuid, { renewal_quote_uuid: q.uuid, premium: q.renewal.total + 2 });
    expectProblem(r, 422, 'premium_mismatch');
    expect(r.body.server[0]).toMatchObject({ total_minor: q.renewal.total_minor });
    expectProblem(await renew(pol.uuid, { renewal_quote_uuid: q.uuid }), 422, 'validation_failed');
    expectProblem(
      await renew(pol.uuid, { renewal_quote_uuid: 'nope', premium: q.renewal.total }),
      422,
      'validation_failed',
    );
    expectProblem(await renew(pol.uuid, { renewal_quote_uuid: q.uuid, premium: 'x' }), 422, 'validation_failed');
    expectProblem(
      await renew(pol.uuid, { renewal_quote_uuid: q.uuid, premium: q.renewal.total, premium_instalments: 9 }),
      422,
      'validation_failed',
    );
    expectProblem(
      await renew(pol.uuid, { renewal_quote_uuid: randomUUID(), premium: q.renewal.total }),
      404,
      'not_found',
    );
    expect(await counts()).toEqual(before);
  });

  it('binds the quote into a new policy pending payment, linked both ways; the old one unchanged until paid', async () => {
    const r = await renew(pol.uuid, { renewal_quote_uuid: q.uuid, premium: q.renewal.total, premium_instalments: 2 });
    expect(r.status, r.text).toBe(201);
    next = r.body.data;
    expect(next).toMatchObject({
      status: 'pending_payment',
      start_date: q.start_date,
      end_date: q.end_date,
      instalments: 2,
      client: { client_no: pol.client_no },
      insurer: { name: 'Simba General' },
      renewal_of: { uuid: pol.uuid, policy_no: pol.policy_no },
      renewed_by: null,
    });
    expect(next.policy_no).not.toBe(pol.policy_no);
    // Numbered last, as a bind is (src/db/counters.ts pendingNumber): the drawn number on the policy, its risk note
    // and its debit notes, and no stand-in left.
    expect(next.policy_no).toMatch(/^MTR-\d{4}-\d{6}$/);
    expect(next.debit_notes.map((d: any) => d.number)).toEqual([1, 2].map((n) => `DN-${next.policy_no}-${n}/2`));
    expect(next.premium).toMatchObject({
      basic_premium_minor: q.renewal.basic_premium_minor,
      taxes_minor: q.renewal.taxes_minor,
      total_minor: q.renewal.total_minor,
    });
    expect(next.premium.levies.map((l: any) => [l.code, l.amount_minor]).sort()).toEqual(
      q.renewal.levies.map((l: any) => [l.code, l.amount_minor]).sort(),
    );
    // Debit notes as a bind raises them: 2 instalments, the first due on the start date, summing to the total.
    expect(next.debit_notes.map((d: any) => d.instalment_no)).toEqual([1, 2]);
    expect(next.debit_notes[0].due_on).toBe(q.start_date);
    expect(next.debit_notes.map((d: any) => d.amount_minor)).toEqual(
      q.instalment_options[1].amounts.map((a: any) => a.amount_minor),
    );
    expect(next.status_history).toEqual([
      expect.objectContaining({ from: null, to: 'pending_payment', source: 'renewal' }),
    ]);
    const old = (await o.api.get(`/policies/${pol.uuid}`, { token: o.tokens.staff })).body.data;
    expect(old).toMatchObject({
      status: 'active',
      renewed_by: { uuid: next.uuid, policy_no: next.policy_no, status: 'pending_payment' },
    });
    // Vehicles and premium items copied with the renewal basics.
    const row = await policyRow(o, next.uuid);
    const oldRow = await policyRow(o, pol.uuid);
    expect(row.renewalOfId).toBe(oldRow.id);
    expect(row.riskNote).toBe(next.policy_no.replace(/^MTR-/, 'RN-'));
    expect(row.vehicles.map((v) => v.regNo)).toEqual(oldRow.vehicles.map((v) => v.regNo));
    expect(
      row.premiumItems.map((i) => [
        Number(i.annualBasicMinor),
        i.fromDate.toISOString().slice(0, 10),
        i.toDate.toISOString().slice(0, 10),
      ]),
    ).toEqual([[q.vehicles[0].renewal_annual_basic_minor, q.start_date, q.end_date]]);
    const stored = await t.db.tenant(o.org.id, (tx) => tx.renewalQuote.findUniqueOrThrow({ where: { uuid: q.uuid } }));
    expect(stored).toMatchObject({ status: 'bound', newPolicyId: row.id });
  });

  it('refuses a second renewal: 409 invalid_state for the bound quote, a new quote or a second bind', async () => {
    const before = await counts();
    expectProblem(
      await renew(pol.uuid, { renewal_quote_uuid: q.uuid, premium: q.renewal.total }),
      409,
      'invalid_state',
    );
    expectProblem(await quote(pol.uuid), 409, 'invalid_state');
    expect(await counts()).toEqual(before);
  });

  it('409 price_changed when the rates moved since the quote; a fresh quote binds', async () => {
    const p = await o.activePolicy();
    const stale = (await quote(p.uuid)).body.data;
    await raiseRates(25);
    const before = await counts();
    expectProblem(
      await renew(p.uuid, { renewal_quote_uuid: stale.uuid, premium: stale.renewal.total }),
      409,
      'price_changed',
    );
    expect(await counts()).toEqual(before);
    const fresh = (await quote(p.uuid)).body.data;
    expect(fresh.product_version).toBeGreaterThan(stale.product_version);
    expect(fresh.renewal.total_minor).toBeGreaterThan(stale.renewal.total_minor);
    const r = await renew(p.uuid, { renewal_quote_uuid: fresh.uuid, premium: fresh.renewal.total });
    expect(r.status, r.text).toBe(201);
    // The stale quote is not bound, and cannot be now.
    expectProblem(
      await renew(p.uuid, { renewal_quote_uuid: stale.uuid, premium: stale.renewal.total }),
      409,
      'invalid_state',
    );
  });

  it('409 preview_stale when the policy changed (a confirmed endorsement bumps its revision) since the quote', async () => {
    const p = await o.activePolicy();
    const q = (await quote(p.uuid)).body.data;
    await t.db.tenant(o.org.id, (tx) =>
      tx.policy.update({ where: { uuid: p.uuid }, data: { revision: { increment: 1 } } }),
    );
    const before = await counts();
    expectProblem(await renew(p.uuid, { renewal_quote_uuid: q.uuid, premium: q.renewal.total }), 409, 'preview_stale');
    expect(await counts()).toEqual(before);
  });

  it('409 preview_expired for a quote past its validity; the lifecycle run marks it expired', async () => {
    const p = await o.activePolicy();
    const old = (await quote(p.uuid)).body.data;
    await t.db.tenant(o.org.id, (tx) =>
      tx.renewalQuote.update({ where: { uuid: old.uuid }, data: { validUntil: toDbDate(addDays(TODAY, -1)) } }),
    );
    expectProblem(
      await renew(p.uuid, { renewal_quote_uuid: old.uuid, premium: old.renewal.total }),
      409,
      'preview_expired',
    );
    const c = await runLifecycle(t.app.services, TODAY);
    expect(c.renewalQuotesExpired).toBeGreaterThanOrEqual(1);
    expect(
      (await t.db.tenant(o.org.id, (tx) => tx.renewalQuote.findUniqueOrThrow({ where: { uuid: old.uuid } }))).status,
    ).toBe('expired');
    expectProblem(
      await renew(p.uuid, { renewal_quote_uuid: old.uuid, premium: old.renewal.total }),
      409,
      'preview_expired',
    );
  });
});

describe('GET /policies/renewals-due and policy.renewal_due', () => {
  let soon: any;
  let later: any;
  let agentSoon: any;
  const endIn = (org: Org, uuid: string, days: number) => {
    const end = addDays(TODAY, days);
    return t.db.tenant(org.org.id, (tx) =>
      tx.policy.update({ where: { uuid }, data: { endDate: toDbDate(end), startDate: toDbDate(addDays(end, -364)) } }),
    );
  };
  beforeAll(async () => {
    soon = await o.activePolicy();
    later = await o.activePolicy();
    agentSoon = await o.activePolicy({ token: o.tokens.agent });
    await endIn(o, soon.uuid, 10);
    await endIn(o, later.uuid, 60);
    await endIn(o, agentSoon.uuid, 12);
  });
  const due = async (query = '', token = o.tokens.staff, headers?: Record<string, string>) => {
    const r = await o.api.get(`/policies/renewals-due${query}`, { token, headers });
    expect(r.status, r.text).toBe(200);
    return r.body.data.map((p: any) => p.policy_no) as string[];
  };

  it('lists visible active policies ending within the window, soonest first, without a renewal', async () => {
    expect(await due()).toEqual([soon.policy_no, agentSoon.policy_no]);
    expect(await due('?within_days=90')).toEqual(
      expect.arrayContaining([soon.policy_no, agentSoon.policy_no, later.policy_no]),
    );
    expect(await due('?within_days=5')).toEqual([]);
    // Agent 1 sees its own; agent 2 neither; the other organisation none of these.
    expect(await due('', o.tokens.agent)).toEqual([agentSoon.policy_no]);
    expect(await due('', asAgent2.token, asAgent2.headers)).toEqual([]);
    expect(await due('?within_days=120', other.tokens.staff)).toEqual([]);
    // Cursor pagination.
    const r = await o.api.get('/policies/renewals-due?limit=1', { token: o.tokens.staff });
    expect(r.body.meta).toMatchObject({ limit: 1, has_more: true, count: 1 });
    const page2 = await o.api.get(r.body.links.next.replace(/^\/api\/v1/, ''), { token: o.tokens.staff });
    expect(page2.body.data.map((p: any) => p.policy_no)).toEqual([agentSoon.policy_no]);
    expectProblem(
      await o.api.get('/policies/renewals-due?within_days=121', { token: o.tokens.staff }),
      422,
      'validation_failed',
    );
    expectProblem(
      await o.api.get('/policies/renewals-due?within_days=soon', { token: o.tokens.staff }),
      422,
      'validation_failed',
    );
  });

  it('sends policy.renewal_due once per policy', async () => {
    await runLifecycle(t.app.services, TODAY);
    await runLifecycle(t.app.services, TODAY);
    const events = await t.db.tenant(o.org.id, (tx) => tx.event.findMany({ where: { name: 'policy.renewal_due' } }));
    const of = (uuid: string) => events.filter((e) => (e.data as any).policy_uuid === uuid).map((e) => e.data as any);
    expect(of(soon.uuid)).toHaveLength(1);
    expect(of(soon.uuid)[0]).toMatchObject({
      policy_no: soon.policy_no,
      end_date: addDays(TODAY, 10),
      days_to_expiry: 10,
      insurer: 'Simba General',
      premium: { amount_minor: Number(soon.premium.total_minor) },
    });
    expect(of(agentSoon.uuid)).toHaveLength(1);
    expect(of(later.uuid)).toHaveLength(0);
    expect((await policyRow(o, soon.uuid)).renewalNoticeAt).not.toBeNull();
  });

  it('a renewed policy leaves the list', async () => {
    const q = (await quote(soon.uuid)).body.data;
    expect((await renew(soon.uuid, { renewal_quote_uuid: q.uuid, premium: q.renewal.total })).status).toBe(201);
    expect(await due()).toEqual([agentSoon.policy_no]);
  });
});

describe('visibility', () => {
  it("404 not_found for another organisation's policy and for an agent outside reach", async () => {
    const mine = await o.activePolicy();
    const agent1 = await o.activePolicy({ token: o.tokens.agent });
    const theirs = await other.activePolicy();
    const theirQuote = (
      await other.api.post(`/policies/${theirs.uuid}/renewal-quote`, {
        token: other.tokens.staff,
        idempotencyKey: randomUUID(),
        body: {},
      })
    ).body.data;
    const before = await counts();
    expectProblem(await quote(theirs.uuid), 404, 'not_found');
    expectProblem(
      await renew(theirs.uuid, { renewal_quote_uuid: theirQuote.uuid, premium: theirQuote.renewal.total }),
      404,
      'not_found',
    );
    expectProblem(await quote(mine.uuid, {}, o.tokens.agent), 404, 'not_found'); // staff's, to agent 1
    expectProblem(await quote(agent1.uuid, {}, asAgent2.token, asAgent2.headers), 404, 'not_found'); // agent 1's, to agent 2
    expectProblem(await quote(randomUUID()), 404, 'not_found');
    expectProblem(await quote('renewals-due'), 404, 'not_found');
    // A quote of one policy cannot bind another.
    const mq = (await quote(mine.uuid)).body.data;
    const aq = (await quote(agent1.uuid, {}, o.tokens.agent)).body.data;
    expect(aq.uuid).toEqual(expect.any(String));
    expectProblem(
      await renew(agent1.uuid, { renewal_quote_uuid: mq.uuid, premium: mq.renewal.total }),
      404,
      'not_found',
    );
    expectProblem(
      await renew(
        agent1.uuid,
        { renewal_quote_uuid: aq.uuid, premium: aq.renewal.total },
        asAgent2.token,
        asAgent2.headers,
      ),
      404,
      'not_found',
    );
    expect(await counts()).toEqual(before);
    // The agent renews its own.
    expect(
      (await renew(agent1.uuid, { renewal_quote_uuid: aq.uuid, premium: aq.renewal.total }, o.tokens.agent)).status,
    ).toBe(201);
  });

  it('the read-only client cannot quote or renew (scope bind)', async () => {
    const mine = await o.activePolicy();
    expectProblem(await quote(mine.uuid, {}, o.tokens.readonly), 403, 'insufficient_scope');
  });
});

describe('GraphQL parity', () => {
  const Q = `mutation($u: String!, $v: [RenewalVehicleInput!]) { renewalQuote(policyUuid: $u, vehicles: $v) {
    __typename ... on Problem { code status }
    ... on RenewalQuote { uuid quoteStatus: status startDate endDate validUntil productVersion total { amountMinor } basicPremium { amountMinor } taxes { amountMinor }
      change { amountMinor } previous { total { amountMinor } } levies { code amount { amountMinor } } vehicles { regNo renewalAnnualBasic { amountMinor } previousAnnualBasic { amountMinor } }
      instalmentOptions { parts amounts { amountMinor } } policy { uuid } } } }`;
  const R = `mutation($u: String!, $i: RenewPolicyInput!) { renewPolicy(policyUuid: $u, input: $i) {
    __typename ... on Problem { code status } ... on PremiumMismatchProblem { server { total { amountMinor } } }
    ... on RenewedPolicy { policy { uuid policyNo status renewalOf { uuid } statusHistory { toStatus source } } } } }`;
  const gql = (
    query: string,
    variables: Record<string, unknown>,
    token = o.tokens.staff,
    headers?: Record<string, string>,
  ) => o.api.gql(query, variables, { token, headers });

  it('renewalQuote, renewPolicy, Policy.renewalQuotes and renewalsDue', async () => {
    const p = await o.activePolicy();
    const rq = await gql(Q, { u: p.uuid });
    expect(rq.body.errors).toBeUndefined();
    const q = rq.body.data.renewalQuote;
    expect(q).toMatchObject({
      __typename: 'RenewalQuote',
      quoteStatus: 'quoted',
      startDate: addDays(p.end_date, 1),
      policy: { uuid: p.uuid },
    });
    const now = await currentPrice();
    expect(String(q.total.amountMinor)).toBe(String(now.total_minor));
    expect(BigInt(q.change.amountMinor)).toBe(BigInt(q.total.amountMinor) - BigInt(q.previous.total.amountMinor));

    const mismatch = await gql(R, {
      u: p.uuid,
      i: { renewalQuoteUuid: q.uuid, premium: Number(BigInt(q.total.amountMinor) / 100n) + 5 },
    });
    expect(mismatch.body.data.renewPolicy).toMatchObject({
      __typename: 'PremiumMismatchProblem',
      code: 'premium_mismatch',
      status: 422,
    });

    const ok = await gql(R, {
      u: p.uuid,
      i: { renewalQuoteUuid: q.uuid, premium: Math.round(Number(q.total.amountMinor) / 100) },
    });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.renewPolicy).toMatchObject({
      __typename: 'RenewedPolicy',
      policy: {
        status: 'pending_payment',
        renewalOf: { uuid: p.uuid },
        statusHistory: [{ toStatus: 'pending_payment', source: 'renewal' }],
      },
    });
    const again = await gql(R, {
      u: p.uuid,
      i: { renewalQuoteUuid: q.uuid, premium: Math.round(Number(q.total.amountMinor) / 100) },
    });
    expect(again.body.data.renewPolicy).toMatchObject({
      __typename: 'InvalidStateProblem',
      code: 'invalid_state',
      status: 409,
    });
    const state = await gql(Q, { u: p.uuid });
    expect(state.body.data.renewalQuote).toMatchObject({ __typename: 'InvalidStateProblem', code: 'invalid_state' });

    const list = await gql(
      `query($u: String!) { policy(uuid: $u) { renewalQuotes { uuid status newPolicy { uuid } } } }`,
      { u: p.uuid },
    );
    expect(list.body.data.policy.renewalQuotes).toEqual([
      { uuid: q.uuid, status: 'bound', newPolicy: { uuid: ok.body.data.renewPolicy.policy.uuid } },
    ]);

    const hidden = await gql(Q, { u: p.uuid }, other.tokens.staff);
    expect(hidden.body.errors?.[0]?.extensions?.code).toBe('not_found');

    const dueQ = await gql(`{ renewalsDue(withinDays: 120) { edges { node { uuid } } } }`, {});
    expect(dueQ.body.errors).toBeUndefined();
    const dueBad = await gql(`{ renewalsDue(withinDays: 500) { edges { node { uuid } } } }`, {});
    expect(dueBad.body.errors?.[0]?.extensions?.code).toBe('validation_failed');
  });
});

describe('a renewal never taken up', () => {
  it('releases the policy it renews, which can be quoted and renewed again', async () => {
    const pol = await o.activePolicy();
    const q1 = (await quote(pol.uuid)).body.data;
    const r1 = await renew(pol.uuid, { renewal_quote_uuid: q1.uuid, premium: q1.renewal.total });
    expect(r1.status, r1.text).toBe(201);
    expectProblem(await quote(pol.uuid), 409, 'invalid_state');

    // The renewal's window is moved, not the day judged: it was bound, and was to start, notTakenUpDays + 1 days
    // ago. A run on today then moves it alone; the other policies of this file keep their state.
    const lapsedStart = addDays(TODAY, -POLICY_RULES.notTakenUpDays - 1);
    await t.db.tenant(o.org.id, (tx) =>
      tx.policy.update({
        where: { uuid: r1.body.data.uuid },
        data: {
          startDate: toDbDate(lapsedStart),
          endDate: toDbDate(annualEnd(lapsedStart)),
          createdAt: new Date(`${lapsedStart}T09:00:00+03:00`),
        },
      }),
    );
    await runLifecycle(t.app.services, TODAY);
    const ntu = (await o.api.get(`/policies/${r1.body.data.uuid}`, { token: o.tokens.staff })).body.data;
    expect(ntu).toMatchObject({ status: 'not_taken_up', renewal_of: null });
    expect(ntu.status_history.at(-1)).toMatchObject({
      from: 'pending_payment',
      to: 'not_taken_up',
      source: 'schedule',
      reason: expect.stringContaining('the policy it renewed is released'),
    });
    const old = (await o.api.get(`/policies/${pol.uuid}`, { token: o.tokens.staff })).body.data;
    expect(old.renewed_by).toBeNull();

    const q2 = await quote(pol.uuid);
    expect(q2.status, q2.text).toBe(201);
    const r2 = await renew(pol.uuid, { renewal_quote_uuid: q2.body.data.uuid, premium: q2.body.data.renewal.total });
    expect(r2.status, r2.text).toBe(201);
    expect(r2.body.data.renewal_of).toEqual({ uuid: pol.uuid, policy_no: pol.policy_no });
  });
});
