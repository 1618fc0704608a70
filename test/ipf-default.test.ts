import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { noIpfCounts } from '../src/modules/finance/daily/run.ts';
import { runIpfDaily } from '../src/modules/finance/loan/daily.ts';
import { INSTANT_RAIL, TODAY, useKit, type Org } from './kit.ts';
import { activeLoan, loanRow as kitLoanRow, type SignedLoan } from './kit/ipf.ts';
import { cancel } from './kit/policies.ts';

/**
 * A financed policy whose loan defaults (docs/premium-finance.md "Premium finance: reminders, arrears and default"): the daily run
 * cancels the policy for non-payment and the unearned premium goes to the lender, not the client. Every figure is
 * worked by hand below, independently of proration.ts and the daily run.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const run = (asOf: string) => runIpfDaily(t.app.services, asOf);

// ---- independent arithmetic -------------------------------------------------------------------------------------
let levyRates: { code: string; basis: string; rateBps: number | null }[];
beforeAll(async () => {
  levyRates = await t.db.tenant(o.id, (tx) => tx.levy.findMany());
});
const roundDiv = (num: bigint, den: bigint) => (2n * num + den) / (2n * den);
const dayNo = (ymd: string) => Date.parse(`${ymd}T00:00:00Z`) / 86_400_000;
const plusDays = (ymd: string, n: number) => new Date((dayNo(ymd) + n) * 86_400_000).toISOString().slice(0, 10);
/** Unearned basic premium B × R / D (R: days from c to the end inclusive) and each percent levy on it. */
function unearnedCredit(basic: bigint, start: string, end: string, c: string) {
  const D = BigInt(dayNo(end) - dayNo(start) + 1);
  const R = BigInt(dayNo(end) - dayNo(c) + 1);
  const u = roundDiv(basic * R, D);
  const levies = levyRates
    .filter((l) => l.basis === 'percent')
    .reduce((s, l) => s + roundDiv(u * BigInt(l.rateBps!), 10_000n), 0n);
  return u + levies;
}

// ---- reads ------------------------------------------------------------------------------------------------------
const loanRow = (id: number) => kitLoanRow(o, id);
const policyRow = (uuid: string) =>
  t.db.tenant(o.id, (tx) =>
    tx.policy.findUniqueOrThrow({
      where: { uuid },
      include: { creditNotes: true, statusHistory: { orderBy: { id: 'asc' } } },
    }),
  );
const eventsFor = async (name: string, loanUuid: string) =>
  (await t.db.tenant(o.id, (tx) => tx.event.findMany({ where: { name }, orderBy: { createdAt: 'asc' } })))
    .map((e) => e.data as any)
    .filter((d) => d.loan_uuid === loanUuid);
async function clientCredit(org: Org, clientNo: string): Promise<number> {
  const r = await org.api.get(`/clients/${clientNo}/balance`, { token: org.tokens.staff });
  expect(r.status, r.text).toBe(200);
  return r.body.data.credit.amount_minor;
}
const ymd = (d: Date) => d.toISOString().slice(0, 10);
const owing = (l: { amountMinor: bigint; paidMinor: bigint; waivedMinor: bigint }) =>
  l.amountMinor - l.paidMinor - l.waivedMinor;

