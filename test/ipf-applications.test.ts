import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decideApplication } from '../src/modules/finance/application/decide.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, type Org } from './kit.ts';
import { ipfPolicy, signedLoan } from './kit/ipf.ts';
import {
  applicationBody,
  apply,
  command,
  decided,
  decidedApplication,
  JAMII,
  lenderId,
  postApplication,
  readApplication,
} from './kit/ipf-application.ts';

/**
 * Premium-finance applications (docs/premium-finance.md "Premium finance: applications, decision and signing"): creation and its
 * rules, the lender's decision through the real ipf.decide job (approved, and declined for each of the simulated
 * lender's reasons), cancellation, and every refused move. Signing is test/ipf-applications-signing.test.ts.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, lenders, other] = t.useOrgs(3, { fast: true });
const sacco = t.useOrg({ type: 'sacco', tokens: ['staff'] });
const microfinance = t.useOrg({ type: 'microfinance', tokens: ['staff'] });

const row = (org: Org, uuid: string) =>
  t.db.tenant(org.id, (tx) => tx.ipfApplication.findUniqueOrThrow({ where: { uuid } }));

describe('creating an application', () => {
  it('prices the offer now: figures, a planned schedule from today summing to the total, KYC partly shown', async () => {
    const pol = await ipfPolicy(o);
    const a = await apply(o, pol);
    expect(a).toMatchObject({ status: 'draft', tenor_months: 4, lender: { name: 'Mkopo Premium Finance' } });
    expect(a.application_no).toMatch(/^IPFA-2026-\d{6}$/);
    expect(a.policy).toEqual({ uuid: pol.uuid, policy_no: pol.policy_no });
    // The whole gross premium is financed; Mkopo charges 2.20 % for 4 months (half away from zero to the cent).
    const premium = BigInt(pol.premium.total_minor);
    expect(BigInt(a.premium_minor)).toBe(premium);
    expect(BigInt(a.charge_minor)).toBe((premium * 220n + 5_000n) / 10_000n);
    expect(a.total_repayable_minor).toBe(a.premium_minor + a.charge_minor);
    expect(a.apr_bps).toBe(660); // 220 × 12 ÷ 4
    expect(a.schedule.map((l: any) => l.due_on)).toEqual(['2026-06-15', '2026-07-15', '2026-08-15', '2026-09-15']);
    expect(a.schedule.reduce((s: number, l: any) => s + l.amount_minor, 0)).toBe(a.total_repayable_minor);
    expect(a.schedule[0].amount_minor).toBe(a.deposit_minor);
    expect(a.schedule[1].amount_minor).toBe(a.instalment_minor);
    expect(a.instalment_minor % 100).toBe(0); // payments after the deposit are whole shillings
    expect(a.kyc).toMatchObject({ kra_pin: 'A******331M', income_band: '100k_250k' });
    expect(a.kyc.id_number).toMatch(/^\*+\d{4}$/);
    expect(Date.parse(a.expires_at) - Date.parse(a.kyc.consent_at)).toBe(14 * 86_400_000);
    expect(a).toMatchObject({ decision: null, agreement_sha256: null, loan: null, history: [] });
    const stored = await row(o, a.uuid);
    expect(stored.idNumber).not.toContain('*'); // the lender gets it in full
    expect(stored.ratingVersion).toBe(a.rating_version);
  });

  it('accepts a policy number, the legacy idno and pin spellings and a lower-case PIN', async () => {
    const pol = await ipfPolicy(o);
    const { policy_uuid: _u, id_number, kra_pin: _p, ...body } = await applicationBody(o, pol);
    const r = await postApplication(o, { ...body, policy_no: pol.policy_no, idno: id_number, pin: 'a004416331m' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.kyc.kra_pin).toBe('A******331M');
  });

  it('refuses each field by name and each finance rule under errors.ipf; a refusal takes no number', async () => {
    const pol = await ipfPolicy(o);
    const body = await applicationBody(o, pol);
    const refused = async (extra: Record<string, unknown>, field: string) =>
      expectProblem(await postApplication(o, { ...body, ...extra }), 422, 'validation_failed', field);
    await refused({ tenor_months: 2 }, 'tenor_months');
    await refused({ tenor_months: 11 }, 'tenor_months');
    await refused({ tenor_months: 5 }, 'tenor_months'); // within 3–10, but Mkopo offers 4, 6 and 10
    await refused({ kra_pin: 'B123' }, 'kra_pin');
    await refused({ id_number: '12' }, 'id_number');
    await refused({ id_number: '99887766' }, 'id_number'); // not the policyholder's
    await refused({ income_band: 'millions' }, 'income_band');
    await refused({ consent: false }, 'consent');
    await refused({ lender_id: 987654 }, 'lender_id');
    await refused({ policy_uuid: randomUUID() }, 'policy_uuid');
    await refused({ policy_uuid: 'not-a-uuid' }, 'policy_uuid');
    const full = await o.pendingPolicy();
    const r = await postApplication(o, await applicationBody(o, full));
    expectProblem(r, 422, 'validation_failed', 'ipf');
    expect(r.body.errors[0].message).toMatch(/payment_mode ipf/);
    const missing = await postApplication(o, { policy_uuid: pol.uuid });
    expectProblem(missing, 422, 'validation_failed');
    expect(missing.body.errors.map((e: any) => e.field)).toEqual(
      expect.arrayContaining(['lender_id', 'tenor_months', 'id_number', 'kra_pin', 'income_band', 'consent']),
    );
    const a = await apply(o, pol);
    const b = await apply(o, await ipfPolicy(o));
    expect(Number(b.application_no.slice(-6))).toBe(Number(a.application_no.slice(-6)) + 1);
  });

  it('holds one live application per policy (409 invalid_state); a cancelled one frees it', async () => {
    const pol = await ipfPolicy(o);
    const first = await apply(o, pol);
    const again = await postApplication(o, await applicationBody(o, pol));
    expectProblem(again, 409, 'invalid_state');
    expect(again.body.detail).toContain(first.application_no);
    expect((await command(o, first.uuid, 'cancel', { reason: 'wrong tenor' })).status).toBe(200);
    expect((await apply(o, pol, { tenor_months: 6 })).status).toBe('draft');
  });

  it('replays a create with the same Idempotency-Key: one application, the same answer', async () => {
    const pol = await ipfPolicy(o);
    const body = await applicationBody(o, pol);
    const key = randomUUID();
    const first = await o.api.post('/ipf/applications', { token: o.tokens.staff, body, idempotencyKey: key });
    const replay = await o.api.post('/ipf/applications', { token: o.tokens.staff, body, idempotencyKey: key });
    expect(first.status, first.text).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const count = await t.db.tenant(o.id, (tx) => tx.ipfApplication.count({ where: { policy: { uuid: pol.uuid } } }));
    expect(count).toBe(1);
  });

  it('prices with the lender the caller names (Jamii over 3 months, its own charge)', async () => {
    const pol = await ipfPolicy(o);
    const a = await apply(o, pol, { lender_id: await lenderId(o, JAMII), tenor_months: 3 });
    expect(a.lender.name).toBe(JAMII);
    expect(BigInt(a.charge_minor)).toBe((BigInt(a.premium_minor) * 190n + 5_000n) / 10_000n);
    expect(a.apr_bps).toBe(760); // 190 × 12 ÷ 3
  });
});

describe("the lender's decision (ipf.decide job, simulated lender)", () => {
  it('approves: history, the lender call confirmed, ipf.decided; a repeated job changes nothing', async () => {
    const pol = await ipfPolicy(o);
    const a = await apply(o, pol);
    const s = await command(o, a.uuid, 'submit');
    expect(s.status, s.text).toBe(200);
    expect(s.body.data.status).toBe('submitted');
    const d = await decided(o, a.uuid);
    expect(d.status).toBe('approved');
    expect(d.decision).toMatchObject({ reasons: [], lender_ref: expect.stringMatching(/^LND-/) });
    expect(d.history.map((h: any) => [h.from, h.to, h.by])).toEqual([
      ['draft', 'submitted', 'Wanjiku Kamau'],
      ['submitted', 'approved', 'lender'],
    ]);
    const calls = await t.db.tenant(o.id, (tx) =>
      tx.ipfLenderCall.findMany({ where: { application: { uuid: a.uuid } } }),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ kind: 'decision', status: 'confirmed', attempts: 1 });
    // The lender serves every organisation: our reference carries the organisation (application numbers restart in each).
    expect(calls[0].request).toMatchObject({
      reference: `${o.code}/${a.application_no}`,
      application_no: a.application_no,
      existing_arrears: false,
      tenor_months: 4,
    });
    const events = () =>
      t.db.tenant(o.id, (tx) =>
        tx.event.findMany({ where: { name: 'ipf.decided', data: { path: ['application_uuid'], equals: a.uuid } } }),
      );
    const [ev] = await events();
    expect(ev.data).toMatchObject({
      application_no: a.application_no,
      loan_no: null,
      policy_uuid: pol.uuid,
      client_no: pol.client_no,
      lender: 'Mkopo Premium Finance',
      decision: 'approved',
      reasons: [],
      premium: { amount_minor: a.premium_minor },
      total_repayable: { amount_minor: a.total_repayable_minor },
    });
    expect(await decideApplication(t.app.services, calls[0].applicationId!)).toBe('skipped');
    expect(await events()).toHaveLength(1);
    expect((await readApplication(o, a.uuid)).history).toHaveLength(2);
  });

  it('declines an unaffordable loan: the largest payment over 30 % of the declared income band', async () => {
    const d = await decidedApplication(o, await ipfPolicy(o), { income_band: 'below_20k' });
    expect(d.status).toBe('declined');
    expect(d.decision.reasons).toEqual([{ code: 'unaffordable', message: expect.stringContaining('KES 10,000') }]);
    expect(d.history.at(-1)).toMatchObject({ from: 'submitted', to: 'declined', by: 'lender', reason: 'unaffordable' });
    const ev = await t.db.tenant(o.id, (tx) =>
      tx.event.findFirst({ where: { name: 'ipf.decided', data: { path: ['application_uuid'], equals: d.uuid } } }),
    );
    expect(ev?.data).toMatchObject({ decision: 'declined', reasons: [{ code: 'unaffordable' }] });
  });

  it('declines for existing arrears: a defaulted loan, or an active one with a payment past due', async () => {
    const defaulted = await signedLoan(o);
    await t.db.tenant(o.id, (tx) =>
      tx.ipfLoan.update({ where: { id: defaulted.loan.id }, data: { status: 'defaulted' } }),
    );
    const pol = await ipfPolicy(o, { client: { client_no: defaulted.policy.client_no } });
    const d = await decidedApplication(o, pol);
    expect(d.status).toBe('declined');
    expect(d.decision.reasons.map((r: any) => r.code)).toEqual(['existing_arrears']);

    // Signed in April: the deposit, May and June payments are past due and unpaid.
    const behind = await signedLoan(o, { signedOn: '2026-04-01' });
    await t.db.tenant(o.id, (tx) => tx.ipfLoan.update({ where: { id: behind.loan.id }, data: { status: 'active' } }));
    const late = await decidedApplication(o, await ipfPolicy(o, { client: { client_no: behind.policy.client_no } }));
    expect(late.decision.reasons.map((r: any) => r.code)).toEqual(['existing_arrears']);

    // Paid up to date (the payment due today is not past due): no arrears.
    await t.db.tenant(o.id, async (tx) => {
      for (const i of behind.loan.instalments.filter((x) => x.dueOn.toISOString().slice(0, 10) < TODAY))
        await tx.ipfInstalment.update({
          where: { loanId_seq: { loanId: behind.loan.id, seq: i.seq } },
          data: { paidMinor: i.amountMinor },
        });
    });
    const clear = await decidedApplication(o, await ipfPolicy(o, { client: { client_no: behind.policy.client_no } }));
    expect(clear.status).toBe('approved');
  });

  it("declines a premium outside the lender's bounds as the panel records them at decision time", async () => {
    const mkopo = await lenderId(lenders);
    const setLender = (data: { minPremiumMinor?: bigint; maxPremiumMinor?: bigint | null }) =>
      t.db.tenant(lenders.id, (tx) => tx.ipfLender.update({ where: { id: mkopo }, data }));
    const below = await apply(lenders, await ipfPolicy(lenders));
    await setLender({ minPremiumMinor: BigInt(below.premium_minor) + 1n });
    try {
      expect((await command(lenders, below.uuid, 'submit')).status).toBe(200);
      const d = await decided(lenders, below.uuid);
      expect(d.decision.reasons).toEqual([{ code: 'premium_below_minimum', message: expect.any(String) }]);
      // And at creation: the offer cannot be priced, the reason under errors.ipf.
      const r = await postApplication(lenders, await applicationBody(lenders, await ipfPolicy(lenders)));
      expectProblem(r, 422, 'validation_failed', 'ipf');
      expect(r.body.errors[0].message).toMatch(/finances premiums from KES/);
    } finally {
      await setLender({ minPremiumMinor: 2_500_000n });
    }
    const above = await apply(lenders, await ipfPolicy(lenders));
    await setLender({ maxPremiumMinor: BigInt(above.premium_minor) - 1n });
    try {
      expect((await command(lenders, above.uuid, 'submit')).status).toBe(200);
      const d = await decided(lenders, above.uuid);
      expect(d.decision.reasons.map((r: any) => r.code)).toEqual(['premium_above_maximum']);
    } finally {
      await setLender({ maxPremiumMinor: null });
    }
  });

  it('takes up a call whose answer was lost with its very request, and applies the answer once', async () => {
    const a = await apply(o, await ipfPolicy(o));
    const { id } = await row(o, a.uuid);
    // Submitted without a job (the test is the job): the sweep would only look after 30 s.
    await t.db.tenant(o.id, (tx) => tx.ipfApplication.update({ where: { id }, data: { status: 'submitted' } }));
    const rail = t.app.services.lender!.rail;
    const decide = rail.decide.bind(rail);
    const asked: unknown[] = [];
    rail.decide = (req) => {
      asked.push(req);
      return asked.length === 1 ? Promise.reject(new Error('connection reset')) : decide(req);
    };
    try {
      await expect(decideApplication(t.app.services, id)).rejects.toThrow('connection reset');
      expect((await readApplication(o, a.uuid)).status).toBe('submitted');
      expect(await decideApplication(t.app.services, id)).toBe('approved');
    } finally {
      rail.decide = decide;
    }
    expect(asked[1]).toEqual(asked[0]);
    const calls = await t.db.tenant(o.id, (tx) => tx.ipfLenderCall.findMany({ where: { applicationId: id } }));
    expect(calls).toMatchObject([{ status: 'confirmed', attempts: 2 }]);
    expect(await decideApplication(t.app.services, id)).toBe('skipped');
  });
});

describe('cancelling, and the moves the state machine refuses', () => {
  it('cancels a draft, a submitted and an approved application with the reason; a late decision changes nothing', async () => {
    const draft = await apply(o, await ipfPolicy(o));
    const c = await command(o, draft.uuid, 'cancel', { reason: 'client changed their mind' });
    expect(c.status, c.text).toBe(200);
    expect(c.body.data).toMatchObject({ status: 'cancelled', closed_reason: 'client changed their mind' });
    expect(c.body.data.history).toEqual([
      expect.objectContaining({ from: 'draft', to: 'cancelled', by: 'Wanjiku Kamau' }),
    ]);

    const sub = await apply(o, await ipfPolicy(o));
    const { id } = await row(o, sub.uuid);
    await t.db.tenant(o.id, (tx) => tx.ipfApplication.update({ where: { id }, data: { status: 'submitted' } }));
    expect((await command(o, sub.uuid, 'cancel', { reason: 'paying cash' })).body.data.status).toBe('cancelled');
    expect(await decideApplication(t.app.services, id)).toBe('skipped');
    expect((await readApplication(o, sub.uuid)).status).toBe('cancelled');

    const approved = await decidedApplication(o, await ipfPolicy(o));
    expect(approved.status).toBe('approved');
    expect((await command(o, approved.uuid, 'cancel', { reason: 'other lender' })).body.data.status).toBe('cancelled');
  });

  it('cancels a signed application and its loan while no money came in; refuses once any did', async () => {
    const unpaid = await signedLoan(o);
    const r = await command(o, unpaid.application.uuid, 'cancel', { reason: 'deposit not coming' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.status).toBe('cancelled');
    expect(r.body.data.loan).toMatchObject({ loan_no: unpaid.loan.loanNo, status: 'cancelled' });
    const history = await t.db.tenant(o.id, (tx) =>
      tx.ipfStateHistory.findMany({ where: { entity: 'loan', entityId: unpaid.loan.id } }),
    );
    expect(history).toMatchObject([{ fromStatus: 'awaiting_deposit', toStatus: 'cancelled' }]);

    const paid = await signedLoan(o);
    await t.db.tenant(o.id, (tx) =>
      tx.ipfInstalment.update({
        where: { loanId_seq: { loanId: paid.loan.id, seq: 1 } },
        data: { paidMinor: 10_000n },
      }),
    );
    const refused = await command(o, paid.application.uuid, 'cancel', { reason: 'too late' });
    expectProblem(refused, 409, 'invalid_state');
    expect(refused.body.detail).toMatch(/received money/);
    expect((await readApplication(o, paid.application.uuid)).status).toBe('signed');
  });

  it('refuses what the machine does not list: 409 invalid_state with the allowed moves', async () => {
    const declined = await decidedApplication(o, await ipfPolicy(o), { income_band: 'below_20k' });
    expect(declined.status).toBe('declined');
    const approved = await decidedApplication(o, await ipfPolicy(o));
    const draft = await apply(o, await ipfPolicy(o));
    const submitted = await apply(o, await ipfPolicy(o));
    await t.db.tenant(o.id, (tx) =>
      tx.ipfApplication.update({ where: { uuid: submitted.uuid }, data: { status: 'submitted' } }),
    );
    const refusals: [string, string, Record<string, unknown>, string[]][] = [
      [declined.uuid, 'submit', {}, []],
      [declined.uuid, 'cancel', { reason: 'x' }, []],
      [declined.uuid, 'signing-code', {}, []],
      [declined.uuid, 'sign', { code: '123456' }, []],
      [approved.uuid, 'submit', {}, ['signed', 'cancelled', 'expired']],
      [draft.uuid, 'signing-code', {}, ['submitted', 'cancelled', 'expired']],
      [draft.uuid, 'sign', { code: '123456' }, ['submitted', 'cancelled', 'expired']],
      [submitted.uuid, 'submit', {}, ['approved', 'declined', 'cancelled']],
      [submitted.uuid, 'signing-code', {}, ['approved', 'declined', 'cancelled']],
    ];
    for (const [uuid, verb, body, allowed] of refusals) {
      const r = await command(o, uuid, verb, body);
      expectProblem(r, 409, 'invalid_state');
      expect(r.body.allowed, `${verb} on ${uuid}`).toEqual(allowed);
    }
    const cancelled = await apply(o, await ipfPolicy(o));
    await command(o, cancelled.uuid, 'cancel', { reason: 'x' });
    expect((await command(o, cancelled.uuid, 'cancel', { reason: 'again' })).status).toBe(409);
    expectProblem(await command(o, cancelled.uuid, 'cancel', {}), 422, 'validation_failed', 'reason');
  });

  it("judges a cancellation's body only once the application is found: unknown, or another organisation's, is 404 (outside check)", async () => {
    const theirs = await apply(lenders, await ipfPolicy(lenders));
    for (const uuid of [randomUUID(), theirs.uuid]) {
      for (const body of [{}, { reason: '' }, { reason: 'fine' }])
        expectProblem(await command(o, uuid, 'cancel', body), 404, 'not_found');
      const g = await o
        .as('staff')
        .gql('mutation($i: CancelIpfApplicationInput!) { cancelIpfApplication(input: $i) { __typename } }', {
          i: { uuid, reason: '' },
        });
      expect(g.body.errors?.[0]?.extensions?.code, JSON.stringify(g.body)).toBe('not_found');
    }
    expect((await readApplication(lenders, theirs.uuid)).status).toBe('draft');
  });
});

describe('who may see and act', () => {
  it('answers a SACCO and a microfinance organisation 403 ipf_not_offered on every path, REST and GraphQL', async () => {
    const uuid = randomUUID();
    for (const org of [sacco, microfinance]) {
      const as = org.as('staff');
      const key = { idempotencyKey: randomUUID() };
      const rest = [
        await as.get('/ipf/applications'),
        await as.get(`/ipf/applications/${uuid}`),
        await as.get(`/ipf/applications/${uuid}/agreement`),
        await as.post('/ipf/applications', { body: { policy_uuid: uuid }, ...key }),
        ...(await Promise.all(
          ['submit', 'cancel', 'signing-code', 'sign'].map((v) =>
            as.post(`/ipf/applications/${uuid}/${v}`, {
              body: { reason: 'x', code: '123456' },
              idempotencyKey: randomUUID(),
            }),
          ),
        )),
      ];
      for (const r of rest) expectProblem(r, 403, 'ipf_not_offered');
      const gql = await as.gql(
        `query($u: String!) { a: ipfApplications { edges { node { uuid } } } b: ipfApplication(uuid: $u) { uuid } }`,
        { u: uuid },
      );
      expect(gql.body.errors?.map((e: any) => e.extensions.code)).toEqual(['ipf_not_offered', 'ipf_not_offered']);
      const create = await as.gql(
        `mutation($i: CreateIpfApplicationInput!) { createIpfApplication(input: $i) { __typename } }`,
        {
          i: {
            policyUuid: uuid,
            lenderId: 1,
            tenorMonths: 4,
            idNumber: '12345678',
            kraPin: 'A004416331M',
            incomeBand: 'below_20k',
            consent: true,
          },
        },
      );
      expect(create.body.errors?.[0].extensions.code).toBe('ipf_not_offered');
    }
  });

  it('an agent sees only the applications of policies within their reach; another organisation sees none', async () => {
    const pol = await ipfPolicy(o, { token: o.tokens.agent });
    const mine = await apply(o, pol, {}, o.tokens.agent);
    expect((await readApplication(o, mine.uuid, o.tokens.agent)).uuid).toBe(mine.uuid);
    const agent2 = o.as('staff', { agent: 2 });
    expectProblem(await agent2.get(`/ipf/applications/${mine.uuid}`), 404, 'not_found');
    expectProblem(await agent2.get(`/ipf/applications/${mine.uuid}/agreement`), 404, 'not_found');
    expectProblem(
      await agent2.post(`/ipf/applications/${mine.uuid}/cancel`, {
        body: { reason: 'x' },
        idempotencyKey: randomUUID(),
      }),
      404,
      'not_found',
    );
    const list = await agent2.get(`/ipf/applications?policy_uuid=${pol.uuid}`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toEqual([]);
    // The other agent cannot apply for it either: the policy is out of reach.
    const theirs = await agent2.post('/ipf/applications', {
      body: await applicationBody(o, pol),
      idempotencyKey: randomUUID(),
    });
    expectProblem(theirs, 422, 'validation_failed', 'policy_uuid');
    const { body } = await o
      .as('staff')
      .gql(`query($u: String!) { ipfApplication(uuid: $u) { id } }`, { u: mine.uuid });
    const nodeId = body.data.ipfApplication.id;
    const hidden = await agent2.gql(
      `query($u: String!, $id: ID!) { a: ipfApplication(uuid: $u) { uuid } n: node(id: $id) { id } }`,
      { u: mine.uuid, id: nodeId },
    );
    expect(hidden.body.data).toEqual({ a: null, n: null });
    expect(hidden.body.errors?.map((e: any) => e.extensions.code)).toEqual(['not_found']);
    const seen = await o.as('agent').gql(`query($id: ID!) { node(id: $id) { ... on IpfApplication { uuid } } }`, {
      id: nodeId,
    });
    expect(seen.body.data.node).toEqual({ uuid: mine.uuid });
    expectProblem(await other.as('staff').get(`/ipf/applications/${mine.uuid}`), 404, 'not_found');
    const otherList = await other.as('staff').get('/ipf/applications');
    expect(otherList.body.data).toEqual([]);
    // The readonly key reads but may not write (scope bind).
    expect((await o.as('readonly').get(`/ipf/applications/${mine.uuid}`)).status).toBe(200);
    expectProblem(
      await postApplication(o, await applicationBody(o, pol), o.tokens.readonly),
      403,
      'insufficient_scope',
    );
  });

  it('lists with filters and cursor pages', async () => {
    const pol = await ipfPolicy(o);
    const a = await apply(o, pol);
    const byPolicy = await o.as('staff').get(`/ipf/applications?policy_no=${pol.policy_no}&status=draft`);
    expect(byPolicy.body.data.map((x: any) => x.uuid)).toEqual([a.uuid]);
    const byClient = await o.as('staff').get(`/ipf/applications?client_no=${pol.client_no}&status=approved,declined`);
    expect(byClient.body.data).toEqual([]);
    const page = await o.as('staff').get(`/ipf/applications?limit=2&lender_id=${await lenderId(o)}`);
    expect(page.body.meta).toMatchObject({ limit: 2, has_more: true, count: 2 });
    const next = await o.as('staff').get(page.body.links.next.replace('/api/v1', ''));
    expect(next.status, next.text).toBe(200);
    expect(next.body.data[0].id).toBeLessThan(page.body.data[1].id);
    expectProblem(await o.as('staff').get('/ipf/applications?status=nonsense'), 422, 'validation_failed');
  });
});
