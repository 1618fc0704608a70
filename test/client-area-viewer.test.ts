import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clientHeaders,
  expectProblem,
  INSTANT_RAIL,
  signIn,
  signInByClientNo,
  TODAY,
  useKit,
  waitFor,
  type Active,
  type Org,
} from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
const PAYING_PHONE = '0708 374 149';

type Session = { client_no: string; client_key: string };
const phoneOf = (org: Org, clientNo: string) =>
  t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.phone);
const as = (org: Org, s: Session) => ({
  get: (path: string) => org.as('staff').get(path, { headers: clientHeaders(s) }),
  post: (path: string, body: unknown, key?: string) =>
    org.as('staff').post(path, { headers: clientHeaders(s), body, idempotencyKey: key ?? randomUUID() }),
  patch: (path: string, body: unknown) =>
    org.as('staff').patch(path, { headers: clientHeaders(s), body, idempotencyKey: randomUUID() }),
  gql: (query: string, variables: Record<string, unknown> = {}) =>
    org.api.gql(query, variables, { token: org.tokens.staff, headers: clientHeaders(s) }),
});

let pol: Active;
let alice: Session;
let bob: Session;
let bobPol: Active;

beforeAll(async () => {
  // Alice: two instalments, the first paid (active); Bob: one paid policy.
  pol = await o.activePolicy({ instalments: 2 });
  alice = await signIn(o, await phoneOf(o, pol.client_no));
  bobPol = await o.activePolicy();
  bob = await signIn(o, await phoneOf(o, bobPol.client_no));
}, 120_000);

/** Independent of the statement: the policy record's own debit notes and receipts (GET /policies/{uuid}). */
async function owedFromRecord(uuid: string) {
  const rec = (await o.as('staff').get(`/policies/${uuid}`)).body.data;
  const notes: { amount_minor: number; outstanding_minor?: number; outstanding?: { amount_minor: number } }[] =
    rec.debit_notes;
  const amount = notes.reduce((s, d) => s + d.amount_minor, 0);
  const outstanding = notes.reduce((s, d) => s + (d.outstanding_minor ?? d.outstanding?.amount_minor ?? 0), 0);
  const receipts = await t.db.tenant(o.id, (tx) => tx.receipt.findMany({ where: { policy: { uuid } } }));
  return { amount, outstanding, paid: receipts.reduce((s, r) => s + Number(r.amountMinor), 0) };
}

/** What the client owes over all its policies net of credit held, from the policy records and the credit table. */
async function owedOverall(who: Session): Promise<number> {
  const policies = await t.db.tenant(o.id, (tx) =>
    tx.policy.findMany({ where: { client: { clientNo: who.client_no } }, select: { uuid: true } }),
  );
  let owed = 0;
  for (const p of policies) owed += (await owedFromRecord(p.uuid)).outstanding;
  const credit = await t.db.tenant(o.id, (tx) =>
    tx.clientCredit.aggregate({ where: { client: { clientNo: who.client_no } }, _sum: { amountMinor: true } }),
  );
  return owed - Number(credit._sum.amountMinor ?? 0n);
}

