import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.ts';
import { type Config, loadConfig } from '../src/lib/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { prepareDatabase } from '../src/process/start.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestDatabase } from './helpers/db.ts';
import { Api } from './helpers/http.ts';

// The brokerage's recent week (src/seed/demo-week.ts), seeded by the start's own step (prepareDatabase) on a fresh
// database, read back through the database and the API. Expected figures are worked by hand from
// src/seed/demo-week-data.ts; the clock is TEST_NOW (09:00 in Nairobi on Monday 15 June 2026), so "today" is 15 June
// and the week runs from 9 June.

const WEEK_DAYS = ['2026-06-09', '2026-06-10', '2026-06-11', '2026-06-12', '2026-06-13', '2026-06-14', '2026-06-15'];
/** Policy state by the insured's vehicle, from demo-week-data.ts. */
const STATES: Record<string, string> = {
  'KDG 214K': 'active', // Kariuki: paid, endorsed (value up), the extra premium paid
  'KDC 518M': 'active', // Atieno: paid, claim registered
  'KMFD 381C': 'active', // boda boda TPO
  'KDA 907P': 'active', // Chebet: first of two instalments paid
  'KDE 662T': 'active', // Njoroge: paid, claim approved
  'KDB 145R': 'cancelled', // Wafula: paid, vehicle sold
  'KDD 450L': 'active', // Owino: financed, the premium paid by the lender once the deposit was in
  'KCX 730B': 'active', // matatu TPO
  'KDF 288Y': 'pending_payment', // Akinyi
  'KCY 491E': 'active', // Kamau: paid today
  'KDH 034A': 'active', // Mwende: bound and paid today
  'KMGA 122D': 'active', // Kiprop: bound and paid today
  'KDJ 775F': 'pending_payment', // Wambui: bound today
};
/** An instant's Nairobi date and hour, `YYYY-MM-DDTHH` (UTC+3, no daylight saving). */
const nairobiHour = (d: Date) => new Date(d.getTime() + 3 * 3_600_000).toISOString().slice(0, 13);
/** Registrations as stored (normalised: no spaces). */
const reg = (r: string) => r.replace(/ /g, '');
/** Whose records: Faith Mutua (the `agent` client) and Hassan Abdalla (agent headers). */
const MUTUA = ['KDG 214K', 'KDE 662T', 'KDF 288Y', 'KMGA 122D'];
const HASSAN = ['KDC 518M', 'KCX 730B', 'KDH 034A'];

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let config: Config;
let t: TestApp | undefined;
let db: Database;
let first: Awaited<ReturnType<typeof prepareDatabase>>;

const log = createLogger('silent');

async function snapshot(d: Database, tenantId: number) {
  return d.tenant(tenantId, async (tx) => ({
    clients: await tx.client.count(),
    policies: await tx.policy.count(),
    receipts: await tx.receipt.count(),
    notes: await tx.debitNote.count(),
    claims: await tx.claim.count(),
    events: await tx.event.count(),
    payments: await tx.paymentRequest.count(),
    loans: await tx.ipfLoan.count(),
    sms: await tx.smsMessage.count(),
  }));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'demo-week-'));
  database = await createTestDatabase();
  config = {
    ...loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, DATA_DIR: dir }),
    secretsKey: randomBytes(32).toString('base64'),
  };
  first = await prepareDatabase(config, log, database.url);
  t = await startTestApp({}, { databaseUrl: database.url });
  db = t.db;
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

const brokerage = () => db.system((tx) => tx.tenant.findUniqueOrThrow({ where: { code: 'savannah-brokers' } }));

