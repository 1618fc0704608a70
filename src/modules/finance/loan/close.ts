import { now as clockNow } from '../../../lib/clock.ts';
import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { nairobiIso } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { setRefundsTo } from '../../policies/policy.service.ts';
import { transitionIpf } from '../ipf-state.ts';
import { loanEventRef, loanWithParties } from './event-ref.ts';
import { spreadOverLines } from './balance.ts';

export interface OpenLine {
  id: number;
  seq: number;
  amountMinor: bigint;
  paidMinor: bigint;
  waivedMinor: bigint;
}

/**
 * Where a rebate is waived: on the schedule's latest lines first, each up to what it still owes (amount − paid −
 * waived). Receipts fill the oldest lines first, so once the payoff is paid the lines still open are the latest ones
 * and they owe exactly the rebate.
 */
export function planWaiver<L extends OpenLine>(
  lines: readonly L[],
  rebateMinor: bigint,
): { line: L; amountMinor: bigint }[] {
  return spreadOverLines(
    [...lines].sort((a, b) => b.seq - a.seq),
    rebateMinor,
  );
}

/**
 * An active loan paid off, in the caller's transaction (the loan row locked by the caller): early with the held
 * rebate waived on its latest lines (`rebateMinor` > 0), or in full. The loan is `settled` (ipf.settled) and the
 * policy's refunds go to the client again. False when another writer settled it first.
 */
export async function closeLoan(
  app: AppServices,
  tx: Tx,
  loanId: number,
  how: { rebateMinor: bigint; reason: string; actor: string },
): Promise<boolean> {
  const loan = await loanWithParties(tx, loanId);
  const moved = await transitionIpf(tx, 'loan', loan.id, 'active', 'settled', {
    tenantId: loan.tenantId,
    reason: how.reason,
    actor: how.actor,
  });
  if (!moved) return false;
  const early = how.rebateMinor > 0n;
  if (early) {
    const lines = await tx.ipfInstalment.findMany({ where: { loanId }, orderBy: { seq: 'asc' } });
    for (const w of planWaiver(lines, how.rebateMinor))
      await tx.ipfInstalment.update({ where: { id: w.line.id }, data: { waivedMinor: { increment: w.amountMinor } } });
  }
  const closedAt = clockNow();
  await tx.ipfLoan.update({ where: { id: loan.id }, data: { rebateMinor: how.rebateMinor, closedAt } });
  await setRefundsTo(tx, loan.policyId, 'client');
  await emitEvent(app, tx, loan.tenantId, 'ipf.settled', {
    ...loanEventRef(loan),
    early,
    paid: amountOf(loan.paidMinor),
    rebate: amountOf(how.rebateMinor),
    settled_at: nairobiIso(closedAt),
  });
  return true;
}
