import type { Context } from '../../../context.ts';
import { notFound } from '../../../lib/problem.ts';
import { clientVisibility } from '../../access/client.visibility.ts';
import { policyVisibility } from '../../access/policy.visibility.ts';

/** What a client owes on their open debit notes (an agent: of the policies they may see), and the credit they hold. */
export async function clientBalance(ctx: Context, clientNo: string) {
  const p = ctx.principal!;
  return ctx.tx(
    async (tx) => {
      const client = await tx.client.findFirst({ where: { clientNo, ...clientVisibility(p) } });
      if (!client) throw notFound('Client');
      const notes = await tx.debitNote.findMany({
        // Every policy's notes but those never taken up (nothing is owed on cover that never started); a credit note
        // settles part of a note as payment does. An agent's, of the policies within their reach only: a client
        // reached through one policy may hold other agents' (an outside check, 2026-12-03).
        where: { policy: { AND: [{ clientId: client.id, status: { not: 'not_taken_up' } }, policyVisibility(p)] } },
        orderBy: [{ dueOn: 'asc' }, { id: 'asc' }],
      });
      const open = notes.filter((n) => n.paidMinor + n.creditedMinor < n.amountMinor);
      const outstanding = open.reduce((s, n) => s + (n.amountMinor - n.paidMinor - n.creditedMinor), 0n);
      const credit = await tx.clientCredit.aggregate({ where: { clientId: client.id }, _sum: { amountMinor: true } });
      return {
        clientNo: client.clientNo,
        outstandingMinor: outstanding,
        creditMinor: credit._sum.amountMinor ?? 0n,
        openDebitNotes: open,
      };
    },
    { readOnly: true },
  );
}
