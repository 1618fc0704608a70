import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SignedLoan, signedLoan } from './kit/ipf.ts';
import { clientHeaders, countStatements, expectProblem, INSTANT_RAIL, signIn, TODAY, useKit, type Org } from './kit.ts';

// GET /ipf/loans, GET /ipf/loans/{uuid}, GraphQL ipfLoans/ipfLoan/node and the client area's loans (docs/premium-finance.md "Premium
// finance: quote, lenders and loans"). Balances are checked against figures worked here from the stored schedule lines,
// never by finance/loan/balance.ts.

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const uuids = (r: { body: { data: { uuid: string }[] } }) => r.body.data.map((x) => x.uuid);
const get = (path: string, token = o.tokens.staff, headers?: Record<string, string>) =>
  o.api.get(path, { token, headers });

let paying: SignedLoan; // staff's, signed 10 April: three lines due by today, two of them paid (by two receipts)
let fresh: SignedLoan; // the agent key's, signed today: the deposit due today
let dropped: SignedLoan; // staff's, cancelled before its deposit
const lines = (l: SignedLoan) =>
  [...l.loan.instalments].sort((a, b) => a.seq - b.seq).map((x) => Number(x.amountMinor));
/** Paid into line 3 by the second receipt (cents). */
const PART = 100_000;

/** Receipts allocated oldest first and the loan made active, as funding and repayments leave them (test builder). */
async function fundAndPay(org: Org, l: SignedLoan, receipts: number[]): Promise<void> {
  const amounts = lines(l);
  await t.db.tenant(org.id, async (tx) => {
    const rows = await tx.ipfInstalment.findMany({ where: { loanId: l.loan.id }, orderBy: { seq: 'asc' } });
    let i = 0;
    let total = 0;
    for (const [n, amount] of receipts.entries()) {
      const r = await tx.receipt.create({
        data: {
          tenantId: org.id,
          receiptNo: `RCT-IPF-${l.loan.id}-${n + 1}`,
          loanId: l.loan.id,
          method: 'mpesa',
          transactionRef: `TIPF${l.loan.id}X${n + 1}`,
          phone: '254708374149',
          account: l.loan.loanNo,
          purpose: 'ipf_repayment',
          amountMinor: BigInt(amount),
          unallocatedMinor: 0n,
          paidAt: new Date(`2026-0${4 + n}-1${n}T07:00:00Z`),
        },
      });
      for (let left = amount; left > 0;) {
        const take = Math.min(left, amounts[i] - Number(rows[i].paidMinor));
        rows[i].paidMinor += BigInt(take);
        await tx.ipfAllocation.create({
          data: {
            tenantId: org.id,
            receiptId: r.id,
            loanId: l.loan.id,
            instalmentId: rows[i].id,
            amountMinor: BigInt(take),
          },
        });
        await tx.ipfInstalment.update({ where: { id: rows[i].id }, data: { paidMinor: rows[i].paidMinor } });
        left -= take;
        total += take;
        if (rows[i].paidMinor === rows[i].amountMinor) i += 1;
      }
    }
    await tx.ipfLoan.update({
      where: { id: l.loan.id },
      data: { status: 'active', paidMinor: BigInt(total), fundedAt: new Date('2026-04-10T09:00:00Z') },
    });
    await tx.ipfStateHistory.create({
      data: {
        tenantId: org.id,
        entity: 'loan',
        entityId: l.loan.id,
        fromStatus: 'awaiting_deposit',
        toStatus: 'active',
        reason: 'funded',
        actor: 'lender',
      },
    });
  });
}

beforeAll(async () => {
  paying = await signedLoan(o, { months: 4, signedOn: '2026-04-10' });
  const [deposit, second] = lines(paying);
  await fundAndPay(o, paying, [deposit, second + PART]);
  dropped = await signedLoan(o, { lender: 'Jamii Credit', months: 3 });
  await t.db.tenant(o.id, (tx) => tx.ipfLoan.update({ where: { id: dropped.loan.id }, data: { status: 'cancelled' } }));
  fresh = await signedLoan(o, { token: o.tokens.agent });
}, 120_000);

