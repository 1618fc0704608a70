import { Prisma } from '../../../db/client.ts';
import { tenantSql } from '../../../db/org-clocks.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import type { Tx } from '../../../db/client.ts';
import { addDays, fromDbDate, nairobiIso } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { NOT_OFFERED_TYPES } from '../../motor/rating.ts';
import { cancellationService } from '../../policies/cancellation.service.ts';
import { setRefundsTo } from '../../policies/policy.service.ts';
import { transitionIpf } from '../ipf-state.ts';
import { lineOutstanding } from '../loan/balance.ts';
import { type LoanWithParties, loanEventRef, loanWithParties } from '../loan/event-ref.ts';
import { loanArrears } from './overdue.ts';
import { each, type IpfDailyRun, lockLoan } from './run.ts';

/**
 * Default: an active loan with a line still owing more than the lender's grace days after its due date (due + grace
 * before asOf) moves active → defaulted (closed_at), and in the same transaction the policy is cancelled for
 * non-payment (requested by the lender, effective asOf) through the cancellation service's own preview and
 * confirmation, with the policy's refunds pointed at the lender: the unearned premium (the cancellation arithmetic)
 * is applied to open debit notes and the rest credited to the lender, not the client (credit note refund_payee
 * lender; loan.lender_refund_minor). A policy that is no longer active (already cancelled, lapsed, expired) is not
 * cancelled again: the loan still defaults, with no cancellation and no lender refund (an earlier cancellation of a
 * financed policy already refunded the lender). The policy's refunds then go to the client again (the loan is
 * closed). `ipf.defaulted` names the cancellation and the refund. A refusal rolls the whole default back and the
 * next run tries again.
 */
export async function defaultLoans(run: IpfDailyRun): Promise<void> {
  const offered = await run.app.db.system(
    (tx) => tx.$queryRaw<{ id: number; tenant_id: number }[]>`
      SELECT DISTINCT l.id, l.tenant_id
      FROM ipf_instalments i
      JOIN ipf_loans l ON l.id = i.loan_id
      JOIN ipf_lenders ld ON ld.id = l.lender_id
      JOIN tenants t ON t.id = l.tenant_id
      WHERE ${tenantSql(run.tenants, Prisma.sql`l.tenant_id`)} AND l.status = 'active' AND NOT (t.type::text = ANY(${[...NOT_OFFERED_TYPES]}))
        AND i.amount_minor - i.paid_minor - i.waived_minor > 0
        AND i.due_on + ld.default_grace_days < ${run.asOfDb}::date
      ORDER BY l.id`,
  );
  for (const l of offered)
    await each(run, { id: l.id, tenantId: l.tenant_id }, (tx) => defaultOnce(run, tx, l.id), 'defaulted', {
      tx: { timeout: 20_000 },
    });
}

async function defaultOnce(run: IpfDailyRun, tx: Tx, loanId: number): Promise<boolean> {
  await lockLoan(tx, loanId);
  const loan = await loanWithParties(tx, loanId);
  if (loan.status !== 'active') return false;
  const { defaultGraceDays: grace } = await tx.ipfLender.findUniqueOrThrow({ where: { id: loan.lenderId } });
  const { lines, arrearsMinor, outstandingMinor } = await loanArrears(run, tx, loan);
  const late = lines.find((l) => lineOutstanding(l) > 0n && addDays(fromDbDate(l.dueOn), grace) < run.asOf);
  if (!late) return false;
  const reason = `instalment ${late.seq} due ${fromDbDate(late.dueOn)} unpaid after ${grace} days' grace`;
  const meta = { tenantId: loan.tenantId, reason, actor: 'system' };
  if (!(await transitionIpf(tx, 'loan', loan.id, 'active', 'defaulted', meta))) return false;
  const cancelled = await cancelForNonPayment(run, tx, loan, reason);
  const closedAt = clockNow();
  await tx.ipfLoan.update({
    where: { id: loan.id },
    data: { closedAt, lenderRefundMinor: cancelled?.lenderRefundMinor ?? 0n },
  });
  await setRefundsTo(tx, loan.policyId, 'client');
  await emitEvent(run.app, tx, loan.tenantId, 'ipf.defaulted', {
    ...loanEventRef(loan),
    arrears: amountOf(arrearsMinor),
    outstanding: amountOf(outstandingMinor),
    cancellation_uuid: cancelled?.uuid ?? null,
    lender_refund: amountOf(cancelled?.lenderRefundMinor ?? 0n),
    defaulted_at: nairobiIso(closedAt),
  });
  return true;
}

/** The cancellation for non-payment of a still-active policy, refunding the lender; null when it is not active. */
async function cancelForNonPayment(run: IpfDailyRun, tx: Tx, loan: LoanWithParties, why: string) {
  const policy = await tx.policy.findUniqueOrThrow({ where: { id: loan.policyId }, select: { status: true } });
  if (policy.status !== 'active') {
    run.app.log.warn(
      { loan_id: loan.id, policy_id: loan.policyId, status: policy.status },
      'premium finance: a defaulted loan’s policy is not active; no cancellation raised',
    );
    return null;
  }
  // Funding points the refunds at the lender; a default refunds the lender whatever the flag said.
  await setRefundsTo(tx, loan.policyId, 'lender');
  const c = await cancellationService.cancelAsService(run.ctx, tx, loan.policyId, {
    reason: 'non_payment',
    requestedBy: 'lender',
    effectiveDate: run.asOf,
    note: `Premium-finance loan ${loan.loanNo} in default: ${why}`,
  });
  const note = c.creditNoteId ? await tx.creditNote.findUniqueOrThrow({ where: { id: c.creditNoteId } }) : null;
  return { uuid: c.uuid, lenderRefundMinor: note?.refundPayee === 'lender' ? note.refundedMinor : 0n };
}
