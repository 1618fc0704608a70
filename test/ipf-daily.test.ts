import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { noIpfCounts } from '../src/modules/finance/daily/run.ts';
import { runIpfDaily } from '../src/modules/finance/loan/daily.ts';
import { INSTANT_RAIL, TODAY, useKit, type Org } from './kit.ts';
import { activeLoan, signedLoan } from './kit/ipf.ts';

/**
 * The daily premium-finance run (docs/premium-finance.md "Premium finance: reminders, arrears and default"): reminders by SMS before
 * due dates, once; expiry of unfinished applications and of agreements whose deposit never came; a day run twice
 * changes nothing the second time. Defaults: test/ipf-default.test.ts.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, broke] = t.useOrgs(2, { fast: true });
const run = (asOf: string) => runIpfDaily(t.app.services, asOf);

const plusDays = (ymd: string, n: number) =>
  new Date(Date.parse(`${ymd}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const ymd = (d: Date) => d.toISOString().slice(0, 10);
const NOTHING = noIpfCounts();

const reminders = (org: Org, clientId: number) =>
  t.db.tenant(org.id, (tx) =>
    tx.smsMessage.findMany({ where: { purpose: 'ipf_reminder', clientId }, include: { recipients: true } }),
  );
const lines = (org: Org, loanId: number) =>
  t.db.tenant(org.id, (tx) => tx.ipfInstalment.findMany({ where: { loanId }, orderBy: { seq: 'asc' } }));
const loanOf = (org: Org, loanId: number) =>
  t.db.tenant(org.id, (tx) => tx.ipfLoan.findUniqueOrThrow({ where: { id: loanId }, include: { client: true } }));

describe('reminders before a due date', () => {
  it('one SMS per instalment, from reminderDaysBefore days ahead, never twice', async () => {
    const s = await activeLoan(o, { signedOn: TODAY });
    const loan = await loanOf(o, s.loan.id);
    const line2 = (await lines(o, s.loan.id))[1];
    const due = ymd(line2.dueOn);

    await run(plusDays(due, -4));
    expect(await reminders(o, loan.clientId)).toHaveLength(0);

    const first = await run(plusDays(due, -3));
    expect(first.reminders).toBe(1);
    const sent = await reminders(o, loan.clientId);
    expect(sent).toHaveLength(1);
    const tenant = await t.db.tenant(o.id, (tx) => tx.tenant.findUniqueOrThrow({ where: { id: o.id } }));
    expect(sent[0]).toMatchObject({ purpose: 'ipf_reminder', templateCode: 'ipf_reminder' });
    expect(sent[0].recipients.map((r) => r.phone)).toEqual([loan.client.phone]);
    // The amount still owed (the deposit's odd cents carried forward), rounded up to what M-Pesa can take.
    const owed = line2.amountMinor - line2.paidMinor;
    expect(sent[0].body).toContain(`KES ${Number((owed + 99n) / 100n).toLocaleString('en-KE')}`);
    expect(sent[0].body).toContain(`loan ${s.loan.loanNo} is due on ${due}`);
    expect(sent[0].body).toContain(`paybill ${tenant.paybill}, account ${s.loan.loanNo}`);
    expect((await lines(o, s.loan.id))[1].remindedAt).not.toBeNull();

    expect(await run(plusDays(due, -3))).toEqual(NOTHING);
    await run(plusDays(due, -1));
    await run(due);
    expect(await reminders(o, loan.clientId)).toHaveLength(1);
    // The deposit line is never reminded.
    expect((await lines(o, s.loan.id))[0].remindedAt).toBeNull();
  }, 90_000);

  it('an organisation without SMS balance: the send is refused, the run goes on, and tries again tomorrow', async () => {
    const s = await activeLoan(broke, { signedOn: TODAY });
    const loan = await loanOf(broke, s.loan.id);
    const due = ymd((await lines(broke, s.loan.id))[1].dueOn);
    const balance = await t.db.tenant(broke.id, (tx) =>
      tx.smsAccount.findUniqueOrThrow({ where: { tenantId: broke.id } }),
    );
    await t.db.tenant(broke.id, (tx) =>
      tx.smsAccount.update({ where: { tenantId: broke.id }, data: { balanceUnits: 0 } }),
    );

    const refused = await run(plusDays(due, -3));
    expect(refused).toMatchObject({ reminders: 0, remindersSkipped: 1, failures: 0 });
    expect(await reminders(broke, loan.clientId)).toHaveLength(0);
    expect((await lines(broke, s.loan.id))[1].remindedAt).toBeNull();

    await t.db.tenant(broke.id, (tx) =>
      tx.smsAccount.update({ where: { tenantId: broke.id }, data: { balanceUnits: balance.balanceUnits } }),
    );
    expect(await run(plusDays(due, -2))).toMatchObject({ reminders: 1, remindersSkipped: 0 });
    expect(await reminders(broke, loan.clientId)).toHaveLength(1);
  }, 90_000);
});

describe('expiry', () => {
  /** A second application for a signed loan's policy, `approved` and expiring on `expiresAt`. */
  async function approvedApplication(sourceId: number, expiresAt: Date) {
    return t.db.tenant(o.id, async (tx) => {
      const src = await tx.ipfApplication.findUniqueOrThrow({ where: { id: sourceId } });
      const { id: _id, createdAt: _c, updatedAt: _u, signedAt: _s, schedule, decisionReasons, ...rest } = src;
      return tx.ipfApplication.create({
        data: {
          ...rest,
          schedule: schedule as never,
          decisionReasons: decisionReasons as never,
          uuid: randomUUID(),
          applicationNo: `${src.applicationNo}-A`,
          status: 'approved',
          expiresAt,
        },
      });
    });
  }
  const application = (id: number) => t.db.tenant(o.id, (tx) => tx.ipfApplication.findUniqueOrThrow({ where: { id } }));
  const historyOf = (entity: string, entityId: number) =>
    t.db.tenant(o.id, (tx) => tx.ipfStateHistory.findMany({ where: { entity, entityId }, orderBy: { id: 'asc' } }));

  it('an approved application past expires_at expires the next day; a signed loan without its deposit is cancelled after 7 days', async () => {
    const s = await signedLoan(o, { signedOn: TODAY });
    const expiresAt = new Date(`${plusDays(TODAY, 14)}T10:00:00+03:00`);
    const approved = await approvedApplication(s.application.id, expiresAt);

    // Deposit days: signed today, cancelled once more than 7 whole days have passed.
    await run(plusDays(TODAY, 7));
    expect((await loanOf(o, s.loan.id)).status).toBe('awaiting_deposit');
    const cut = await run(plusDays(TODAY, 8));
    expect(cut).toMatchObject({ loansCancelled: 1, applicationsExpired: 0, failures: 0 });
    const loan = await loanOf(o, s.loan.id);
    expect(loan.status).toBe('cancelled');
    expect(loan.closedAt).not.toBeNull();
    const signed = await application(s.application.id);
    expect(signed.status).toBe('expired');
    expect(signed.closedReason).toMatch(/^deposit not paid within 7 days of signing/);
    expect(await historyOf('loan', s.loan.id)).toMatchObject([
      { fromStatus: 'awaiting_deposit', toStatus: 'cancelled', actor: 'system' },
    ]);
    expect(await historyOf('application', s.application.id)).toMatchObject([
      { fromStatus: 'signed', toStatus: 'expired', actor: 'system' },
    ]);

    // The approved one: still approved on its last day, expired on the day after.
    await run(plusDays(TODAY, 14));
    expect((await application(approved.id)).status).toBe('approved');
    expect(await run(plusDays(TODAY, 15))).toMatchObject({ applicationsExpired: 1, failures: 0 });
    expect(await application(approved.id)).toMatchObject({
      status: 'expired',
      closedReason: expect.stringMatching(/^not completed by /),
    });
    expect(await historyOf('application', approved.id)).toMatchObject([
      { fromStatus: 'approved', toStatus: 'expired', actor: 'system' },
    ]);
  }, 90_000);

  it('a deposit partly paid is left alone', async () => {
    const s = await signedLoan(o, { signedOn: TODAY });
    await t.db.tenant(o.id, (tx) =>
      tx.ipfInstalment.update({ where: { loanId_seq: { loanId: s.loan.id, seq: 1 } }, data: { paidMinor: 100n } }),
    );
    await run(plusDays(TODAY, 9));
    expect((await loanOf(o, s.loan.id)).status).toBe('awaiting_deposit');
  }, 90_000);
});

describe('a day run twice', () => {
  it('changes nothing the second time', async () => {
    const s = await activeLoan(o, { signedOn: TODAY });
    await signedLoan(o, { signedOn: TODAY });
    // Reminders, overdue notices, a default and expiries all fall on this day for some of the file's loans.
    const line3 = (await lines(o, s.loan.id))[2];
    const day = plusDays(ymd(line3.dueOn), -2);
    const first = await run(day);
    expect(first.failures).toBe(0);
    expect(first.reminders + first.overdue + first.defaulted + first.loansCancelled).toBeGreaterThan(0);
    const snapshot = async () =>
      t.db.system(async (tx) => ({
        // What the run writes (payments and certificates of the file's policies go on in the background).
        events: await tx.event.count({ where: { name: { startsWith: 'ipf.' } } }),
        sms: await tx.smsMessage.count({ where: { purpose: 'ipf_reminder' } }),
        history: await tx.ipfStateHistory.count(),
        cancellations: await tx.cancellation.count(),
      }));
    const before = await snapshot();
    expect(await run(day)).toEqual(NOTHING);
    expect(await snapshot()).toEqual(before);
  }, 90_000);
});
