import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { fromDbDate, todayNairobi } from '../../../lib/dates.ts';
import { closeLoan } from './close.ts';
import { spreadOverLines } from './balance.ts';

/**
 * Money an ipf_repayment receipt gives a loan (docs/premium-finance.md "Premium finance: deposit, funding, repayments and early
 * settlement"), in the settling transaction: the oldest line with something outstanding first, each up to what it
 * owes (amount − paid − waived), the rest carried forward to the next lines; nothing beyond what the loan still owes
 * (total repayable − paid, or, while a confirmed early-settlement figure holds, total − held rebate − paid), which
 * the caller credits to the client. Then:
 *  - a loan awaiting its deposit whose deposit (line 1) is now paid in full is to be funded (`fund`: the caller queues
 *    the disbursement after commit);
 *  - an active loan that reaches the held payoff before the figure expires is settled early (the rebate waived on its
 *    latest lines), one paid in full is settled (closeIfPaidOff → closeLoan: ipf.settled, refunds to the client).
 * A loan in any other state takes nothing.
 */

export interface InstalmentAllocation {
  instalmentId: number;
  seq: number;
  dueOn: string;
  amountMinor: bigint;
}

export interface LoanRepayment {
  allocations: InstalmentAllocation[];
  /** What the loan could not take (the caller credits it to the client). */
  leftMinor: bigint;
  /** The deposit is paid in full on a loan awaiting it: the disbursement is to be queued after commit. */
  fund: boolean;
  /** The loan is paid off: early (the held payoff reached, with its rebate) or in full. */
  paidOff: { early: boolean; rebateMinor: bigint } | null;
}

/** A confirmed early-settlement figure still good on `today`: what the loan then needs in all, and its rebate. */
export function heldSettlement(
  loan: {
    status: string;
    totalRepayableMinor: bigint;
    settlementPayoffMinor: bigint | null;
    settlementRebateMinor: bigint | null;
    settlementValidUntil: Date | null;
  },
  today: string,
): { targetMinor: bigint; rebateMinor: bigint } | null {
  if (loan.status !== 'active' || loan.settlementPayoffMinor == null || loan.settlementRebateMinor == null) return null;
  if (!loan.settlementValidUntil || fromDbDate(loan.settlementValidUntil) < today) return null;
  return {
    targetMinor: loan.totalRepayableMinor - loan.settlementRebateMinor,
    rebateMinor: loan.settlementRebateMinor,
  };
}

/** Oldest line first, each up to what it owes, never more than `capMinor` in all. */
export function planInstalmentAllocations(
  lines: readonly {
    id: number;
    seq: number;
    dueOn: Date;
    amountMinor: bigint;
    paidMinor: bigint;
    waivedMinor: bigint;
  }[],
  amountMinor: bigint,
  capMinor: bigint,
): InstalmentAllocation[] {
  const oldestFirst = [...lines].sort((a, b) => a.seq - b.seq);
  return spreadOverLines(oldestFirst, amountMinor < capMinor ? amountMinor : capMinor).map(({ line, amountMinor }) => ({
    instalmentId: line.id,
    seq: line.seq,
    dueOn: fromDbDate(line.dueOn),
    amountMinor,
  }));
}

/**
 * Gives the receipt's money to the loan's lines (the loan row locked until the caller's transaction ends) and says
 * what follows; `closeIfPaidOff` then settles a loan that is paid off (after the caller has announced the receipt).
 */
export async function allocateRepayment(
  tx: Tx,
  loanId: number,
  receipt: { id: number; amountMinor: bigint },
): Promise<LoanRepayment> {
  await tx.$queryRaw`SELECT id FROM ipf_loans WHERE id = ${loanId} FOR UPDATE`;
  const loan = await tx.ipfLoan.findUniqueOrThrow({
    where: { id: loanId },
    include: { instalments: { orderBy: { seq: 'asc' } } },
  });
  const open = loan.status === 'awaiting_deposit' || loan.status === 'active';
  const held = heldSettlement(loan, todayNairobi());
  const target = held ? held.targetMinor : loan.totalRepayableMinor;
  const cap = open && target > loan.paidMinor ? target - loan.paidMinor : 0n;
  const allocations = planInstalmentAllocations(loan.instalments, receipt.amountMinor, cap);
  const allocated = allocations.reduce((s, a) => s + a.amountMinor, 0n);
  for (const a of allocations) {
    const data = { tenantId: loan.tenantId, receiptId: receipt.id, loanId, instalmentId: a.instalmentId };
    await tx.ipfAllocation.create({ data: { ...data, amountMinor: a.amountMinor } });
    await tx.ipfInstalment.update({ where: { id: a.instalmentId }, data: { paidMinor: { increment: a.amountMinor } } });
  }
  const paid = loan.paidMinor + allocated;
  if (allocated > 0n) await tx.ipfLoan.update({ where: { id: loanId }, data: { paidMinor: paid } });
  const deposit = loan.instalments.find((l) => l.seq === 1);
  const toDeposit = allocations.find((a) => a.seq === 1)?.amountMinor ?? 0n;
  const paidOff = loan.status !== 'active' || allocated === 0n ? null : paidOffBy(loan, held, paid);
  return {
    allocations,
    leftMinor: receipt.amountMinor - allocated,
    fund: loan.status === 'awaiting_deposit' && !!deposit && deposit.paidMinor + toDeposit >= deposit.amountMinor,
    paidOff,
  };
}

/** Early when the held payoff is reached (with its rebate), in full when everything is paid, else not paid off. */
function paidOffBy(
  loan: { totalRepayableMinor: bigint },
  held: { targetMinor: bigint; rebateMinor: bigint } | null,
  paid: bigint,
): LoanRepayment['paidOff'] {
  if (held && held.rebateMinor > 0n && paid >= held.targetMinor) return { early: true, rebateMinor: held.rebateMinor };
  if (paid >= loan.totalRepayableMinor) return { early: false, rebateMinor: 0n };
  return null;
}

/** Settles a loan the repayment paid off (closeLoan: ipf.settled, refunds back to the client). */
export async function closeIfPaidOff(
  app: AppServices,
  tx: Tx,
  loanId: number,
  repaid: LoanRepayment,
  receiptNo: string,
): Promise<boolean> {
  if (!repaid.paidOff) return false;
  const { early, rebateMinor } = repaid.paidOff;
  const reason = early ? `early settlement paid (${receiptNo})` : `paid in full (${receiptNo})`;
  return closeLoan(app, tx, loanId, { rebateMinor, reason, actor: 'client' });
}
