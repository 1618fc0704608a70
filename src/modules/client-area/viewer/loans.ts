import { requireCustomer } from '../../../auth/customer.ts';
import type { Context } from '../../../context.ts';
import { fromDbDate, todayNairobi } from '../../../lib/dates.ts';
import {
  type InstalmentStatus,
  lineOutstanding,
  lineStatus,
  loanBalance,
  type NextDue,
} from '../../finance/loan/balance.ts';
import { requireFinanceOffered } from '../../finance/offered.ts';

/**
 * The signed-in client's premium-finance loans, in cents only (spec, convention 2), newest first: each with its
 * schedule and balance as of today (finance/loan/balance.ts, the figures the staff API shows). Keyed on
 * `ctx.customer`, so a client sees its own loans and no other; refused with ipf_not_offered where premium finance is
 * not offered, as every finance read is.
 */

export interface ViewerLoanLine {
  seq: number;
  dueOn: string;
  amountMinor: bigint;
  paidMinor: bigint;
  waivedMinor: bigint;
  outstandingMinor: bigint;
  status: InstalmentStatus;
}

export interface ViewerLoan {
  uuid: string;
  /** The loan number: the account an instalment is paid to. */
  reference: string;
  status: string;
  policyNo: string;
  lenderName: string;
  tenorMonths: number;
  principalMinor: bigint;
  chargeMinor: bigint;
  totalRepayableMinor: bigint;
  aprBps: number;
  paidMinor: bigint;
  rebateMinor: bigint;
  /** Outstanding: total repayable − paid − rebate. */
  balanceMinor: bigint;
  arrearsMinor: bigint;
  nextDue: NextDue | null;
  signedAt: Date;
  schedule: ViewerLoanLine[];
}

export async function viewerLoans(ctx: Context): Promise<ViewerLoan[]> {
  const { clientId } = requireCustomer(ctx);
  requireFinanceOffered(ctx.principal!);
  const rows = await ctx.tx((tx) =>
    tx.ipfLoan.findMany({
      where: { clientId },
      orderBy: { id: 'desc' },
      include: {
        policy: { select: { policyNo: true } },
        lender: { select: { name: true } },
        instalments: { orderBy: { seq: 'asc' } },
      },
    }),
  );
  const today = todayNairobi();
  return rows.map((l) => {
    const b = loanBalance(l, l.instalments, today);
    return {
      uuid: l.uuid,
      reference: l.loanNo,
      status: l.status,
      policyNo: l.policy.policyNo,
      lenderName: l.lender.name,
      tenorMonths: l.tenorMonths,
      principalMinor: l.principalMinor,
      chargeMinor: l.chargeMinor,
      totalRepayableMinor: l.totalRepayableMinor,
      aprBps: l.aprBps,
      paidMinor: l.paidMinor,
      rebateMinor: l.rebateMinor,
      balanceMinor: b.outstandingMinor,
      arrearsMinor: b.arrearsMinor,
      nextDue: b.nextDue,
      signedAt: l.signedAt,
      schedule: l.instalments.map((i) => ({
        seq: i.seq,
        dueOn: fromDbDate(i.dueOn),
        amountMinor: i.amountMinor,
        paidMinor: i.paidMinor,
        waivedMinor: i.waivedMinor,
        outstandingMinor: lineOutstanding(i),
        status: lineStatus(i, today),
      })),
    };
  });
}