describe('a loan that defaults: the policy is cancelled for non-payment and the lender gets the refund', () => {
  let s: SignedLoan & { record: any };
  let creditBefore: number;
  let due2: string;
  let grace: number;

  beforeAll(async () => {
    s = await activeLoan(o, { signedOn: TODAY });
    creditBefore = await clientCredit(o, s.policy.client_no);
    const loan = await loanRow(s.loan.id);
    due2 = ymd(loan.instalments[1].dueOn);
    grace = (await t.db.tenant(o.id, (tx) => tx.ipfLender.findUniqueOrThrow({ where: { id: loan.lenderId } })))
      .defaultGraceDays;
  }, 90_000);

  it('the day after instalment 2 falls due: ipf.instalment_overdue, once', async () => {
    const loan = await loanRow(s.loan.id);
    const line2 = loan.instalments[1];
    await run(plusDays(due2, 1));
    await run(plusDays(due2, 2));
    const notices = await eventsFor('ipf.instalment_overdue', s.loan.uuid);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      loan_no: s.loan.loanNo,
      policy_uuid: s.policy.uuid,
      client_no: s.policy.client_no,
      instalment: 2,
      due_on: due2,
      overdue: { amount_minor: Number(owing(line2)) },
      arrears: { amount_minor: Number(owing(line2)) },
      defaults_on: plusDays(due2, grace),
    });
    expect((await loanRow(s.loan.id)).instalments[1].overdueNotifiedAt).not.toBeNull();
  }, 60_000);

  it('still active on defaults_on (grace days not yet passed)', async () => {
    await run(plusDays(due2, grace));
    expect((await loanRow(s.loan.id)).status).toBe('active');
    expect((await policyRow(s.policy.uuid)).status).toBe('active');
  }, 60_000);

  it('the day after: loan defaulted, policy cancelled for non-payment, the unearned premium to the lender', async () => {
    const asOf = plusDays(due2, grace + 1);
    const before = await loanRow(s.loan.id);
    const counts = await run(asOf);
    expect(counts.defaulted).toBe(1);
    expect(counts.failures).toBe(0);

    const rec = s.record;
    const expected = unearnedCredit(BigInt(rec.premium.basic_premium_minor), rec.start_date, rec.end_date, asOf);
    const loan = await loanRow(s.loan.id);
    expect(loan.status).toBe('defaulted');
    expect(loan.closedAt).not.toBeNull();
    expect(loan.lenderRefundMinor).toBe(expected);

    const policy = await policyRow(s.policy.uuid);
    expect(policy.status).toBe('cancelled');
    expect(policy.refundsTo).toBe('client');
    expect(policy.statusHistory.at(-1)).toMatchObject({
      fromStatus: 'active',
      toStatus: 'cancelled',
      source: 'schedule',
      reason: 'non_payment (requested by lender)',
      actorUserId: null,
    });
    expect(policy.creditNotes).toHaveLength(1);
    expect(policy.creditNotes[0]).toMatchObject({
      amountMinor: expected,
      appliedMinor: 0n,
      refundedMinor: expected,
      refundPayee: 'lender',
    });
    expect(await clientCredit(o, s.policy.client_no)).toBe(creditBefore);

    const list = await o.api.get(`/policies/${s.policy.uuid}/cancellations`, { token: o.tokens.staff });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const c = list.body.data[0];
    expect(c).toMatchObject({
      status: 'confirmed',
      reason: 'non_payment',
      registry_reason_id: 21,
      requested_by: 'lender',
      effective_date: asOf,
      refund: {
        credit_total_minor: Number(expected),
        refund_payee: 'lender',
        refund_to_lender_minor: Number(expected),
        refund_to_client_minor: 0,
      },
      credit_note: { refunded_minor: Number(expected), refund_payee: 'lender' },
    });

    const [defaulted] = await eventsFor('ipf.defaulted', s.loan.uuid);
    const arrears = before.instalments.filter((l) => ymd(l.dueOn) < asOf).reduce((sum, l) => sum + owing(l), 0n);
    expect(defaulted).toMatchObject({
      loan_no: s.loan.loanNo,
      policy_no: s.policy.policy_no,
      cancellation_uuid: c.uuid,
      lender_refund: { amount_minor: Number(expected) },
      arrears: { amount_minor: Number(arrears) },
      outstanding: { amount_minor: Number(loan.totalRepayableMinor - loan.paidMinor) },
    });
    const cancelled = (
      await t.db.tenant(o.id, (tx) => tx.event.findMany({ where: { name: 'policy.cancelled' } }))
    ).filter((e) => (e.data as any).policy_uuid === s.policy.uuid);
    expect(cancelled.map((e) => e.data)).toMatchObject([
      { reason: 'non_payment', requested_by: 'lender', refund_payee: 'lender' },
    ]);
    expect(await eventsFor('ipf.instalment_overdue', s.loan.uuid)).toHaveLength(1);
    const history = await t.db.tenant(o.id, (tx) =>
      tx.ipfStateHistory.findMany({ where: { entity: 'loan', entityId: s.loan.id }, orderBy: { id: 'asc' } }),
    );
    expect(history.at(-1)).toMatchObject({ fromStatus: 'active', toStatus: 'defaulted', actor: 'system' });
    expect(history.at(-1)!.reason).toContain(`instalment 2 due ${due2}`);
  }, 60_000);

  it('the same day again changes nothing', async () => {
    const counts = await run(plusDays(due2, grace + 1));
    expect(counts).toEqual(noIpfCounts());
    expect(await eventsFor('ipf.defaulted', s.loan.uuid)).toHaveLength(1);
    expect((await policyRow(s.policy.uuid)).creditNotes).toHaveLength(1);
  }, 60_000);
});

