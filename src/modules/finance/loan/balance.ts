import { fromDbDate } from '../../../lib/dates.ts';

/**
 * A loan's balance as of a day, from its stored figures and schedule lines (pure; docs/premium-finance.md "Premium finance: quote,
 * lenders and loans"). Nothing here prices anything: the figures were fixed by reference/ipf-terms.ts at signing, and
 * receipts and the rebate only fill `paid_minor` and `waived_minor`.
 *
 * - A line's outstanding = amount − paid − waived (never below zero).
 * - A line's status: `paid` (nothing outstanding, nothing waived), `waived` (nothing outstanding, part or all of it
 *   waived at early settlement), else by its due date against the day: `overdue` (before it), `due` (that day),
 *   `upcoming` (after it).
 * - The loan's outstanding = total repayable − paid − rebate; its arrears = the outstanding of the lines due on or
 *   before the day; its next due = the oldest line with something outstanding (receipts go to the oldest first).
 * - A cancelled loan (never funded) owes nothing; a settled, defaulted or cancelled loan has no next due.
 */

export type InstalmentStatus = 'paid' | 'due' | 'overdue' | 'waived' | 'upcoming';
export const INSTALMENT_STATUSES: readonly InstalmentStatus[] = ['paid', 'due', 'overdue', 'waived', 'upcoming'];

export interface InstalmentLine {
  seq: number;
  dueOn: Date;
  amountMinor: bigint;
  paidMinor: bigint;
  waivedMinor: bigint;
}

export interface LoanFigures {
  status: string;
  totalRepayableMinor: bigint;
  paidMinor: bigint;
  rebateMinor: bigint;
}

export interface NextDue {
  seq: number;
  dueOn: string;
  amountMinor: bigint;
}

export interface LoanBalance {
  outstandingMinor: bigint;
  arrearsMinor: bigint;
  nextDue: NextDue | null;
}

const atLeastZero = (x: bigint) => (x > 0n ? x : 0n);

/** What a schedule line still owes: amount − paid − waived, never below zero. */
export function lineOutstanding(l: Pick<InstalmentLine, 'amountMinor' | 'paidMinor' | 'waivedMinor'>): bigint {
  return atLeastZero(l.amountMinor - l.paidMinor - l.waivedMinor);
}

/**
 * Spreads `amountMinor` over `lines` in the order given, each line taking up to what it still owes: how a receipt is
 * allocated (oldest first) and a rebate waived (latest first). What no line takes is left over.
 */
export function spreadOverLines<L extends Pick<InstalmentLine, 'amountMinor' | 'paidMinor' | 'waivedMinor'>>(
  lines: readonly L[],
  amountMinor: bigint,
): { line: L; amountMinor: bigint }[] {
  let left = amountMinor;
  const out: { line: L; amountMinor: bigint }[] = [];
  for (const l of lines) {
    if (left <= 0n) break;
    const open = lineOutstanding(l);
    if (open <= 0n) continue;
    const take = open < left ? open : left;
    out.push({ line: l, amountMinor: take });
    left -= take;
  }
  return out;
}

export function lineStatus(l: InstalmentLine, today: string): InstalmentStatus {
  if (lineOutstanding(l) === 0n) return l.waivedMinor > 0n ? 'waived' : 'paid';
  const due = fromDbDate(l.dueOn);
  if (due < today) return 'overdue';
  return due === today ? 'due' : 'upcoming';
}

/** Whether a loan in this status can still owe anything: a cancelled loan was never funded. */
const owes = (status: string) => status !== 'cancelled';
/** Whether a loan in this status still takes instalments. */
const collecting = (status: string) => status === 'awaiting_deposit' || status === 'active';

export function loanBalance(loan: LoanFigures, lines: readonly InstalmentLine[], today: string): LoanBalance {
  if (!owes(loan.status)) return { outstandingMinor: 0n, arrearsMinor: 0n, nextDue: null };
  const ordered = [...lines].sort((a, b) => a.seq - b.seq);
  let arrearsMinor = 0n;
  for (const l of ordered) if (fromDbDate(l.dueOn) <= today) arrearsMinor += lineOutstanding(l);
  const next = collecting(loan.status) ? ordered.find((l) => lineOutstanding(l) > 0n) : undefined;
  return {
    outstandingMinor: atLeastZero(loan.totalRepayableMinor - loan.paidMinor - loan.rebateMinor),
    arrearsMinor,
    nextDue: next ? { seq: next.seq, dueOn: fromDbDate(next.dueOn), amountMinor: lineOutstanding(next) } : null,
  };
}