describe('GET /ipf/loans/{uuid}', () => {
  it('the schedule line by line, the payments by receipt, the balance, arrears and next due, the history', async () => {
    const r = await get(`/ipf/loans/${paying.loan.uuid}`);
    expect(r.status, r.text).toBe(200);
    const d = r.body.data;
    const [l1, l2, l3, l4] = lines(paying);
    const total = l1 + l2 + l3 + l4;
    const paid = l1 + l2 + PART;
    expect(d).toMatchObject({
      loan_no: paying.loan.loanNo,
      status: 'active',
      policy: { uuid: paying.policy.uuid, policy_no: paying.policy.policy_no },
      client: { client_no: paying.policy.client_no },
      lender: { name: 'Mkopo Premium Finance' },
      tenor_months: 4,
      principal_minor: Number(paying.offer.premiumMinor),
      charge_minor: Number(paying.offer.chargeMinor),
      total_repayable_minor: total,
      apr_bps: 660,
      paid_minor: paid,
      rebate_minor: 0,
      // Total − paid; arrears: lines 1–3 fall due by 15 June (10 April, May, June), line 3 short by its amount − PART.
      outstanding_minor: total - paid,
      arrears_minor: l3 - PART,
      next_due: { instalment: 3, due_on: '2026-06-10', amount_minor: l3 - PART, amount: Math.round((l3 - PART) / 100) },
      settlement: null,
      lender_refund_minor: 0,
      funded_at: '2026-04-10T09:00:00.000Z',
      closed_at: null,
    });
    expect(d.outstanding).toBe(Math.round((total - paid) / 100));
    expect(d.instalments).toEqual([
      row(1, '2026-04-10', l1, l1, 'paid'),
      row(2, '2026-05-10', l2, l2, 'paid'),
      row(3, '2026-06-10', l3, PART, 'overdue'),
      row(4, '2026-07-10', l4, 0, 'upcoming'),
    ]);
    expect(d.payments.map((p: any) => [p.receipt_no, p.amount_minor, p.allocations])).toEqual([
      [`RCT-IPF-${paying.loan.id}-1`, l1, [{ instalment: 1, amount: Math.round(l1 / 100), amount_minor: l1 }]],
      [
        `RCT-IPF-${paying.loan.id}-2`,
        l2 + PART,
        [
          { instalment: 2, amount: Math.round(l2 / 100), amount_minor: l2 },
          { instalment: 3, amount: PART / 100, amount_minor: PART },
        ],
      ],
    ]);
    expect(d.history).toEqual([
      { from: 'awaiting_deposit', to: 'active', reason: 'funded', by: 'lender', at: expect.any(String) },
    ]);
  });

  it('a deposit due today is due (and in arrears); a cancelled loan owes nothing', async () => {
    const f = (await get(`/ipf/loans/${fresh.loan.uuid}`)).body.data;
    const [deposit] = lines(fresh);
    expect(f.status).toBe('awaiting_deposit');
    expect(f.instalments[0]).toMatchObject({ instalment: 1, due_on: TODAY, status: 'due' });
    expect(f.instalments.slice(1).map((i: any) => i.status)).toEqual(f.instalments.slice(1).map(() => 'upcoming'));
    expect([f.arrears_minor, f.next_due]).toEqual([
      deposit,
      expect.objectContaining({ instalment: 1, amount_minor: deposit }),
    ]);
    const c = (await get(`/ipf/loans/${dropped.loan.uuid}`)).body.data;
    expect([c.status, c.outstanding_minor, c.arrears_minor, c.next_due]).toEqual(['cancelled', 0, 0, null]);
  });

  it('GraphQL ipfLoan and node(id:) answer the same loan', async () => {
    const rest = (await get(`/ipf/loans/${paying.loan.uuid}`)).body.data;
    const g = await o.api.gql(
      `query($u: String!) { ipfLoan(uuid: $u) { id loanNo status outstanding { amountMinor } arrears { amountMinor }
        nextDue { instalment dueOn amount { amountMinor } } instalments { instalment status paid { amountMinor } }
        payments { receiptNo allocations { instalment } } policy { uuid } client { clientNo } } }`,
      { u: paying.loan.uuid },
      { token: o.tokens.staff },
    );
    expect(g.body.errors).toBeUndefined();
    const l = g.body.data.ipfLoan;
    expect({
      loan_no: l.loanNo,
      status: l.status,
      outstanding_minor: l.outstanding.amountMinor,
      arrears_minor: l.arrears.amountMinor,
      next_due: [l.nextDue.instalment, l.nextDue.dueOn, l.nextDue.amount.amountMinor],
      instalments: l.instalments.map((i: any) => [i.instalment, i.status, i.paid.amountMinor]),
      payments: l.payments.map((p: any) => [p.receiptNo, p.allocations.map((a: any) => a.instalment)]),
      policy: l.policy.uuid,
      client: l.client.clientNo,
    }).toEqual({
      loan_no: rest.loan_no,
      status: rest.status,
      outstanding_minor: rest.outstanding_minor,
      arrears_minor: rest.arrears_minor,
      next_due: [rest.next_due.instalment, rest.next_due.due_on, rest.next_due.amount_minor],
      instalments: rest.instalments.map((i: any) => [i.instalment, i.status, i.paid_minor]),
      payments: rest.payments.map((p: any) => [p.receipt_no, p.allocations.map((a: any) => a.instalment)]),
      policy: rest.policy.uuid,
      client: rest.client.client_no,
    });
    const n = await o.api.gql(
      'query($id: ID!) { node(id: $id) { ... on IpfLoan { loanNo } } }',
      { id: l.id },
      {
        token: o.tokens.staff,
      },
    );
    expect(n.body.data.node).toEqual({ loanNo: rest.loan_no });
  });

  it('404 for a missing loan or a malformed uuid', async () => {
    expectProblem(await get(`/ipf/loans/${randomUUID()}`), 404, 'not_found');
    expectProblem(await get('/ipf/loans/not-a-uuid'), 404, 'not_found');
  });
});

