import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { InvalidStateError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { assertIpfMove, transitionIpf } from '../ipf-state.ts';
import { requireFinanceOffered } from '../offered.ts';
import { type ApplicationRow, ipfActor, lockVisibleApplication } from './common.ts';

const cancelSchema = z.object({ reason: z.string({ error: 'required' }).trim().min(1, 'required').max(500) });

/**
 * Withdraws an application (docs/premium-finance.md "Premium finance: applications"): draft, submitted or approved → cancelled; a
 * signed one only while its loan has received no money at all (the loan awaiting_deposit → cancelled with it). A
 * decision that arrives for a cancelled application is recorded on its lender call and changes nothing.
 */
export async function cancelIpfApplication(ctx: Context, uuid: string, input: unknown): Promise<ApplicationRow> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  requireAbility(p, 'policies.create');
  return ctx.tx(async (tx) => {
    // One lock order for every writer: the loan (if any) before the application, as funding, repayments, expiry and
    // default take them (a signed application's loan is locked here before the application row).
    if (isUuid(uuid))
      await tx.$queryRaw`SELECT l.id FROM ipf_loans l JOIN ipf_applications a ON a.id = l.application_id
                          WHERE a.uuid = ${uuid}::uuid FOR UPDATE OF l`;
    const a = await lockVisibleApplication(ctx, tx, uuid);
    // The body is judged once the application is found: an unknown one is 404 whatever the body (docs/api-conventions.md).
    const { reason } = parseInput(cancelSchema, input);
    assertIpfMove('application', a.status, 'cancelled');
    const meta = { tenantId: a.tenantId, reason, actor: ipfActor(ctx) };
    if (a.status === 'signed') await cancelLoan(tx, a, meta);
    if (!(await transitionIpf(tx, 'application', a.id, a.status, 'cancelled', meta)))
      throw new InvalidStateError('The application changed meanwhile; read it again');
    const row = await tx.ipfApplication.update({
      where: { id: a.id },
      data: { closedReason: reason, signingCodeHash: null },
    });
    await recordAudit(ctx, tx, a.tenantId, {
      action: 'ipf_application.cancelled',
      entityType: 'ipf_application',
      entityId: a.applicationNo,
      changes: { from: a.status, reason },
    });
    return row;
  });
}

/** The signed application's loan, cancelled with it: only while it awaits a deposit of which nothing was paid. */
async function cancelLoan(tx: Tx, a: ApplicationRow, meta: { tenantId: number; reason: string; actor: string }) {
  const found = await tx.ipfLoan.findUnique({ where: { applicationId: a.id }, select: { id: true } });
  if (!found) return;
  // Already locked by cancelIpfApplication, before the application (one lock order for every writer).
  const loan = await tx.ipfLoan.findUniqueOrThrow({
    where: { id: found.id },
    include: { instalments: { select: { paidMinor: true } }, _count: { select: { allocations: true } } },
  });
  const paid = loan.paidMinor > 0n || loan.instalments.some((i) => i.paidMinor > 0n) || loan._count.allocations > 0;
  if (loan.status !== 'awaiting_deposit' || paid) {
    throw new InvalidStateError(
      `The loan ${loan.loanNo} has received money (or is ${loan.status}); a signed application can be cancelled only before any payment`,
      { application_status: a.status, loan_status: loan.status, allowed: [] },
    );
  }
  await transitionIpf(tx, 'loan', loan.id, 'awaiting_deposit', 'cancelled', meta);
  await tx.ipfLoan.update({ where: { id: loan.id }, data: { closedAt: clockNow() } });
}
