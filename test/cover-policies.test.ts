import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  activeCoverPolicy,
  clientHeaders,
  coverPolicy,
  type CoverPolicy,
  expectProblem,
  INSTANT_RAIL,
  signIn,
  TODAY,
  useKit,
  waitFor,
} from './kit.ts';

/**
 * The record and payment of medical, travel and standard policies (docs/covers.md "Non-motor policies"): the policy record
 * shows the cover product, the cover as bound and the insured instead of vehicles, on REST and GraphQL alike, within
 * the usual visibility; payment by STK push activates them, and no registry certificate is ever queued for them.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const POLICY_QUERY = `query ($uuid: String!) {
  policy(uuid: $uuid) {
    id policyNo productLine vehicleClass coverType coverPeriod
    coverProduct { databaseId code name productLine }
    coverDetails
    insured { databaseId kind name relationship age dateOfBirth inSchool idNo sumInsured { amount amountMinor } status addedOn removedOn }
    vehicles { regNo }
  }
}`;

/** Issue jobs sent for a policy, from pg-boss's own tables (queued, done or archived), over a connection of its own. */
async function issueJobs(policyId: number): Promise<number> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    const sql = (table: string) =>
      `SELECT count(*)::int AS n FROM pgboss.${table} WHERE name = 'certificates.issue' AND (data->>'policyId')::int = $1`;
    const [a, b] = await Promise.all([c.query(sql('job'), [policyId]), c.query(sql('archive'), [policyId])]);
    return a.rows[0].n + b.rows[0].n;
  } finally {
    await c.end();
  }
}