describe('a financed policy cancelled by hand refunds the lender', () => {
  const write = (path: string, body?: unknown) =>
    o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });

  it('preview and confirmation say lender; the client credit is untouched; a later default raises no second cancellation', async () => {
    const s = await activeLoan(o, { signedOn: TODAY });
    const creditBefore = await clientCredit(o, s.policy.client_no);
    const eff = plusDays(TODAY, 30);
    const preview = await write(`/policies/${s.policy.uuid}/cancellation`, {
      reason: 'insured_request',
      requested_by: 'insured',
      effective_date: eff,
    });
    expect(preview.status, preview.text).toBe(201);
    const rec = s.record;
    const expected = unearnedCredit(BigInt(rec.premium.basic_premium_minor), rec.start_date, rec.end_date, eff);
    expect(preview.body.data.refund).toMatchObject({
      credit_total_minor: Number(expected),
      refund_payee: 'lender',
      refund_to_lender_minor: Number(expected),
      refund_to_client_minor: 0,
    });
    const confirmed = await cancel(o, s.policy.uuid, { effective_date: eff });
    expect(confirmed.credit_note).toMatchObject({ refunded_minor: Number(expected), refund_payee: 'lender' });
    expect(await clientCredit(o, s.policy.client_no)).toBe(creditBefore);

    // The loan still runs; left unpaid it defaults with the policy already cancelled: no cancellation, no refund.
    const loan = await loanRow(s.loan.id);
    const asOf = plusDays(ymd(loan.instalments[1].dueOn), 31);
    await run(asOf);
    const after = await loanRow(s.loan.id);
    expect(after.status).toBe('defaulted');
    expect(after.lenderRefundMinor).toBe(0n);
    const [defaulted] = await eventsFor('ipf.defaulted', s.loan.uuid);
    expect(defaulted).toMatchObject({ cancellation_uuid: null, lender_refund: { amount_minor: 0 } });
    const policy = await policyRow(s.policy.uuid);
    expect(policy.creditNotes).toHaveLength(1);
    expect(policy.refundsTo).toBe('client');
  }, 90_000);

  it('a reinstatement takes nothing from the client credit: the lender has the refund, the client owes it again', async () => {
    const s = await activeLoan(o, { signedOn: TODAY });
    const creditBefore = await clientCredit(o, s.policy.client_no);
    const confirmed = await cancel(o, s.policy.uuid, { effective_date: plusDays(TODAY, 10) });
    const refunded = confirmed.credit_note.refunded_minor;
    const r = await write(`/policies/${s.policy.uuid}/reinstate`, {});
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.reinstatement_debit_note).toMatchObject({ amount_minor: refunded, credited_minor: 0 });
    expect(await clientCredit(o, s.policy.client_no)).toBe(creditBefore);
  }, 90_000);
});