const row = (seq: number, due: string, amount: number, paid: number, status: string) => ({
  instalment: seq,
  due_on: due,
  amount: Math.round(amount / 100),
  amount_minor: amount,
  paid: Math.round(paid / 100),
  paid_minor: paid,
  waived: 0,
  waived_minor: 0,
  outstanding: Math.round((amount - paid) / 100),
  outstanding_minor: amount - paid,
  status,
});

describe('GET /ipf/loans', () => {
  it('newest first, with each loan’s balance; pages by cursor', async () => {
    const all = await get('/ipf/loans');
    expect(all.status, all.text).toBe(200);
    expect(uuids(all)).toEqual([fresh.loan.uuid, dropped.loan.uuid, paying.loan.uuid]);
    expect(all.body.data[2].arrears_minor).toBe(lines(paying)[2] - PART);
    const first = await get('/ipf/loans?limit=2');
    expect(first.body.meta).toEqual({ limit: 2, has_more: true, count: 2 });
    const next = await get(first.body.links.next.replace('/api/v1', ''));
    expect(uuids(next)).toEqual([paying.loan.uuid]);
    expect(next.body.links.next).toBeNull();
    expectProblem(await get('/ipf/loans?cursor=abc'), 422, 'validation_failed', 'cursor');
  });

  it('filters by status, policy, client, lender and arrears', async () => {
    expect(uuids(await get('/ipf/loans?status=active,cancelled'))).toEqual([dropped.loan.uuid, paying.loan.uuid]);
    expect(uuids(await get(`/ipf/loans?policy_uuid=${paying.policy.uuid}`))).toEqual([paying.loan.uuid]);
    expect(uuids(await get('/ipf/loans?policy_uuid=junk'))).toEqual([]);
    expect(uuids(await get(`/ipf/loans?client_no=${fresh.policy.client_no}`))).toEqual([fresh.loan.uuid]);
    const jamii = (await get(`/ipf/loans/${dropped.loan.uuid}`)).body.data.lender.id;
    expect(uuids(await get(`/ipf/loans?lender_id=${jamii}`))).toEqual([dropped.loan.uuid]);
    // In arrears: the deposit due today and line 3 overdue; not the cancelled loan.
    expect(uuids(await get('/ipf/loans?in_arrears=true'))).toEqual([fresh.loan.uuid, paying.loan.uuid]);
    expect(uuids(await get('/ipf/loans?in_arrears=false'))).toEqual([dropped.loan.uuid]);
    expectProblem(await get('/ipf/loans?status=nope'), 422, 'validation_failed', 'status.0');
    const g = await o.api.gql(
      '{ ipfLoans(inArrears: true, status: [active]) { edges { node { uuid } } } }',
      {},
      {
        token: o.tokens.staff,
      },
    );
    expect(g.body.data.ipfLoans.edges.map((e: any) => e.node.uuid)).toEqual([paying.loan.uuid]);
  });
});

