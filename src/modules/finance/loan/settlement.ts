import type { Principal } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { addDays, fromDbDate, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { ipfLoanVisibility } from '../../access/ipf.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { earlySettlement } from '../../reference/ipf-terms.ts';
import { assertIpfMove, IPF_RULES } from '../ipf-state.ts';
import { requireFinanceOffered } from '../offered.ts';
import { closeLoan, planWaiver } from './close.ts';

/**
 * Early settlement of a premium-finance loan, two-phase like a cancellation (docs/premium-finance.md "Premium finance: deposit,
 * funding, repayments and early settlement"):
 *  1. the quote as of today (Nairobi) changes nothing: outstanding (total repayable − paid), the rebate of unearned
 *     charges (reference/ipf-terms.ts earlySettlement: ⌊charge × lines not yet due ÷ months⌋, at most what is owed),
 *     the payoff (outstanding − rebate), the lines the rebate would be waived on (latest first) and valid_until;
 *  2. confirmed, the figure is held on the loan until today + IPF_RULES.settlementValidDays; repayments that reach it
 *     by then settle the loan with the rebate (repayment.ts). The payments module collects the payoff by STK push.
 * Only an active loan settles (409 invalid_state otherwise); a loan the caller cannot see is 404.
 */

export interface SettlementFigures {
  asOf: string;
  outstandingMinor: bigint;
  rebateMinor: bigint;
  payoffMinor: bigint;
  waived: { seq: number; dueOn: string; amountMinor: bigint }[];
  validUntil: string;
}

type Line = { id: number; seq: number; dueOn: Date; amountMinor: bigint; paidMinor: bigint; waivedMinor: bigint };
type LoanFigures = { chargeMinor: bigint; totalRepayableMinor: bigint; paidMinor: bigint; tenorMonths: number };

function figures(lines: readonly Line[], rebateMinor: bigint, payoffMinor: bigint, asOf: string): SettlementFigures {
  return {
    asOf,
    outstandingMinor: payoffMinor + rebateMinor,
    rebateMinor,
    payoffMinor,
    waived: planWaiver(lines, rebateMinor).map((w) => ({
      seq: w.line.seq,
      dueOn: fromDbDate(w.line.dueOn),
      amountMinor: w.amountMinor,
    })),
    validUntil: addDays(asOf, IPF_RULES.settlementValidDays),
  };
}

/** The figures for settling on `on` (pure). */
export function settlementFigures(loan: LoanFigures, lines: readonly Line[], on: string): SettlementFigures {
  const schedule = lines.map((l) => ({ dueOn: fromDbDate(l.dueOn) }));
  const { rebateMinor, payoffMinor } = earlySettlement(loan, schedule, on);
  return figures(lines, rebateMinor, payoffMinor, on);
}

async function lockVisibleLoan(tx: Tx, p: Principal, uuid: string) {
  if (!isUuid(uuid)) throw notFound('Premium-finance loan');
  const seen = await tx.ipfLoan.findFirst({ where: { AND: [{ uuid }, ipfLoanVisibility(p)] }, select: { id: true } });
  if (!seen) throw notFound('Premium-finance loan');
  await tx.$queryRaw`SELECT id FROM ipf_loans WHERE id = ${seen.id} FOR UPDATE`;
  return tx.ipfLoan.findUniqueOrThrow({
    where: { id: seen.id },
    include: { instalments: { orderBy: { seq: 'asc' } }, client: { select: { phone: true } } },
  });
}

export interface EarlySettlement {
  loan: { id: number; uuid: string; loanNo: string; status: string; clientPhone: string };
  figures: SettlementFigures;
  held: boolean;
}

const loanOf = (l: Awaited<ReturnType<typeof lockVisibleLoan>>, status = l.status) => ({
  id: l.id,
  uuid: l.uuid,
  loanNo: l.loanNo,
  status,
  clientPhone: l.client.phone,
});

/**
 * Phase 1 (`confirm` false) or 2 (true) on a loan the caller may see. A confirmed figure whose payoff is nothing (the
 * rebate covers all that is owed) settles the loan at once.
 */
export async function settleEarly(ctx: Context, uuid: string, confirm: boolean): Promise<EarlySettlement> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  return ctx.tx(async (tx) => {
    const loan = await lockVisibleLoan(tx, p, uuid);
    if (loan.status !== 'active') assertIpfMove('loan', loan.status, 'settled');
    const f = settlementFigures(loan, loan.instalments, todayNairobi());
    if (!confirm) return { loan: loanOf(loan), figures: f, held: false };
    await tx.ipfLoan.update({
      where: { id: loan.id },
      data: {
        settlementPayoffMinor: f.payoffMinor,
        settlementRebateMinor: f.rebateMinor,
        settlementValidUntil: toDbDate(f.validUntil),
      },
    });
    await recordAudit(ctx, tx, loan.tenantId, {
      action: 'ipf.settlement_held',
      entityType: 'ipf_loan',
      entityId: loan.uuid,
      changes: {
        payoff_minor: String(f.payoffMinor),
        rebate_minor: String(f.rebateMinor),
        valid_until: f.validUntil,
      },
    });
    let status = loan.status;
    if (f.payoffMinor === 0n) {
      const reason = 'early settlement: the rebate covers what is owed';
      if (await closeLoan(ctx.app, tx, loan.id, { rebateMinor: f.rebateMinor, reason, actor: 'system' }))
        status = 'settled';
    }
    return { loan: loanOf(loan, status), figures: f, held: true };
  });
}

/**
 * The figure confirmed on a loan the caller may see, as it was held (a confirmation replayed by its Idempotency-Key
 * answers this, not a new figure), or null when none was.
 */
export async function heldEarlySettlement(ctx: Context, uuid: string): Promise<EarlySettlement | null> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  return ctx.tx(async (tx) => {
    const loan = await lockVisibleLoan(tx, p, uuid);
    const { settlementPayoffMinor: payoff, settlementRebateMinor: rebate, settlementValidUntil: until } = loan;
    if (payoff == null || rebate == null || !until) return null;
    const f = figures(loan.instalments, rebate, payoff, addDays(fromDbDate(until), -IPF_RULES.settlementValidDays));
    // Once settled, the lines show what was waived (latest first); before, what would be.
    if (loan.status === 'settled')
      f.waived = loan.instalments
        .filter((l) => l.waivedMinor > 0n)
        .sort((a, b) => b.seq - a.seq)
        .map((l) => ({ seq: l.seq, dueOn: fromDbDate(l.dueOn), amountMinor: l.waivedMinor }));
    return { loan: loanOf(loan), figures: f, held: true };
  });
}