describe('the signed-in client reads its own records', () => {
  it('details, policies (status 1 active, 0 otherwise) and an empty loans list', async () => {
    const me = await as(o, alice).get('/client-area/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body.data.client_no).toBe(pol.client_no);
    const pending = await o.pendingPolicy({
      client: { name: me.body.data.name, phone: me.body.data.phone, idno: me.body.data.id_no },
    });
    expect(pending.client_no).toBe(alice.client_no);
    const ps = await as(o, alice).get('/client-area/policies');
    expect(ps.status, ps.text).toBe(200);
    const byNo = Object.fromEntries(ps.body.data.map((p: { policy_no: string }) => [p.policy_no, p]));
    expect(byNo[pol.policy_no]).toMatchObject({ status: 1, status_text: 'active' });
    expect(byNo[pending.policy_no]).toMatchObject({ status: 0, status_text: 'pending_payment' });
    expect(ps.body.data.map((p: { policy_no: string }) => p.policy_no)).not.toContain(bobPol.policy_no);
    const loans = await as(o, alice).get('/client-area/loans');
    expect(loans.body).toEqual({ data: [] });
  });

  it('a statement that reconciles with the receipts, as JSON and printable HTML', async () => {
    const r = await as(o, alice).get('/client-area/statement');
    expect(r.status, r.text).toBe(200);
    const s = r.body.data;
    const mine = s.lines.filter((l: { policy_no: string }) => l.policy_no === pol.policy_no);
    const expected = await owedFromRecord(pol.uuid);
    const sum = (kind: string, f: string) =>
      mine
        .filter((l: { kind: string }) => l.kind === kind)
        .reduce((a: number, l: Record<string, number>) => a + l[f], 0);
    expect(sum('debit_note', 'debit_minor')).toBe(expected.amount);
    expect(sum('receipt', 'credit_minor')).toBe(expected.paid);
    // The running balance, recomputed here line by line, ends where the statement says and at what is owed.
    let running = 0;
    for (const l of s.lines) {
      running += l.debit_minor - l.credit_minor;
      expect(l.balance_minor).toBe(running);
    }
    expect(s.closing_balance_minor).toBe(running);
    expect(s.closing_balance_minor).toBe(await owedOverall(alice));
    expect(s.lines.map((l: { at: string }) => l.at)).toEqual([...s.lines.map((l: { at: string }) => l.at)].sort());

    const html = await as(o, alice).get('/client-area/statement?format=html');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.text).toContain(alice.client_no);
    expect(html.text).toContain(pol.debit_note.instalments[1].number);
  });

  it('pays the second instalment by STK push through the simulated rail (cents only)', async () => {
    const dn = pol.debit_note.instalments[1];
    expectProblem(
      await as(o, alice).post('/client-area/pay', { debit_note_no: dn.number, amount_minor: 150, phone: PAYING_PHONE }),
      422,
      'validation_failed',
      'amount_minor',
    );
    expectProblem(
      await as(o, bob).post('/client-area/pay', { debit_note_no: dn.number, phone: PAYING_PHONE }),
      422,
      'validation_failed',
      'debit_note_no',
    );
    const r = await as(o, alice).post('/client-area/pay', { debit_note_no: dn.number, phone: PAYING_PHONE });
    expect(r.status, r.text).toBe(202);
    expect(r.body.data).toMatchObject({
      debit_note_no: dn.number,
      amount_minor: Math.ceil(dn.amount_minor / 100) * 100,
    });
    const s = await o.settled(r.body.data.checkout_request_id);
    expect(s.body.data.status, s.text).toBe('succeeded');
    const owed = await waitFor(
      'the instalment to be paid',
      () => owedFromRecord(pol.uuid),
      (x) => x.outstanding === 0,
    );
    const st = (await as(o, alice).get('/client-area/statement')).body.data;
    const receipts = st.lines.filter(
      (l: { kind: string; policy_no: string }) => l.kind === 'receipt' && l.policy_no === pol.policy_no,
    );
    expect(receipts.reduce((a: number, l: { credit_minor: number }) => a + l.credit_minor, 0)).toBe(owed.paid);
    expect(st.closing_balance_minor).toBe(await owedOverall(alice));
  });

  it("registers and follows a claim on its own policy, never on another client's", async () => {
    const notice = (p: Active, extra: Record<string, unknown> = {}) => ({
      policy_uuid: p.uuid,
      registration: p.regno,
      cause: 'accident',
      loss_date: TODAY,
      loss_place: 'Thika Road, Roysambu',
      description: 'Rear-ended in traffic',
      estimated_loss_minor: 12_345_600,
      ...extra,
    });
    expectProblem(
      await as(o, alice).post('/client-area/claims', notice(bobPol)),
      422,
      'validation_failed',
      'policy_uuid',
    );
    const r = await as(o, alice).post('/client-area/claims', notice(pol));
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({
      policy_no: pol.policy_no,
      status: 'registered',
      estimated_loss_minor: 12_345_600,
    });
    const row = await t.db.tenant(o.id, (tx) => tx.claim.findFirstOrThrow({ where: { uuid: r.body.data.uuid } }));
    expect(row.channel).toBe('client_area');
    const mine = await as(o, alice).get('/client-area/claims');
    expect(mine.body.data.map((c: { uuid: string }) => c.uuid)).toEqual([r.body.data.uuid]);
    expect((await as(o, bob).get('/client-area/claims')).body.data).toEqual([]);
  });

  it('changes its contact fields (audited), and nothing else', async () => {
    const r = await as(o, alice).patch('/client-area/me', {
      email: 'alice@example.co.ke',
      alt_phone: '0733 000 111',
      name: 'X',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ email: 'alice@example.co.ke', alt_phone: expect.stringContaining('733') });
    expect(r.body.data.name).not.toBe('X');
    const audit = await t.db.tenant(o.id, (tx) =>
      tx.auditLog.findFirst({
        where: { action: 'client.updated', entityId: alice.client_no },
        orderBy: { id: 'desc' },
      }),
    );
    expect(audit?.changes).toMatchObject({ email: { to: 'alice@example.co.ke' } });
  });
});

