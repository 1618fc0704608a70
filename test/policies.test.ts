import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/lib/dates.ts';
import { clonePolicies, countStatements, expectProblem, TODAY, useKit } from './kit.ts';
import { motorNotice } from './kit/approved-claim.ts';

const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0, mpesaReconcileAfterMs: 3_600_000 }, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
const asAgent2 = o.as('staff', { agent: 2 });
/** Policies bound through the API: by staff (2 instalments, first paid), by agent1, and in another organisation. */
let staffPol: any;
let agentPol: any;
let otherPol: any;

beforeAll(async () => {
  // M-Pesa collects whole shillings: the instalment's amount rounded up, the excess left unallocated.
  staffPol = await o.activePolicy({ instalments: 2 });
  agentPol = await o.bind(1, o.tokens.agent);
  otherPol = await other.bind(1);
}, 60_000);

const get = (path: string, token = o.tokens.staff, headers?: Record<string, string>) =>
  o.api.get(path, { token, headers });
const list = async (query: string, token = o.tokens.staff, headers?: Record<string, string>) => {
  const r = await get(`/policies?${query}`, token, headers);
  expect(r.status, r.text).toBe(200);
  return r.body.data.map((p: any) => p.policy_no) as string[];
};

describe('GET /policies/{uuid}', () => {
  it('returns the full record after a bind and a payment of the first instalment', async () => {
    const r = await get(`/policies/${staffPol.uuid}`);
    expect(r.status, r.text).toBe(200);
    const p = r.body.data;
    expect(p).toMatchObject({
      uuid: staffPol.uuid,
      policy_no: staffPol.policy_no,
      risknote: staffPol.risknote,
      status: 'active',
      product_line: 'motor',
      start_date: TODAY,
      end_date: staffPol.end_date,
      payment_mode: 'full',
      instalments: 2,
      client: { client_no: staffPol.client_no },
      insurer: { name: 'Simba General' },
      renewal_of: null,
      renewed_by: null,
    });
    expect(p.status_history.map((h: any) => [h.from, h.to, h.source])).toEqual([
      [null, 'pending_payment', 'bind'],
      ['pending_payment', 'active', 'payment'],
    ]);
    expect(p.premium).toMatchObject({
      total_minor: staffPol.premium.total_minor,
      taxes_minor: staffPol.premium.taxes_minor,
      basic_premium_minor: staffPol.premium.basic_premium_minor,
    });
    expect(p.premium.levies.map((l: any) => l.code).sort()).toEqual(['PHCF', 'SD', 'TL']);
    expect(p.premium.levies.reduce((s: number, l: any) => s + l.amount_minor, 0)).toBe(p.premium.taxes_minor);
    expect(p.vehicles).toHaveLength(1);
    expect(p.vehicles[0]).toMatchObject({ make: 'Toyota', model: 'Axio', value: 1_500_000, value_minor: 150_000_000 });
    expect(p.vehicles[0].regno).toMatch(/^KDE\d{3}[A-Z]$/);

    const [dn1, dn2] = p.debit_notes;
    const sent = staffPol.debit_note.instalments;
    expect(p.debit_notes).toHaveLength(2);
    expect(dn1).toMatchObject({
      number: sent[0].number,
      instalment_no: 1,
      due_on: sent[0].due_on,
      amount_minor: sent[0].amount_minor,
      paid_minor: sent[0].amount_minor,
      outstanding: 0,
      outstanding_minor: 0,
    });
    expect(p.receipts).toHaveLength(1);
    const rc = p.receipts[0];
    expect(rc.receipt_no).toEqual(expect.any(String));
    expect(rc.amount_minor).toBe(Math.ceil(sent[0].amount_minor / 100) * 100);
    // The rounding excess goes to the next instalment, not to credit.
    const excess = rc.amount_minor - dn1.amount_minor;
    expect(dn2).toMatchObject({
      number: sent[1].number,
      instalment_no: 2,
      due_on: sent[1].due_on,
      paid_minor: excess,
      outstanding_minor: sent[1].amount_minor - excess,
    });
    expect(dn2.outstanding).toBe(Math.round((sent[1].amount_minor - excess) / 100));
    expect(rc.allocations.map((a: any) => [a.debit_note_no, a.amount_minor])).toEqual([
      [dn1.number, dn1.amount_minor],
      ...(excess > 0 ? [[dn2.number, excess]] : []),
    ]);
    expect(rc.unallocated_minor).toBe(0);
  });

  it('a pending policy has nothing paid, everything outstanding and no receipts', async () => {
    const r = await get(`/policies/${agentPol.uuid}`, o.tokens.agent);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.status).toBe('pending_payment');
    expect(r.body.data.receipts).toEqual([]);
    const [dn] = r.body.data.debit_notes;
    expect(dn).toMatchObject({ paid_minor: 0, outstanding_minor: r.body.data.premium.total_minor });
  });

  it("answers 404 not_found outside the caller's reach", async () => {
    expectProblem(await get(`/policies/${staffPol.uuid}`, o.tokens.agent), 404, 'not_found'); // staff's, to agent1
    expectProblem(await get(`/policies/${agentPol.uuid}`, asAgent2.token, asAgent2.headers), 404, 'not_found'); // agent1's, to agent2
    expectProblem(await get(`/policies/${otherPol.uuid}`), 404, 'not_found'); // another organisation's
    expectProblem(await get(`/policies/${randomUUID()}`), 404, 'not_found');
    expectProblem(await get('/policies/not-a-uuid'), 404, 'not_found');
    // Staff see the agent's policy; the other organisation sees its own.
    expect((await get(`/policies/${agentPol.uuid}`)).status).toBe(200);
    expect((await get(`/policies/${otherPol.uuid}`, other.tokens.staff)).status).toBe(200);
  });
});

