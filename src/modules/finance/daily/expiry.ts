import { now as clockNow } from '../../../lib/clock.ts';
import type { Tx } from '../../../db/client.ts';
import { addDays, fromDbDate, nairobiIso, toDbDate } from '../../../lib/dates.ts';
import { IPF_RULES, transitionIpf } from '../ipf-state.ts';
import { each, type IpfDailyRun, lockLoan, nairobiDayStart, offeringTenant } from './run.ts';

/**
 * Expiry, judged by whole Nairobi days before asOf:
 * - a draft or approved application whose expires_at fell before asOf → expired;
 * - a signed agreement whose loan still awaits its deposit, signed (its deposit due) more than IPF_RULES.depositDays
 *   days before asOf, with nothing paid on it → application expired and loan cancelled (closed_at), both with their reasons. A loan
 *   with part of its deposit paid is left for the broker (the money has to go somewhere). Its policy stays
 *   pending_payment and becomes not_taken_up by the policy lifecycle.
 */
export async function expireStale(run: IpfDailyRun): Promise<void> {
  const before = nairobiDayStart(run.asOf);
  const stale = await run.app.db.system((tx) =>
    tx.ipfApplication.findMany({
      where: { status: { in: ['draft', 'approved'] }, expiresAt: { lt: before }, ...offeringTenant(run) },
      select: { id: true, tenantId: true, status: true, expiresAt: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const a of stale) {
    const reason = `not completed by ${nairobiIso(a.expiresAt)}`;
    await each(run, a, (tx) => expireApplication(tx, a, reason), 'applicationsExpired');
  }
  const unpaid = await run.app.db.system((tx) =>
    tx.ipfLoan.findMany({
      where: {
        status: 'awaiting_deposit',
        application: { status: 'signed' },
        // The deposit is due on the signing day (the schedule's first line).
        AND: [
          { instalments: { some: { seq: 1, dueOn: { lt: toDbDate(addDays(run.asOf, -IPF_RULES.depositDays)) } } } },
          { instalments: { none: { paidMinor: { gt: 0 } } } },
        ],
        ...offeringTenant(run),
      },
      select: { id: true, tenantId: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const l of unpaid) await each(run, l, (tx) => cancelUnpaid(tx, l.id), 'loansCancelled');
}

async function expireApplication(tx: Tx, a: { id: number; tenantId: number; status: string }, reason: string) {
  const meta = { tenantId: a.tenantId, reason, actor: 'system' };
  if (!(await transitionIpf(tx, 'application', a.id, a.status, 'expired', meta))) return false;
  await tx.ipfApplication.update({ where: { id: a.id }, data: { closedReason: reason } });
  return true;
}

async function cancelUnpaid(tx: Tx, loanId: number): Promise<boolean> {
  await lockLoan(tx, loanId);
  const loan = await tx.ipfLoan.findUniqueOrThrow({
    where: { id: loanId },
    include: { instalments: { orderBy: { seq: 'asc' } } },
  });
  if (loan.status !== 'awaiting_deposit' || loan.instalments.some((l) => l.paidMinor > 0n)) return false;
  const signedOn = fromDbDate(loan.instalments[0].dueOn);
  const reason = `deposit not paid within ${IPF_RULES.depositDays} days of signing (${signedOn})`;
  const meta = { tenantId: loan.tenantId, reason, actor: 'system' };
  if (!(await transitionIpf(tx, 'loan', loan.id, 'awaiting_deposit', 'cancelled', meta))) return false;
  if (!(await transitionIpf(tx, 'application', loan.applicationId, 'signed', 'expired', meta)))
    throw new Error(`application ${loan.applicationId} of loan ${loan.id} is no longer signed`);
  await tx.ipfLoan.update({ where: { id: loan.id }, data: { closedAt: clockNow() } });
  await tx.ipfApplication.update({ where: { id: loan.applicationId }, data: { closedReason: reason } });
  return true;
}
