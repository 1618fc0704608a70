import type { Tx } from '../../../db/client.ts';
import { addDays, fromDbDate } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { lineOutstanding, loanBalance } from '../loan/balance.ts';
import { loanEventRef, loanWithParties } from '../loan/event-ref.ts';
import { each, type IpfDailyRun, lockLoan, offeringTenant } from './run.ts';

/**
 * Overdue: every line of an active loan due before asOf and still owing (amount − paid − waived > 0) gets
 * `ipf.instalment_overdue` once (overdue_notified_at, set in the event's transaction under the loan's lock): what the
 * line owes, the loan's arrears (everything past due) and `defaults_on`, the due date plus the lender's grace days
 * (still unpaid at the end of that day, the next run defaults the loan).
 */
export async function noticeOverdue(run: IpfDailyRun): Promise<void> {
  const lines = await run.app.db.system((tx) =>
    tx.ipfInstalment.findMany({
      where: { overdueNotifiedAt: null, dueOn: { lt: run.asOfDb }, loan: { status: 'active', ...offeringTenant(run) } },
      orderBy: [{ loanId: 'asc' }, { seq: 'asc' }],
    }),
  );
  for (const line of lines.filter((l) => lineOutstanding(l) > 0n))
    await each(run, line, (tx) => noticeOnce(run, tx, line.loanId, line.id), 'overdue');
}

/** Everything past due on the loan as the run judges it: the lines due before asOf (balance.ts, as of the day before). */
export async function loanArrears(run: IpfDailyRun, tx: Tx, loan: Parameters<typeof loanBalance>[0] & { id: number }) {
  const lines = await tx.ipfInstalment.findMany({ where: { loanId: loan.id }, orderBy: { seq: 'asc' } });
  return { lines, ...loanBalance(loan, lines, addDays(run.asOf, -1)) };
}

async function noticeOnce(run: IpfDailyRun, tx: Tx, loanId: number, lineId: number): Promise<boolean> {
  await lockLoan(tx, loanId);
  const loan = await loanWithParties(tx, loanId);
  if (loan.status !== 'active') return false;
  const { lines, arrearsMinor } = await loanArrears(run, tx, loan);
  const line = lines.find((l) => l.id === lineId);
  if (!line || line.overdueNotifiedAt || lineOutstanding(line) <= 0n) return false;
  await tx.ipfInstalment.update({ where: { id: line.id }, data: { overdueNotifiedAt: new Date() } });
  const { defaultGraceDays } = await tx.ipfLender.findUniqueOrThrow({ where: { id: loan.lenderId } });
  const dueOn = fromDbDate(line.dueOn);
  await emitEvent(run.app, tx, loan.tenantId, 'ipf.instalment_overdue', {
    ...loanEventRef(loan),
    instalment: line.seq,
    due_on: dueOn,
    overdue: amountOf(lineOutstanding(line)),
    arrears: amountOf(arrearsMinor),
    defaults_on: addDays(dueOn, defaultGraceDays),
  });
  return true;
}