describe('reach: an agent sees the loans of the policies it may see', () => {
  it('the agent key: its own loan only; staff’s is 404 on REST, null on GraphQL root and node(id:)', async () => {
    const agent = o.tokens.agent;
    expect(uuids(await get('/ipf/loans', agent))).toEqual([fresh.loan.uuid]);
    expect((await get(`/ipf/loans/${fresh.loan.uuid}`, agent)).status).toBe(200);
    expectProblem(await get(`/ipf/loans/${paying.loan.uuid}`, agent), 404, 'not_found');
    const root = await o.api.gql(
      'query($u: String!) { ipfLoan(uuid: $u) { uuid } }',
      { u: paying.loan.uuid },
      {
        token: agent,
      },
    );
    expect(root.body.data.ipfLoan).toBeNull();
    expect(root.body.errors?.[0]?.extensions?.code).toBe('not_found');
    const id = (
      await o.api.gql(
        'query($u: String!) { ipfLoan(uuid: $u) { id } }',
        { u: paying.loan.uuid },
        {
          token: o.tokens.staff,
        },
      )
    ).body.data.ipfLoan.id;
    const node = await o.api.gql('query($id: ID!) { node(id: $id) { id } }', { id }, { token: agent });
    expect(node.body.data.node).toBeNull();
    const nested = await o.api.gql('{ ipfLoans { edges { node { uuid } } } }', {}, { token: agent });
    expect(nested.body.data.ipfLoans.edges.map((e: any) => e.node.uuid)).toEqual([fresh.loan.uuid]);
  });

  it('another agent by headers, and another organisation: none of them', async () => {
    const h = o.agentHeaders(2);
    expect(uuids(await get('/ipf/loans', o.tokens.staff, h))).toEqual([]);
    expectProblem(await get(`/ipf/loans/${fresh.loan.uuid}`, o.tokens.staff, h), 404, 'not_found');
    expect(uuids(await other.api.get('/ipf/loans', { token: other.tokens.staff }))).toEqual([]);
    expectProblem(
      await other.api.get(`/ipf/loans/${paying.loan.uuid}`, { token: other.tokens.staff }),
      404,
      'not_found',
    );
  });
});