describe('GET /policies filters and search', () => {
  it('filters by status, client, product line, insurer, sales person and start date', async () => {
    const [s, a] = [staffPol.policy_no, agentPol.policy_no];
    expect(await list('')).toEqual([a, s]); // newest first
    expect(await list('status=active')).toEqual([s]);
    expect(await list('status=pending_payment')).toEqual([a]);
    expect(await list(`client_no=${agentPol.client_no}`)).toEqual([a]);
    expect(await list('product_line=motor')).toEqual([a, s]);
    expect(await list('product_line=medical')).toEqual([]);
    const row = await t.db.tenant(o.org.id, (tx) => tx.policy.findFirstOrThrow({ where: { uuid: agentPol.uuid } }));
    expect(await list(`insurer_id=${row.insurerId}`)).toEqual([a, s]);
    expect(await list(`insurer_id=${row.insurerId + 100_000}`)).toEqual([]);
    expect(row.salesPersonId).not.toBeNull();
    expect(await list(`sales_person_id=${row.salesPersonId}`)).toEqual([a]);
    expect(await list(`start_from=${TODAY}&start_to=${TODAY}`)).toEqual([a, s]);
    expect(await list(`start_from=${addDays(TODAY, 1)}`)).toEqual([]);
    expect(await list(`start_to=${addDays(TODAY, -1)}`)).toEqual([]);
  });

  it('searches by policy number and by registration in any spacing or case', async () => {
    expect(await list(`search=${encodeURIComponent(staffPol.policy_no)}`)).toEqual([staffPol.policy_no]);
    expect(await list(`search=${encodeURIComponent(staffPol.policy_no.toLowerCase())}`)).toEqual([staffPol.policy_no]);
    const reg: string = (await get(`/policies/${agentPol.uuid}`)).body.data.vehicles[0].regno;
    const spaced = `${reg.slice(0, 3).toLowerCase()} ${reg.slice(3)}`;
    expect(await list(`search=${encodeURIComponent(spaced)}`)).toEqual([agentPol.policy_no]);
    expect(await list(`search=${encodeURIComponent(` ${reg} `)}`)).toEqual([agentPol.policy_no]);
    expect(await list('search=ZZZ999Z')).toEqual([]);
  });

  it('refuses a malformed date with 422 validation_failed', async () => {
    const r = await get('/policies?start_from=26-11-2026');
    expectProblem(r, 422, 'validation_failed');
  });

  it('refuses a product line that is none of the four, as it refuses an unknown status', async () => {
    for (const line of ['flying', 'Motor', 'motor ']) {
      const r = await get(`/policies?product_line=${encodeURIComponent(line)}`);
      expectProblem(r, 422, 'validation_failed');
      expect(r.body.errors, line).toEqual([expect.objectContaining({ field: 'product_line', code: 'not_one_of' })]);
    }
    const g = await o.as('staff').gql('{ policies(productLine: "flying") { edges { node { id } } } }');
    expect(g.body.errors?.[0]?.extensions?.errors).toEqual([
      expect.objectContaining({ field: 'productLine', code: 'not_one_of' }),
    ]);
  });

  it('an agent lists only their own policies; another organisation lists only its own', async () => {
    expect(await list('', o.tokens.agent)).toEqual([agentPol.policy_no]);
    expect(await list('', asAgent2.token, asAgent2.headers)).toEqual([]);
    expect(await list(`search=${encodeURIComponent(staffPol.policy_no)}`, o.tokens.agent)).toEqual([]);
    expect(await list('', other.tokens.staff)).toEqual([otherPol.policy_no]);
  });
});

