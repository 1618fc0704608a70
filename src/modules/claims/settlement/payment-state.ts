import type { Tx } from '../../../db/client.ts';
import type { Prisma } from '../../../generated/prisma/client.ts';

/**
 * The states of a claim payment, in one place: every status write goes through `transitionClaimPayment`, guarded by
 * the state the writer read, so two writers (a Result and the sweep, a job and its retry) cannot both move a row.
 *
 *   pending  → sending   claimed for a rail call (a stale `sending`, whose caller died, is claimed again)
 *   sending  → pending   the rail did not answer: released for the job's retry or the sweep (the call is idempotent)
 *   sending  → sent      the rail accepted it (ConversationID recorded)
 *   pending | sending | sent → paid     the rail confirmed it (or a bank transfer was recorded)
 *   pending | sending | sent → failed   the rail refused or confirmed a failure; the commitment is released
 *
 * `paid` and `failed` are final: money that the rail reports later for a failed payout is a contradiction for a
 * person, never a late success.
 */
export const CLAIM_PAYMENT_STATES = ['pending', 'sending', 'sent', 'paid', 'failed'] as const;
export type ClaimPaymentStatus = (typeof CLAIM_PAYMENT_STATES)[number];

/** Not yet final: the rail may still pay it. */
export const OPEN_PAYMENT_STATES: ClaimPaymentStatus[] = ['pending', 'sending', 'sent'];

const MOVES: Record<ClaimPaymentStatus, readonly ClaimPaymentStatus[]> = {
  pending: ['sending', 'paid', 'failed'],
  sending: ['sending', 'pending', 'sent', 'paid', 'failed'],
  sent: ['paid', 'failed'],
  paid: [],
  failed: [],
};

/**
 * Moves payment `id` to `to` if it is still in one of `from` (and `where` holds), with `data`. Returns whether it
 * moved. A move the table does not list is a bug and throws.
 */
export async function transitionClaimPayment(
  tx: Tx,
  id: number,
  from: readonly ClaimPaymentStatus[],
  to: ClaimPaymentStatus,
  data: Omit<Prisma.ClaimPaymentUpdateManyMutationInput, 'status'> = {},
  where: Prisma.ClaimPaymentWhereInput = {},
): Promise<boolean> {
  for (const f of from) if (!MOVES[f].includes(to)) throw new Error(`claim payment cannot go from ${f} to ${to}`);
  const r = await tx.claimPayment.updateMany({
    where: { AND: [{ id, status: { in: [...from] } }, where] },
    data: { ...data, status: to },
  });
  return r.count === 1;
}
