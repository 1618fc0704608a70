import { randomUUID } from 'node:crypto';
import { toDbDate } from '../../src/lib/dates.ts';
import { createLoanFromApplication } from '../../src/modules/finance/loan/create.ts';
import { numberIpf } from '../../src/modules/finance/numbers.ts';
import { lenderTerms } from '../../src/modules/reference/rating-data.ts';
import { ipfOffer, ipfSchedule } from '../../src/modules/reference/ipf-terms.ts';
import { TODAY } from '../helpers/clock.ts';
import type { Org } from './org.ts';
import { type BindOptions, type Bound, pendingPolicy } from './policies.ts';

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
    const now = new Date();
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
        schedule: ipfSchedule(offer, signedOn).map((l) => ({
          seq: l.seq,
          due_on: l.dueOn,
          amount_minor: l.amountMinor.toString(),
        })),
        idNumber: '12345678',
        kraPin: 'A004416331M',
        incomeBand: '100k_250k',
        consentAt: now,
        decidedAt: now,
        lenderRef: 'LND-TEST',
        signedAt: now,
        expiresAt: new Date(toDbDate(signedOn).getTime() + 14 * 86_400_000),
      },
    });
    const loan = await createLoanFromApplication(tx, application, signedOn, now);
    return { policy, application, loan, offer };
  });
}