describe('pagination, parity and query count', () => {
  beforeAll(async () => {
    await clonePolicies(t, o.org.id, staffPol.uuid, 23); // 25 policies in all
  });

  it('walks every policy once by links.next, newest first', async () => {
    const seen: string[] = [];
    let path: string | null = '/policies?limit=10';
    let pages = 0;
    while (path) {
      const r: { status: number; text: string; body: any } = await o.api.get(path.replace(/^\/api\/v1/, ''), {
        token: o.tokens.staff,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body.meta).toMatchObject({ limit: 10, count: r.body.data.length, has_more: r.body.links.next !== null });
      seen.push(...r.body.data.map((p: any) => p.uuid));
      path = r.body.links.next;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(25);
    const ids = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findMany({ orderBy: { id: 'desc' }, select: { uuid: true } }),
    );
    expect(seen).toEqual(ids.map((x) => x.uuid));
    const page3 = await get('/policies?per_page=10&page=3');
    expect(page3.body.data.map((p: any) => p.uuid)).toEqual(seen.slice(20));
  });

  it('GraphQL policy(uuid) and policies agree with REST', async () => {
    const g = await o.api.gql(
      `query($u: String!) { policy(uuid: $u) { uuid policyNo status startDate total { amountMinor } levies { code amount { amountMinor } }
         debitNotes { number paid { amountMinor } outstanding { amount amountMinor } } receipts { receiptNo allocations { debitNoteNo } } client { clientNo } }
         policies(first: 2, search: "${agentPol.policy_no}") { edges { node { uuid } } } }`,
      { u: staffPol.uuid },
      { token: o.tokens.staff },
    );
    expect(g.body.errors).toBeUndefined();
    const gp = g.body.data.policy;
    const rp = (await get(`/policies/${staffPol.uuid}`)).body.data;
    expect(gp).toMatchObject({
      uuid: rp.uuid,
      policyNo: rp.policy_no,
      status: rp.status,
      startDate: rp.start_date,
      client: { clientNo: rp.client.client_no },
    });
    expect(Number(gp.total.amountMinor)).toBe(rp.premium.total_minor);
    expect(gp.levies.map((l: any) => [l.code, Number(l.amount.amountMinor)])).toEqual(
      rp.premium.levies.map((l: any) => [l.code, l.amount_minor]),
    );
    expect(
      gp.debitNotes.map((d: any) => [
        d.number,
        Number(d.paid.amountMinor),
        d.outstanding.amount,
        Number(d.outstanding.amountMinor),
      ]),
    ).toEqual(rp.debit_notes.map((d: any) => [d.number, d.paid_minor, d.outstanding, d.outstanding_minor]));
    expect(gp.receipts).toEqual(
      rp.receipts.map((r: any) => ({
        receiptNo: r.receipt_no,
        allocations: r.allocations.map((a: any) => ({ debitNoteNo: a.debit_note_no })),
      })),
    );
    expect(g.body.data.policies.edges).toEqual([{ node: { uuid: agentPol.uuid } }]);
    // The agent's GraphQL view is as narrow as REST: null data with a not_found error.
    const ga = await o.api.gql(
      'query($u: String!) { policy(uuid: $u) { uuid } }',
      { u: staffPol.uuid },
      { token: o.tokens.agent },
    );
    expect(ga.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });

  it('loads nested relations without a query per policy (10 vs 20 policies: same statement count)', async () => {
    const q = `query($n: Int!) { policies(first: $n) { edges { node { policyNo client { clientNo } insurer { name } salesPerson { name }
      vehicles { regNo } levies { code } debitNotes { number outstanding { amount } } receipts { receiptNo allocations { debitNoteNo } } } } } }`;
    const once = (n: number) =>
      countStatements(t, async () => {
        const r = await o.api.gql(q, { n }, { token: o.tokens.staff });
        expect(r.body.errors).toBeUndefined();
        expect(r.body.data.policies.edges).toHaveLength(n);
      });
    // The count is pool-wide: a job of this process (an SMS notice reading the client of a payment's event) may
    // read a client meanwhile. The fewest of three runs is the request's own.
    const run = async (n: number) => Math.min(await once(n), await once(n), await once(n));
    await once(5); // warm-up: token cache, prepared statements
    const ten = await run(10);
    const twenty = await run(20);
    expect(ten).toBeGreaterThan(0);
    expect(twenty).toBe(ten);
  });

  it('each GET /policies item is the record GET /policies/{uuid} returns, claims included, loaded with the page', async () => {
    // Claims on the twelve newest policies: a page of 10 has ten with claims, a page of 20 twelve (and eight without).
    // The clones are copies pending payment: put them in force, as the claim rule asks, without paying twelve times.
    const newest = await t.db.tenant(o.org.id, async (tx) => {
      const rows = await tx.policy.findMany({ orderBy: { id: 'desc' }, take: 12, include: { vehicles: true } });
      await tx.policy.updateMany({ where: { id: { in: rows.map((p) => p.id) } }, data: { status: 'active' } });
      return rows;
    });
    const claimNos = new Map<string, string>();
    for (const p of newest) {
      const r = await o.api.post('/claims', {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: motorNotice({ uuid: p.uuid, regno: p.vehicles[0].regNo }),
      });
      expect(r.status, r.text).toBe(201);
      claimNos.set(p.uuid, r.body.data.claim_no);
    }
    const list = await get('/policies?limit=25');
    expect(list.status, list.text).toBe(200);
    for (const item of list.body.data) {
      const one = await get(`/policies/${item.uuid}`);
      expect(item).toEqual(one.body.data);
      expect(item.claims.map((c: { claim_no: string }) => c.claim_no)).toEqual(
        claimNos.has(item.uuid) ? [claimNos.get(item.uuid)] : [],
      );
    }
    // One statement loads a page with every policy's claims: as many for 20 policies as for 10.
    const tables = /"(policies|claims|policy_vehicles|debit_notes|receipts)"/;
    const once = (n: number) =>
      countStatements(
        t,
        async () => {
          const r = await get(`/policies?limit=${n}`);
          expect(r.body.data).toHaveLength(n);
        },
        tables,
      );
    const run = async (n: number) => Math.min(await once(n), await once(n), await once(n));
    await once(5);
    const ten = await run(10);
    expect(ten).toBeGreaterThan(0);
    expect(await run(20)).toBe(ten);
  });
});