describe('the record of a medical, a travel and a standard policy', () => {
  let med: CoverPolicy;
  let trv: CoverPolicy;
  let std: CoverPolicy;
  beforeAll(async () => {
    [med, trv, std] = await Promise.all([
      coverPolicy(o, 'medical'),
      coverPolicy(o, 'travel'),
      coverPolicy(o, 'standard', { createdBy: 'agent1' }),
    ]);
  }, 60_000);

  it('REST: the cover product, the cover as bound and the insured with their ids; no class, scope or vehicles', async () => {
    const rec = await o.policy(med.uuid);
    expect(rec).toMatchObject({
      policy_no: expect.stringMatching(/^MED-2026-\d{6}$/),
      product_line: 'medical',
      class: null,
      scope: null,
      cover_period: 'annual',
      product: { id: med.productId, code: 'MEDICAL', name: expect.any(String) },
      cover: { cover_type: 'family', inpatient_limit_minor: 100_000_000 },
      vehicles: [],
      certificates: [],
    });
    expect(rec.insured).toEqual(
      med.risks.map((r) => expect.objectContaining({ id: r.id, kind: 'member', name: r.name, status: 'active' })),
    );
    expect(rec.insured[0]).toEqual({
      id: med.risks[0].id,
      kind: 'member',
      name: 'Amina Wanjiru',
      relationship: 'principal',
      age: 40,
      date_of_birth: '1986-03-02',
      in_school: null,
      id_no: '24681357',
      sum_insured: null,
      sum_insured_minor: null,
      details: null,
      status: 'active',
      added_on: TODAY,
      removed_on: null,
    });
    expect(rec.insured[2]).toMatchObject({ relationship: 'child', in_school: true, age: 9 });
    const travel = await o.policy(trv.uuid);
    expect(travel).toMatchObject({ policy_no: expect.stringMatching(/^TRV-/), cover_period: 'trip' });
    expect(travel.insured.map((r: any) => [r.kind, r.id_no])).toEqual([
      ['traveller', 'AK1234567'],
      ['traveller', 'AK7654321'],
    ]);
    const standard = await o.policy(std.uuid);
    expect(standard).toMatchObject({ policy_no: expect.stringMatching(/^STD-/), product: { code: 'DOMESTIC' } });
    expect(standard.insured[1]).toMatchObject({
      kind: 'item',
      name: 'Portable electronics',
      sum_insured: 450_000,
      sum_insured_minor: 45_000_000,
      details: { all_risks: true },
    });
    // The premium is the policy's as a whole: Σ debit notes, its levy lines.
    expect(standard.premium.total_minor).toBe(Number(std.totalMinor));
    expect(standard.debit_notes.map((d: any) => d.amount_minor)).toEqual(
      std.debitNotes.map((d) => Number(d.amountMinor)),
    );
  });

  it('GraphQL shows the same: coverProduct, coverDetails and insured; a motor-only field is null', async () => {
    const r = await o.as('staff').gql(POLICY_QUERY, { uuid: med.uuid });
    expect(r.body.errors).toBeUndefined();
    const p = r.body.data.policy;
    expect(p).toMatchObject({
      productLine: 'medical',
      vehicleClass: null,
      coverType: null,
      coverProduct: { databaseId: med.productId, code: 'MEDICAL', productLine: 'medical' },
      coverDetails: { cover_type: 'family' },
      vehicles: [],
    });
    expect(p.insured.map((i: any) => [i.databaseId, i.relationship, i.age, i.dateOfBirth])).toEqual([
      [med.risks[0].id, 'principal', 40, '1986-03-02'],
      [med.risks[1].id, 'spouse', 37, '1988-09-30'],
      [med.risks[2].id, 'child', 9, '2017-01-15'],
    ]);
    const s = await o.as('staff').gql(POLICY_QUERY, { uuid: std.uuid });
    expect(s.body.data.policy.insured[0].sumInsured).toEqual({ amount: 2_000_000, amountMinor: 200_000_000 });
    expect(s.body.data.policy.coverProduct.code).toBe('DOMESTIC');
  });

  it('is visible as any policy is: not to another organisation, nor to an agent out of reach, insured included', async () => {
    expectProblem(await other.as('staff').get(`/policies/${med.uuid}`), 404, 'not_found');
    const theirs = await other.as('staff').gql(POLICY_QUERY, { uuid: med.uuid });
    expect(theirs.body.errors?.[0]?.extensions?.code).toBe('not_found');
    // The standard policy was bound by agent 1: agent 2 cannot reach it, agent 1 can (positive control).
    expectProblem(await o.as('staff', { agent: 2 }).get(`/policies/${std.uuid}`), 404, 'not_found');
    const out = await o.as('staff', { agent: 2 }).gql(POLICY_QUERY, { uuid: std.uuid });
    expect(out.body.data?.policy ?? null).toBeNull();
    expect(out.body.errors?.[0]?.extensions?.code).toBe('not_found');
    const byNode = await o
      .as('staff', { agent: 2 })
      .gql(`query ($id: ID!) { node(id: $id) { ... on Policy { insured { name } } } }`, {
        id: (await o.as('staff').gql(POLICY_QUERY, { uuid: std.uuid })).body.data.policy.id,
      });
    expect(byNode.body.data.node).toBeNull();
    const mine = await o.as('staff', { agent: 1 }).get(`/policies/${std.uuid}`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.insured).toHaveLength(2);
    const list = await o
      .as('staff', { agent: 2 })
      .gql(`{ policies(productLine: "standard", first: 50) { edges { node { uuid insured { name } } } } }`);
    expect(list.body.data.policies.edges.map((e: any) => e.node.uuid)).not.toContain(std.uuid);
    const listed = await o
      .as('staff', { agent: 1 })
      .gql(`{ policies(productLine: "standard", first: 50) { edges { node { uuid insured { name } } } } }`);
    expect(listed.body.data.policies.edges.map((e: any) => e.node.uuid)).toContain(std.uuid);
  });

  it('GET /policies filters by product line', async () => {
    const r = await o.as('staff').get('/policies?product_line=travel&per_page=100');
    expect(r.status, r.text).toBe(200);
    const uuids = r.body.data.map((p: any) => p.uuid);
    expect(uuids).toContain(trv.uuid);
    expect(uuids).not.toContain(med.uuid);
    expect(r.body.data.every((p: any) => p.product_line === 'travel')).toBe(true);
  });

  it('the ERP policies export names the product code and leaves the motor class and cover type null', async () => {
    // The export reads behind its watermark (a couple of seconds back): wait until the record is behind it.
    const row = await waitFor(
      'the travel policy in the ERP export',
      async () => {
        const r = await o.as('staff').get('/erp/policies?per_page=1000');
        expect(r.status, r.text).toBe(200);
        return r.body.policies.find((p: any) => p.uuid === trv.uuid);
      },
      (found) => !!found,
      { ms: 15_000, every: 250 },
    );
    expect(row).toMatchObject({
      product_line: 'travel',
      product_code: 'TRAVEL',
      vehicle_class: null,
      cover_type: null,
    });
    const csv = await o.as('staff').get('/erp/policies?per_page=1000', { headers: { Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.text.split('\r\n')[0]).toContain('product_code');
    expect(csv.text).toContain(`${trv.policyNo},`);
  });

  it('the client area shows the product and who is insured', async () => {
    const s = await signIn(o, med.clientPhone);
    const r = await o.as('staff').get('/client-area/policies', { headers: clientHeaders(s) });
    expect(r.status, r.text).toBe(200);
    const p = r.body.data.find((x: any) => x.uuid === med.uuid);
    expect(p).toMatchObject({
      product_line: 'medical',
      product_name: expect.stringContaining('Medical'),
      vehicles: [],
    });
    expect(p.insured).toEqual([
      { id: med.risks[0].id, kind: 'member', name: 'Amina Wanjiru', relationship: 'principal' },
      { id: med.risks[1].id, kind: 'member', name: 'Otieno Wanjiru', relationship: 'spouse' },
      { id: med.risks[2].id, kind: 'member', name: 'Neema Wanjiru', relationship: 'child' },
    ]);
  });
});

describe('payment and activation', () => {
  it('an STK push activates a medical policy like a motor one, and queues no certificate issue', async () => {
    const med = await activeCoverPolicy(o, 'medical', { instalments: 2 });
    expect(med.record).toMatchObject({ status: 'active', product_line: 'medical' });
    expect(med.record.status_history.map((h: any) => h.to)).toEqual(['pending_payment', 'active']);
    const activated = await t.db.tenant(o.id, (tx) =>
      tx.event.findMany({ where: { name: 'policy.activated', data: { path: ['policy_uuid'], equals: med.uuid } } }),
    );
    expect(activated).toHaveLength(1);
    // Instalment 2 paid too: a motor policy would certify its second stage.
    await o.pay(med.debitNotes[1].number, med.debitNotes[1].amountMinor);
    // The positive control: a motor policy paid after it gets its issue job.
    const motor = await o.activePolicy();
    const motorId = (await t.db.tenant(o.id, (tx) => tx.policy.findFirstOrThrow({ where: { uuid: motor.uuid } }))).id;
    await waitFor(
      'the motor policy’s certificate issue job',
      () => issueJobs(motorId),
      (n) => n > 0,
    );
    expect(await issueJobs(med.id)).toBe(0);
    const certs = await t.db.tenant(o.id, (tx) => tx.certificate.count({ where: { policyId: med.id } }));
    expect(certs).toBe(0);
  }, 60_000);

  it('asking for certificates of a non-motor policy is refused: 422 domain_rule, REST and GraphQL', async () => {
    const trv = await activeCoverPolicy(o, 'travel');
    expectProblem(
      await o.as('staff').post(`/policies/${trv.uuid}/certificates`, { idempotencyKey: `c-${trv.uuid}` }),
      422,
      'domain_rule',
    );
    const r = await o
      .as('staff')
      .gql(
        `mutation ($u: String!) { issueCertificates(policyUuid: $u) { __typename ... on Problem { code detail } } }`,
        {
          u: trv.uuid,
        },
      );
    expect(r.body.data.issueCertificates).toMatchObject({ __typename: 'DomainRuleProblem', code: 'domain_rule' });
    expect(r.body.data.issueCertificates.detail).toMatch(/motor policies only/);
    // Another organisation's policy stays invisible on this path too.
    expectProblem(
      await other.as('staff').post(`/policies/${trv.uuid}/certificates`, { idempotencyKey: `o-${trv.uuid}` }),
      404,
      'not_found',
    );
  }, 60_000);
});
