import type { Context } from '../../../context.ts';
import type { Prisma } from '../../../db/client.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { visibleClaim } from '../../access/claim.visibility.ts';

type Query<A> = Omit<A, 'where' | 'orderBy'>;

/** The payments of a claim the caller may see (404 otherwise), oldest first; `query` is the caller's selection. */
export async function listPayments(
  ctx: Context,
  claimUuid: string,
  query: Query<Prisma.ClaimPaymentFindManyArgs> = {},
) {
  const claim = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  return ctx.tx((tx) => tx.claimPayment.findMany({ ...query, where: { claimId: claim.id }, orderBy: { id: 'asc' } }));
}

/** One payment of a claim the caller may see; 404 for a payment of another claim, as for a missing one. */
export async function getPayment(
  ctx: Context,
  claimUuid: string,
  paymentUuid: string,
  query: Query<Prisma.ClaimPaymentFindFirstArgs> = {},
) {
  const claim = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  if (!isUuid(paymentUuid)) throw notFound('Claim payment');
  const row = await ctx.tx((tx) =>
    tx.claimPayment.findFirst({ ...query, where: { claimId: claim.id, uuid: paymentUuid } }),
  );
  if (!row) throw notFound('Claim payment');
  return row;
}

/** A payment by its database id (what a mutation reloads with the caller's selection). */
export function paymentById(ctx: Context, id: number, query: Query<Prisma.ClaimPaymentFindUniqueArgs> = {}) {
  return ctx.tx((tx) => tx.claimPayment.findUniqueOrThrow({ ...query, where: { id } }));
}

/** The reserve ledger of a claim the caller may see, in order. */
export async function listReserveMovements(
  ctx: Context,
  claimUuid: string,
  query: Query<Prisma.ClaimReserveMovementFindManyArgs> = {},
) {
  const claim = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  return ctx.tx((tx) =>
    tx.claimReserveMovement.findMany({ ...query, where: { claimId: claim.id }, orderBy: { id: 'asc' } }),
  );
}
