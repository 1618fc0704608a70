import type { AppServices } from '../../context.ts';

/** A submitted application or a paid deposit this old has lost its job (a crash between commit and queueing). */
export const STRANDED_MS = 30_000;

/**
 * The premium-finance sweep (`ipf.sweep`, every minute and at start): submitted applications still undecided and loans
 * whose deposit is paid but which are not yet funded are queued again. Both jobs are idempotent (the lender treats
 * our reference as one request; only a `submitted` application or an `awaiting_deposit` loan takes the answer).
 */
export async function sweepIpf(
  app: AppServices,
  now = new Date(),
): Promise<{ decisions: number; disbursements: number }> {
  const port = app.lender;
  if (!port) return { decisions: 0, disbursements: 0 };
  const before = new Date(now.getTime() - STRANDED_MS);
  const undecided = await app.db.system((tx) =>
    tx.ipfApplication.findMany({
      where: { status: 'submitted', updatedAt: { lte: before } },
      orderBy: { id: 'asc' },
      take: 100,
      select: { id: true },
    }),
  );
  for (const { id } of undecided) await port.queueDecision(id);
  const unfunded = await app.db.system((tx) =>
    tx.ipfLoan.findMany({
      where: {
        status: 'awaiting_deposit',
        updatedAt: { lte: before },
        instalments: { some: { seq: 1, paidMinor: { gt: 0 } } },
        // A disbursement the lender refused is not asked again (payments/ledger/disbursement.ts).
        calls: { none: { kind: 'disbursement', status: 'failed' } },
      },
      orderBy: { id: 'asc' },
      take: 100,
      include: { instalments: { where: { seq: 1 } } },
    }),
  );
  const due = unfunded.filter((l) => l.instalments[0] && l.instalments[0].paidMinor >= l.instalments[0].amountMinor);
  for (const l of due) await port.queueDisbursement(l.id);
  return { decisions: undecided.length, disbursements: due.length };
}
