import type { Principal } from '../../../auth/principal.ts';
import { keyset, keysetWhere } from '../../../db/read-model.ts';
import type { Context } from '../../../context.ts';
import type { Prisma, Tx } from '../../../db/client.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { ipfLoanVisibility } from '../../access/ipf.visibility.ts';
import type { LoanStatus } from '../ipf-state.ts';
import { requireFinanceOffered } from '../offered.ts';
import { ipfHistory } from '../history.ts';

/**
 * Reading premium-finance loans (docs/premium-finance.md "Premium finance: quote, lenders and loans"): the list with its filters and
 * one loan by uuid, both through ipfLoanVisibility (an agent sees the loans of the policies in its reach), both
 * refused first to an organisation premium finance is not offered to.
 */

export type LoanQuery = { include?: Prisma.IpfLoanInclude; select?: Prisma.IpfLoanSelect };

export interface LoanListFilters {
  status?: LoanStatus[] | null;
  policyUuid?: string | null;
  clientNo?: string | null;
  lenderId?: number | null;
  /** true: loans with something outstanding due on or before today (loanBalance's arrears); false: the others. */
  inArrears?: boolean | null;
}

const NO_UUID = '00000000-0000-0000-0000-000000000000';

/** The loans with a line due on or before `today` and not yet paid or waived in full (cancelled loans owe nothing). */
async function loanIdsInArrears(tx: Tx, today: string): Promise<number[]> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    SELECT DISTINCT i.loan_id AS id FROM ipf_instalments i JOIN ipf_loans l ON l.id = i.loan_id
    WHERE l.status <> 'cancelled' AND i.due_on <= ${today}::date
      AND i.amount_minor - i.paid_minor - i.waived_minor > 0`;
  return rows.map((r) => r.id);
}

/** The list's where-fragment: the caller's reach first, then each filter. */
export function loanListWhere(p: Principal, f: LoanListFilters, inArrears: number[] | null): Prisma.IpfLoanWhereInput {
  const and: Prisma.IpfLoanWhereInput[] = [ipfLoanVisibility(p)];
  if (f.status?.length) and.push({ status: { in: f.status } });
  if (f.policyUuid) and.push({ policy: { uuid: isUuid(f.policyUuid) ? f.policyUuid : NO_UUID } });
  if (f.clientNo) and.push({ client: { clientNo: f.clientNo } });
  if (f.lenderId != null) and.push({ lenderId: f.lenderId });
  if (inArrears && f.inArrears === true) and.push({ id: { in: inArrears } });
  if (inArrears && f.inArrears === false) and.push({ id: { notIn: inArrears } });
  return { AND: and };
}

/** Newest first (the connection pages on id). */
export function listLoans(ctx: Context, filters: LoanListFilters, query: Prisma.IpfLoanFindManyArgs) {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  return ctx.tx(async (tx) => {
    const arrears = filters.inArrears == null ? null : await loanIdsInArrears(tx, todayNairobi());
    const { query: paged, id } = keyset(query);
    return tx.ipfLoan.findMany({
      ...paged,
      where: keysetWhere(loanListWhere(p, filters, arrears), id),
      orderBy: { id: 'desc' },
    });
  });
}

/** The loan `uuid` if the caller may see it, else 404. */
export async function getLoan<Q extends LoanQuery>(ctx: Context, uuid: string, query?: Q) {
  requireFinanceOffered(ctx.principal!);
  if (!isUuid(uuid)) throw notFound('Premium-finance loan');
  const row = await ctx.tx((tx) =>
    tx.ipfLoan.findFirst({ ...(query ?? ({} as Q)), where: { AND: [{ uuid }, ipfLoanVisibility(ctx.principal)] } }),
  );
  if (!row) throw notFound('Premium-finance loan');
  return row;
}

/** A loan's status changes, oldest first (ipf_state_history rows of entity `loan`, batched per request). */
export function loanHistory(ctx: Context, loanId: number) {
  return ipfHistory(ctx, 'loan', loanId);
}

export interface LoanPayment {
  receiptNo: string;
  method: string;
  transactionRef: string;
  paidAt: Date;
  amountMinor: bigint;
  /** What of the receipt went to this loan, by instalment. */
  allocations: { seq: number; amountMinor: bigint }[];
}

type AllocationRow = {
  receiptId: number;
  amountMinor: bigint;
  receipt: { receiptNo: string; method: string; transactionRef: string; paidAt: Date; amountMinor: bigint };
  instalment: { seq: number };
};

/** The receipts allocated to a loan, in the order allocated, each with its allocations. */
export function paymentsOf(rows: readonly AllocationRow[]): LoanPayment[] {
  const byReceipt = new Map<number, LoanPayment>();
  for (const a of rows) {
    let p = byReceipt.get(a.receiptId);
    if (!p) {
      const { receiptNo, method, transactionRef, paidAt, amountMinor } = a.receipt;
      p = { receiptNo, method, transactionRef, paidAt, amountMinor, allocations: [] };
      byReceipt.set(a.receiptId, p);
    }
    p.allocations.push({ seq: a.instalment.seq, amountMinor: a.amountMinor });
  }
  return [...byReceipt.values()];
}