describe('isolation', () => {
  const READS = [
    '/client-area/me',
    '/client-area/policies',
    '/client-area/statement',
    '/client-area/claims',
    '/client-area/loans',
  ];

  it("every path answers 401 to another organisation's token, a revoked key, or no key; each client sees itself", async () => {
    const stale = { ...bob };
    bob = await signInByClientNo(o, bobPol.client_no); // a new sign-in: it replaces Bob's earlier key
    for (const path of READS) {
      expectProblem(await as(other, alice).get(path), 401, 'invalid_client_key');
      expectProblem(await o.as('staff').get(path), 401, 'invalid_client_key');
      expectProblem(await as(o, stale).get(path), 401, 'invalid_client_key');
      expect((await as(o, alice).get(path)).status).toBe(200);
    }
    for (const [path, body] of [
      ['/client-area/pay', { debit_note_no: pol.debit_note.instalments[0].number }],
      ['/client-area/claims', { policy_uuid: pol.uuid }],
    ] as const) {
      expectProblem(await as(other, alice).post(path, body), 401, 'invalid_client_key');
      expectProblem(await o.as('staff').post(path, { body, idempotencyKey: randomUUID() }), 401, 'invalid_client_key');
    }
    expectProblem(
      await as(other, alice).patch('/client-area/me', { email: 'x@example.com' }),
      401,
      'invalid_client_key',
    );
    const gql = await as(other, alice).gql('{ viewer { clientNo } }');
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('invalid_client_key');
    expect((await as(o, bob).get('/client-area/me')).body.data.client_no).toBe(bobPol.client_no);
  });
});

describe('GraphQL: the viewer, the same as REST', () => {
  it('reads the viewer and its records, and runs its mutations', async () => {
    const v = await as(o, alice).gql(`{
      viewer {
        clientNo
        policies { policyNo status outstanding { amountMinor } }
        statement { closingBalance { amountMinor } lines { number } }
        claims { claimNo }
        loans { reference }
      }
    }`);
    expect(v.body.errors, JSON.stringify(v.body.errors)).toBeUndefined();
    const rest = {
      policies: (await as(o, alice).get('/client-area/policies')).body.data,
      statement: (await as(o, alice).get('/client-area/statement')).body.data,
      claims: (await as(o, alice).get('/client-area/claims')).body.data,
    };
    expect(v.body.data.viewer.clientNo).toBe(alice.client_no);
    expect(
      v.body.data.viewer.policies.map((p: { policyNo: string; status: number }) => [p.policyNo, p.status]),
    ).toEqual(rest.policies.map((p: { policy_no: string; status: number }) => [p.policy_no, p.status]));
    expect(v.body.data.viewer.statement.closingBalance.amountMinor).toBe(rest.statement.closing_balance_minor);
    expect(v.body.data.viewer.claims.map((c: { claimNo: string }) => c.claimNo)).toEqual(
      rest.claims.map((c: { claim_no: string }) => c.claim_no),
    );

    const upd = await as(o, bob).gql(
      `mutation ($input: UpdateViewerContactInput!) {
        updateViewerContact(input: $input) { __typename ... on Viewer { physicalAddress } }
      }`,
      { input: { physicalAddress: 'Moi Avenue, Mombasa' } },
    );
    expect(upd.body.data.updateViewerContact).toEqual({ __typename: 'Viewer', physicalAddress: 'Moi Avenue, Mombasa' });

    const claim = await as(o, bob).gql(
      `mutation ($input: ViewerRegisterClaimInput!) {
        viewerRegisterClaim(input: $input) {
          __typename ... on ViewerClaim { claimNo estimatedLossMinor } ... on ValidationProblem { fieldErrors { field } }
        }
      }`,
      {
        input: {
          policyUuid: bobPol.uuid,
          registration: bobPol.regno,
          cause: 'windscreen',
          lossDate: TODAY,
          lossPlace: 'Nairobi CBD',
          description: 'Cracked windscreen',
          estimatedLossMinor: 2_500_000,
        },
      },
    );
    expect(claim.body.data.viewerRegisterClaim).toMatchObject({
      __typename: 'ViewerClaim',
      estimatedLossMinor: 2_500_000,
    });

    const pending = await o.pendingPolicy({
      client: {
        name: (await as(o, bob).get('/client-area/me')).body.data.name,
        phone: await phoneOf(o, bob.client_no),
        idno: (await as(o, bob).get('/client-area/me')).body.data.id_no,
      },
    });
    const pay = await as(o, bob).gql(
      `mutation ($input: ViewerPayInput!) {
        viewerPay(input: $input) {
          __typename ... on ViewerPayment { status amountMinor debitNoteNo } ... on ValidationProblem { fieldErrors { field } }
        }
      }`,
      { input: { debitNoteNo: pending.debit_note.instalments[0].number, phone: PAYING_PHONE } },
    );
    expect(pay.body.data.viewerPay, JSON.stringify(pay.body)).toMatchObject({
      __typename: 'ViewerPayment',
      debitNoteNo: pending.debit_note.instalments[0].number,
    });
  });
});
