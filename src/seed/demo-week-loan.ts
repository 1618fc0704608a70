import type { AppServices, Context } from '../context.ts';
import { ipfApplicationService } from '../modules/finance/application.service.ts';
import { lineOutstanding } from '../modules/finance/loan/balance.ts';
import type { WeekLoan, WeekWhen } from './demo-week-data.ts';
import { payAtOnce, type WeekJobs } from './demo-week-services.ts';

/**
 * The week's premium-finance loan (demo-week-data.ts `financed`), through the finance services the API calls
 * (docs/premium-finance.md): applied for and submitted by the policy's actor, decided by the lender (the queued
 * ipf.decide job, run when the week says), signed with the code the client received by SMS (read on the simulated
 * handset, where demos and tests read it), the deposit paid by STK push, the lender's disbursement paying the
 * insurer (the queued ipf.disburse job: the policy active), then any later instalments.
 */

/** What the loan's steps use of the week: its services and queued jobs, the acting users, the policy it bound. */
export interface LoanWeek {
  app: AppServices;
  jobs: WeekJobs;
  /** Who applies and signs: the policy's actor. */
  actor: Context;
  /** Who takes the payments (the staff user, as for every payment of the week). */
  staff: Context;
  policy(): { uuid: string; policyNo: string; phone: string };
}

export function loanSteps(w: LoanWeek, f: WeekLoan, add: (at: WeekWhen, run: () => Promise<void>) => void): void {
  const loan = { application: '', applicationNo: '', loanNo: '' };
  add(f.applied, async () => {
    const a = await apply(w, f);
    loan.application = a.uuid;
    loan.applicationNo = a.applicationNo;
  });
  add(f.decided, () => expectJobs(w, 'decision', 'approved'));
  add(f.signed, async () => {
    loan.loanNo = await sign(w, loan.application, loan.applicationNo);
  });
  add(f.deposit, async () => {
    await repay(w, loan.loanNo);
    await expectJobs(w, 'disbursement', 'funded');
  });
  for (const at of f.repaid ?? []) add(at, () => repay(w, loan.loanNo));
}

/** The application, with the policyholder's ID number (KYC must match the client record), submitted at once. */
async function apply(w: LoanWeek, f: WeekLoan) {
  const pol = w.policy();
  const { lender, holder } = await w.actor.tx(async (tx) => ({
    lender: await tx.ipfLender.findFirstOrThrow({ where: { name: f.lender } }),
    holder: await tx.client.findFirstOrThrow({ where: { policies: { some: { uuid: pol.uuid } } } }),
  }));
  return ipfApplicationService.create(w.actor, {
    policyUuid: pol.uuid,
    lenderId: lender.id,
    tenorMonths: f.months,
    idNumber: holder.idNo,
    kraPin: f.kraPin,
    incomeBand: f.incomeBand,
    consent: true,
    submit: true,
  });
}

/** The signing code sent, delivered to the client's handset and read out there; the loan number of the signed loan. */
async function sign(w: LoanWeek, uuid: string, applicationNo: string): Promise<string> {
  const sent = await ipfApplicationService.requestSigningCode(w.actor, uuid);
  await expectJobs(w, 'sms', 'sent');
  const tenant = w.actor.principal!.tenant;
  const received = await w.app.sms!.gateway.handset!(tenant.code.toLowerCase(), sent.phone);
  const text = received.find((m) => m.body.includes(applicationNo))?.body.replace(applicationNo, '') ?? '';
  const code = /(?<!\d)\d{6}(?!\d)/.exec(text)?.[0];
  if (!code) throw new Error(`demo week: no signing code for ${applicationNo} on the client's handset`);
  const signed = await ipfApplicationService.sign(w.actor, uuid, code);
  const row = await w.actor.tx((tx) => tx.ipfLoan.findUniqueOrThrow({ where: { applicationId: signed.id } }));
  return row.loanNo;
}

/** An ipf_repayment STK push of what the loan's oldest open line owes (whole shillings, rounded up), paid at once. */
async function repay(w: LoanWeek, loanNo: string): Promise<void> {
  const lines = await w.staff.tx((tx) =>
    tx.ipfInstalment.findMany({ where: { loan: { loanNo } }, orderBy: { seq: 'asc' } }),
  );
  const due = lines.map(lineOutstanding).find((left) => left > 0n);
  if (!due) throw new Error(`demo week: loan ${loanNo} owes nothing`);
  const push = { phone: w.policy().phone, amount: Number((due + 99n) / 100n), account: loanNo };
  await payAtOnce(w.staff, { ...push, purpose: 'ipf_repayment' }, loanNo);
}

/** Runs the queued jobs of `kind` and checks they did what the week's story says. */
async function expectJobs(w: LoanWeek, kind: Parameters<WeekJobs['run']>[0], outcome: string): Promise<void> {
  const outcomes = await w.jobs.run(kind);
  if (outcomes.join() !== outcome)
    throw new Error(`demo week: the ${kind} job was ${outcomes.join() || 'not queued'}, not ${outcome}`);
}