describe('client area: the signed-in client’s loans, in cents', () => {
  const phoneOf = (clientNo: string) =>
    t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.phone);

  it('each client sees its own loans only, with the staff figures in cents and no whole shillings', async () => {
    const payer = await signIn(o, await phoneOf(paying.policy.client_no));
    const r = await get('/client-area/loans', o.tokens.staff, clientHeaders(payer));
    expect(r.status, r.text).toBe(200);
    const staff = (await get(`/ipf/loans/${paying.loan.uuid}`)).body.data;
    expect(r.body.data.map((l: any) => l.reference)).toEqual([paying.loan.loanNo]);
    const l = r.body.data[0];
    expect(l).toMatchObject({
      uuid: paying.loan.uuid,
      status: 'active',
      policy_no: paying.policy.policy_no,
      lender_name: 'Mkopo Premium Finance',
      tenor_months: 4,
      total_repayable_minor: staff.total_repayable_minor,
      paid_minor: staff.paid_minor,
      balance_minor: staff.outstanding_minor,
      arrears_minor: staff.arrears_minor,
      next_due: { instalment: 3, due_on: '2026-06-10', amount_minor: staff.next_due.amount_minor },
    });
    expect(l.schedule.map((i: any) => [i.instalment, i.due_on, i.amount_minor, i.paid_minor, i.status])).toEqual(
      staff.instalments.map((i: any) => [i.instalment, i.due_on, i.amount_minor, i.paid_minor, i.status]),
    );
    // Cents only: every money field ends in _minor.
    const keys = JSON.stringify(r.body)
      .match(/"[a-z_]+":/g)!
      .map((k) => k.slice(1, -2));
    for (const k of ['amount', 'paid', 'balance', 'outstanding', 'total_repayable', 'charge', 'principal'])
      expect(keys).not.toContain(k);

    const agentsClient = await signIn(o, await phoneOf(fresh.policy.client_no));
    const theirs = await get('/client-area/loans', o.tokens.staff, clientHeaders(agentsClient));
    expect(theirs.body.data.map((x: any) => x.reference)).toEqual([fresh.loan.loanNo]);
    const g = await o.api.gql(
      '{ viewer { loans { reference balanceMinor schedule { instalment status } } } }',
      {},
      {
        token: o.tokens.staff,
        headers: clientHeaders(agentsClient),
      },
    );
    expect(g.body.data.viewer.loans).toEqual([
      {
        reference: fresh.loan.loanNo,
        balanceMinor: theirs.body.data[0].balance_minor,
        schedule: theirs.body.data[0].schedule.map((i: any) => ({ instalment: i.instalment, status: i.status })),
      },
    ]);
  });

  it('a SACCO’s client area answers ipf_not_offered', async () => {
    const sacco = await t.newOrg({ type: 'sacco', tokens: ['staff'] });
    const c = await sacco.api.post('/clients', {
      token: sacco.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { name: 'Saccoh Member Wanjiku', phone: '0722 400 517' },
    });
    expect(c.status, c.text).toBe(201);
    const s = await signIn(sacco, c.body.data.phone);
    expectProblem(
      await sacco.api.get('/client-area/loans', { token: sacco.tokens.staff, headers: clientHeaders(s) }),
      403,
      'ipf_not_offered',
    );
  });
});

describe('no N+1', () => {
  // Reads of what hangs off a loan only; jobs sharing the pool may read too: the fewest of three runs is the request's.
  const TABLES = /^\s*SELECT[\s\S]*"(ipf_state_history|ipf_instalments|ipf_allocations)"/;

  it('a page of loans loads its schedule, payments and history with the page, whatever its size', async () => {
    for (let i = 0; i < 5; i++) await signedLoan(o);
    const q = `query($n: Int!) { ipfLoans(first: $n) { edges { node { loanNo instalments { instalment }
      payments { receiptNo } history { to } } } } }`;
    const once = (n: number) =>
      countStatements(
        t,
        async () => {
          const r = await o.api.gql(q, { n }, { token: o.tokens.staff });
          expect(r.body.errors, JSON.stringify(r.body)).toBeUndefined();
          expect(r.body.data.ipfLoans.edges).toHaveLength(n);
        },
        TABLES,
      );
    const run = async (n: number) => Math.min(await once(n), await once(n), await once(n));
    await once(1); // warm-up
    const two = await run(2);
    const five = await run(5);
    expect(two).toBeGreaterThan(0);
    expect(five).toBe(two);
  });
});
