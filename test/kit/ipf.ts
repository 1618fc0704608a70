import { randomUUID } from 'node:crypto';
import { now as clockNow } from '../../src/lib/clock.ts';
import { toDbDate } from '../../src/lib/dates.ts';
import { createLoanFromApplication } from '../../src/modules/finance/loan/create.ts';
import { numberIpf } from '../../src/modules/finance/numbers.ts';
import { lenderTerms } from '../../src/modules/reference/rating-data.ts';
import { scheduleJson } from '../../src/modules/finance/application/common.ts';
import { IPF_RULES } from '../../src/modules/finance/ipf-state.ts';
import { ipfOffer } from '../../src/modules/reference/ipf-terms.ts';
import { TODAY } from '../helpers/clock.ts';
import type { Org } from './org.ts';
import { type BindOptions, type Bound, pay, type PayOptions, pendingPolicy, policyInStatus } from './policies.ts';
import { waitFor } from './wait.ts';

/**
 * Premium-finance state builders. `ipfPolicy` binds through the API (payment_mode ipf). `signedLoan` stands in for
 * the application flow (create → submit → lender approval → sign by code, tested on its own in
 * test/ipf-applications.test.ts) by writing the approved application and signing it with the service the signing
 * command uses (createLoanFromApplication), so the money tests start from a loan awaiting its deposit.
 */

export async function ipfPolicy(o: Org, b: BindOptions = {}): Promise<Bound> {
  return pendingPolicy(o, { ...b, instalments: 1, policy: { payment_mode: 'ipf', ...b.policy } });
}

export interface SignedLoanOptions extends BindOptions {
  /** Lender name (default the first seeded lender, Mkopo Premium Finance). */
  lender?: string;
  /** Tenor in months (default the lender's shortest). */
  months?: number;
  /** Signing date (default the test's today). */
  signedOn?: string;
}

export interface SignedLoan {
  policy: Bound;
  application: { id: number; uuid: string; applicationNo: string };
  loan: { id: number; uuid: string; loanNo: string; instalments: { seq: number; dueOn: Date; amountMinor: bigint }[] };
  /** The lender's terms as priced. */
  offer: NonNullable<ReturnType<typeof ipfOffer>>;
}

export async function signedLoan(o: Org, opts: SignedLoanOptions = {}): Promise<SignedLoan> {
  const policy = await ipfPolicy(o, opts);
  const signedOn = opts.signedOn ?? TODAY;
  return o.t.db.tenant(o.id, async (tx) => {
    const pol = await tx.policy.findUniqueOrThrow({ where: { uuid: policy.uuid } });
    const lenderRow = await tx.ipfLender.findFirstOrThrow({
      where: { name: opts.lender ?? 'Mkopo Premium Finance' },
      include: { tenors: true, feeBands: true },
    });
    const terms = lenderTerms(lenderRow);
    const months = opts.months ?? Math.min(...terms.tenors.map((t) => t.months));
    const offer = ipfOffer(pol.totalMinor, terms, months);
    if (!offer) throw new Error(`${terms.name} offers nothing for ${pol.totalMinor} over ${months} months`);
    const version = await tx.ratingVersion.findUnique({ where: { tenantId: o.id } });
    const now = clockNow();
    const application = await tx.ipfApplication.create({
      data: {
        tenantId: o.id,
        uuid: randomUUID(),
        applicationNo: await numberIpf(tx, o.id, 'application', now),
        policyId: pol.id,
        clientId: pol.clientId,
        lenderId: lenderRow.id,
        status: 'signed',
        tenorMonths: months,
        premiumMinor: offer.premiumMinor,
        chargeMinor: offer.chargeMinor,
        depositMinor: offer.depositMinor,
        instalmentMinor: offer.instalmentMinor,
        totalRepayableMinor: offer.totalRepayableMinor,
        aprBps: offer.aprBps,
        ratingVersion: Number(version?.version ?? 0n),
        schedule: scheduleJson(offer, signedOn),
        idNumber: '12345678',
        kraPin: 'A004416331M',
        incomeBand: '100k_250k',
        consentAt: now,
        decidedAt: now,
        lenderRef: 'LND-TEST',
        signedAt: now,
        expiresAt: new Date(toDbDate(signedOn).getTime() + IPF_RULES.applicationValidDays * 86_400_000),
      },
    });
    const loan = await createLoanFromApplication(tx, application, signedOn, now);
    return { policy, application, loan, offer };
  });
}

/** An ipf_repayment of `amountMinor` (rounded up to whole shillings) to the loan, waited for until applied. */
export function repay(o: Org, loanNo: string, amountMinor: number | bigint, p: PayOptions = {}): Promise<string> {
  return pay(o, loanNo, amountMinor, { ...p, purpose: 'ipf_repayment' });
}

/** The loan's row with its schedule (seq order), read directly. */
export function loanRow(o: Org, loanId: number) {
  return o.t.db.tenant(o.id, (tx) =>
    tx.ipfLoan.findUniqueOrThrow({ where: { id: loanId }, include: { instalments: { orderBy: { seq: 'asc' } } } }),
  );
}

/** Waits until the loan is in `status` (funding and settlement happen in the background of a payment). */
export function loanInStatus(o: Org, loanId: number, status: string) {
  return waitFor(
    `loan ${loanId} to be ${status}`,
    () => loanRow(o, loanId),
    (l) => l.status === status,
  );
}

/**
 * A loan funded the way production funds it (needs the job runner): `signedLoan`, the deposit paid by an ipf_repayment
 * STK push, the disbursement job paying the policy's debit note (the policy active), the loan `active`.
 */
export async function fundedLoan(o: Org, opts: SignedLoanOptions = {}): Promise<SignedLoan & { record: any }> {
  const signed = await signedLoan(o, opts);
  await repay(o, signed.loan.loanNo, signed.offer.depositMinor);
  await loanInStatus(o, signed.loan.id, 'active');
  const record = await policyInStatus(o, signed.policy.uuid, 'active');
  return { ...signed, record };
}

/** An active financed loan, funded as production funds it (fundedLoan). */
export const activeLoan = fundedLoan;