describe('the demo week', () => {
  it('gives the brokerage policies in each intended state, dated over the last seven days', async () => {
    const b = await brokerage();
    const policies = await db.tenant(b.id, (tx) =>
      tx.policy.findMany({ include: { vehicles: true, endorsements: true, cancellations: true } }),
    );
    const byReg = Object.fromEntries(policies.map((p) => [p.vehicles[0].regNo, p]));
    const states = Object.fromEntries(Object.entries(STATES).map(([r, s]) => [reg(r), s]));
    expect(Object.keys(byReg).sort()).toEqual(Object.keys(states).sort());
    for (const [r, state] of Object.entries(states)) expect(byReg[r].status, r).toBe(state);
    expect(byReg[reg('KDG 214K')].endorsements.map((e) => e.status)).toEqual(['confirmed']);
    expect(byReg[reg('KDB 145R')].cancellations.map((c) => c.status)).toEqual(['confirmed']);
    const starts = new Set(policies.map((p) => p.startDate.toISOString().slice(0, 10)));
    expect([...starts].sort()).toEqual(WEEK_DAYS);
    // Thirteen policies for thirteen clients: the first two demo customers and eleven new ones.
    expect(new Set(policies.map((p) => p.clientId)).size).toBe(13);
    expect(byReg[reg('KDD 450L')].paymentMode).toBe('ipf');
  });

  it('receipts each paid the oldest open debit note, to the cent, and their allocations add up', async () => {
    const b = await brokerage();
    const [receipts, notes] = await db.tenant(b.id, (tx) =>
      Promise.all([
        tx.receipt.findMany({ include: { allocations: true }, orderBy: { id: 'asc' } }),
        tx.debitNote.findMany({ include: { allocations: true } }),
      ]),
    );
    // Hand count: one M-Pesa payment for each policy paid directly, and Kariuki's endorsement paid too (11); the
    // lender's receipt for the financed policy (1); the loan's deposit and one instalment, receipted to the loan (2).
    expect(receipts).toHaveLength(14);
    const loanReceipts = receipts.filter((r) => r.loanId !== null);
    expect(loanReceipts.map((r) => [r.method, r.purpose])).toEqual([
      ['mpesa', 'ipf_repayment'],
      ['mpesa', 'ipf_repayment'],
    ]);
    const premiumReceipts = receipts.filter((r) => r.loanId === null);
    expect(premiumReceipts.filter((r) => r.method === 'ipf_lender')).toHaveLength(1);
    for (const r of premiumReceipts) {
      const allocated = r.allocations.reduce((s, a) => s + a.amountMinor, 0n);
      expect(allocated + r.unallocatedMinor, r.receiptNo).toBe(r.amountMinor);
      // Whole shillings (M-Pesa), at most 99 cents over what the notes took.
      expect(r.amountMinor % 100n, r.receiptNo).toBe(0n);
    }
    for (const n of notes) {
      expect(
        n.allocations.reduce((s, a) => s + a.amountMinor, 0n),
        n.number,
      ).toBe(n.paidMinor);
    }
    // Fully paid notes: the first note of each of the ten policies paid directly, the endorsement's, and the financed
    // policy's (by the lender).
    const paidInFull = notes.filter((n) => n.paidMinor === n.amountMinor);
    expect(paidInFull).toHaveLength(12);
    // Each receipt is its note's amount rounded up to the shilling (the note it paid first).
    for (const r of premiumReceipts) {
      const first = notes.find((n) => n.id === r.allocations[0].debitNoteId)!;
      const shillings = (first.amountMinor + 99n) / 100n;
      expect(r.amountMinor, r.receiptNo).toBe(shillings * 100n);
    }
    const receiptDays = new Set(
      receipts.map((r) => new Date(r.paidAt.getTime() + 3 * 3_600_000).toISOString().slice(0, 10)),
    );
    expect(receiptDays.has('2026-06-15')).toBe(true);
    expect(receiptDays.size).toBeGreaterThanOrEqual(5);
  });

  it('has claims in two states with their history, and the events a live week records', async () => {
    const b = await brokerage();
    const claims = await db.tenant(b.id, (tx) =>
      tx.claim.findMany({ include: { history: { orderBy: { id: 'asc' } } }, orderBy: { id: 'asc' } }),
    );
    expect(claims.map((c) => c.status).sort()).toEqual(['approved', 'registered']);
    const approved = claims.find((c) => c.status === 'approved')!;
    expect(approved.history.map((h) => h.toStatus)).toEqual(
      expect.arrayContaining(['documents_pending', 'with_underwriter', 'under_assessment', 'approved']),
    );
    // Approved KES 120,000 on a Simba private car: net payable is that less the excess.
    expect(approved.approvedAmountMinor).toBe(12_000_000n);
    expect(approved.netPayableMinor! > 0n && approved.netPayableMinor! < 12_000_000n).toBe(true);
    const events = await db.tenant(b.id, (tx) => tx.event.groupBy({ by: ['name'], _count: { _all: true } }));
    const count = Object.fromEntries(events.map((e) => [e.name, e._count._all]));
    // Eleven premium payments and the loan's two (the lender's receipt raises none); ten policies paid directly and
    // the financed one.
    expect(count['payment.received']).toBe(13);
    expect(count['policy.activated']).toBe(11);
    expect(count['ipf.decided']).toBe(1);
    expect(count['ipf.funded']).toBe(1);
    expect(count['claim.registered']).toBe(2);
    expect(count['claim.approved']).toBe(1);
    expect(count['policy.cancelled']).toBe(1);
  });

  it("shows each agent only its own records through the API, and today's collections to staff", async () => {
    const creds = first!.brokerage as any;
    const api = new Api(t!.origin);
    const staff = await api.token(creds.api_clients.staff.client_id, creds.api_clients.staff.client_secret);
    const agent = await api.token(creds.api_clients.agent.client_id, creds.api_clients.agent.client_secret);
    const hassan = creds.agents.find((a: any) => a.name === 'Hassan Abdalla');
    const regs = async (token: string, headers: Record<string, string> = {}) => {
      const r = await api.get('/policies?limit=100', { token, headers });
      expect(r.status, r.text).toBe(200);
      const uuids: string[] = r.body.data.map((p: any) => p.uuid);
      const rows = await db.system((tx) =>
        tx.policy.findMany({ where: { uuid: { in: uuids } }, include: { vehicles: true } }),
      );
      return rows.map((p) => p.vehicles[0].regNo).sort();
    };
    expect(await regs(staff)).toEqual(Object.keys(STATES).map(reg).sort());
    expect(await regs(agent)).toEqual(MUTUA.map(reg).sort());
    expect(await regs(staff, { 'x-agent-code': hassan.code, 'x-agent-key': hassan.key })).toEqual(
      HASSAN.map(reg).sort(),
    );
    const g = await api.post(`${t!.origin}/graphql`, {
      token: staff,
      body: { query: '{ collectionsSummary { date count } }' },
    });
    expect(g.body.data?.collectionsSummary, g.text).toEqual({ date: '2026-06-15', count: 3 });
    // The prompts of the day are those of the day's receipts (dated with them), not the whole week's.
    const { id: tenantId } = await brokerage();
    const prompted = await db.system((tx) =>
      tx.receipt.count({
        where: {
          tenantId,
          paymentRequestId: { not: null },
          paidAt: { gte: new Date('2026-06-15T00:00:00+03:00'), lt: new Date('2026-06-16T00:00:00+03:00') },
        },
      }),
    );
    const p = await api.post(`${t!.origin}/graphql`, {
      token: staff,
      body: { query: '{ collectionsSummary { prompts { status count } } }' },
    });
    expect(p.body.data?.collectionsSummary.prompts, p.text).toEqual([{ status: 'succeeded', count: prompted }]);
  });

  it('finances one policy through the loan flow, figures by hand, and shows the loan to staff on GET /ipf/loans', async () => {
    // By hand (demo-week-data.ts `owino`; docs/premium-finance.md, src/modules/reference/ipf-terms.ts's rules): a
    // private car at KES 2,400,000 with Twiga is rated 300 bps (over 2M): 72,000.00; training levy 0.20 % 144.00,
    // PHCF 0.25 % 180.00, stamp duty 40.00: gross 7,236,400 cents, the principal. Mkopo over 6 months charges 380 bps:
    // 274,983.2 → 274,983; total 7,511,383; payments 2–6 ⌊7,511,383 ÷ 6⌋ to the shilling = 1,251,800, the deposit
    // 7,511,383 − 5 × 1,251,800 = 1,252,383; apr 380 × 12 ÷ 6 = 760 bps. Signed 10 June 09:00: due 10 June, then the
    // 10th of July to November. The deposit is pushed as KES 12,524 (17 cents on to line 2); on 14 June line 2's
    // 1,251,783 is pushed as KES 12,518 (17 cents on to line 3): paid 2,504,200, outstanding 5,007,183.
    const b = await brokerage();
    const loans = await db.tenant(b.id, (tx) =>
      tx.ipfLoan.findMany({
        include: {
          instalments: { orderBy: { seq: 'asc' } },
          application: true,
          policy: { include: { vehicles: true } },
        },
      }),
    );
    expect(loans).toHaveLength(1);
    const [loan] = loans;
    expect(loan.policy.vehicles[0].regNo).toBe(reg('KDD 450L'));
    expect(loan).toMatchObject({
      status: 'active',
      tenorMonths: 6,
      principalMinor: 7_236_400n,
      chargeMinor: 274_983n,
      totalRepayableMinor: 7_511_383n,
      aprBps: 760,
      paidMinor: 2_504_200n,
    });
    // Applied for on 9 June; signed at 09:00 and funded at 10:00 on 10 June, Nairobi (the week's clock runs on from
    // each step's hour).
    expect(nairobiHour(loan.application.consentAt)).toBe('2026-06-09T10');
    expect(nairobiHour(loan.application.decidedAt!)).toBe('2026-06-09T14');
    expect(nairobiHour(loan.signedAt)).toBe('2026-06-10T09');
    expect(nairobiHour(loan.fundedAt!)).toBe('2026-06-10T10');
    expect(loan.application.status).toBe('funded');
    expect(loan.instalments.map((i) => [i.dueOn.toISOString().slice(0, 10), i.amountMinor, i.paidMinor])).toEqual([
      ['2026-06-10', 1_252_383n, 1_252_383n],
      ['2026-07-10', 1_251_800n, 1_251_800n],
      ['2026-08-10', 1_251_800n, 17n],
      ['2026-09-10', 1_251_800n, 0n],
      ['2026-10-10', 1_251_800n, 0n],
      ['2026-11-10', 1_251_800n, 0n],
    ]);
    const moves = await db.tenant(b.id, (tx) => tx.ipfStateHistory.findMany({ orderBy: { id: 'asc' } }));
    expect(moves.map((m) => `${m.entity}: ${m.fromStatus} → ${m.toStatus} by ${m.actor}`)).toEqual([
      'application: draft → submitted by Wanjiku Kamau',
      'application: submitted → approved by lender',
      'application: approved → signed by client',
      'loan: awaiting_deposit → active by lender',
      'application: signed → funded by lender',
    ]);
    // The lender paid the whole premium onto the policy's debit note on the day of the deposit.
    const lenderReceipt = await db.tenant(b.id, (tx) =>
      tx.receipt.findFirstOrThrow({ where: { method: 'ipf_lender' }, include: { allocations: true } }),
    );
    expect(lenderReceipt).toMatchObject({ policyId: loan.policyId, amountMinor: 7_236_400n, unallocatedMinor: 0n });
    expect(lenderReceipt.allocations.map((a) => a.amountMinor)).toEqual([7_236_400n]);
    expect(nairobiHour(lenderReceipt.paidAt)).toBe('2026-06-10T10');
    // The signing code went by SMS, masked in the outbox, to the client's simulated handset.
    const sms = await db.tenant(b.id, (tx) =>
      tx.smsMessage.findMany({ where: { purpose: 'ipf_sign' }, include: { recipients: true } }),
    );
    expect(sms).toHaveLength(1);
    expect(sms[0].body).toMatch(/^\*{6} signs your /);
    expect(sms[0].recipients.map((r) => [r.phone, r.status])).toEqual([['254711401111', 'sent']]);

    const creds = first!.brokerage as any;
    const api = new Api(t!.origin);
    const staff = await api.token(creds.api_clients.staff.client_id, creds.api_clients.staff.client_secret);
    const agent = await api.token(creds.api_clients.agent.client_id, creds.api_clients.agent.client_secret);
    const list = await api.get('/ipf/loans', { token: staff });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      uuid: loan.uuid,
      loan_no: loan.loanNo,
      status: 'active',
      tenor_months: 6,
      principal_minor: 7_236_400,
      charge_minor: 274_983,
      total_repayable_minor: 7_511_383,
      apr_bps: 760,
      paid_minor: 2_504_200,
      outstanding_minor: 5_007_183,
      arrears_minor: 0,
      next_due: { instalment: 3, due_on: '2026-08-10' },
    });
    const one = await api.get(`/ipf/loans/${loan.uuid}`, { token: staff });
    expect(one.status, one.text).toBe(200);
    expect(one.body.data.instalments.map((i: any) => i.status)).toEqual([
      'paid',
      'paid',
      'upcoming',
      'upcoming',
      'upcoming',
      'upcoming',
    ]);
    // The deposit on 10 June at 10:00, the instalment paid early on 14 June at 17:00.
    expect(
      one.body.data.payments.map((p: any) => [
        nairobiHour(new Date(p.paid_at)),
        p.amount_minor,
        p.allocations.map((a: any) => [a.instalment, a.amount_minor]),
      ]),
    ).toEqual([
      [
        '2026-06-10T10',
        1_252_400,
        [
          [1, 1_252_383],
          [2, 17],
        ],
      ],
      [
        '2026-06-14T17',
        1_251_800,
        [
          [2, 1_251_783],
          [3, 17],
        ],
      ],
    ]);
    // Faith Mutua's key reaches only her own policies' loans: none.
    const agents = await api.get('/ipf/loans', { token: agent });
    expect(agents.status, agents.text).toBe(200);
    expect(agents.body.data).toEqual([]);
  });

  it('is added once: a second start adds nothing and changes no secret', async () => {
    const b = await brokerage();
    const before = await snapshot(db, b.id);
    const second = await prepareDatabase(config, log, database.url);
    expect(await snapshot(db, b.id)).toEqual(before);
    // The same secrets, agents and customers (the week's new clients listed after the demo's own, both times).
    expect(second).toEqual(first);
    expect(first!.brokerage.customers!.map((c) => c.client_no)).toEqual(
      Array.from({ length: 10 }, (_, i) => `C-${String(i + 1).padStart(6, '0')}`),
    );
  });
});
