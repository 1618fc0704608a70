import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { ClaimStatus } from '../../../generated/prisma/enums.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import type { Cents } from '../../../lib/money.ts';
import { InvalidStateError, notFound } from '../../../lib/problem.ts';
import { claimVisibility } from '../../access/claim.visibility.ts';

/**
 * The claim `uuid`, visible to the caller, locked for the rest of `tx` (FOR UPDATE) and read after the lock: every
 * adjudication step starts here, so two steps on one claim take turns and each sees the other's result.
 */
export async function lockVisibleClaim(ctx: Context, tx: Tx, uuid: string) {
  if (!isUuid(uuid)) throw notFound('Claim');
  const seen = await tx.claim.findFirst({
    where: { AND: [{ uuid }, claimVisibility(ctx.principal)] },
    select: { id: true },
  });
  if (!seen) throw notFound('Claim');
  await lockClaimRow(tx, seen.id);
  return tx.claim.findUniqueOrThrow({ where: { id: seen.id } });
}

/** Locks claim `id` for the rest of `tx`: the one lock every writer of a claim's status or money takes first. */
export async function lockClaimRow(tx: Tx, id: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM claims WHERE id = ${id} FOR UPDATE`;
}

/** 409 invalid_state unless the claim is in one of `states`. */
export function requireStatus(claim: { status: ClaimStatus }, states: readonly ClaimStatus[], doing: string): void {
  if (!states.includes(claim.status)) {
    throw new InvalidStateError(`A claim in ${claim.status} cannot ${doing} (only in ${states.join(', ')})`, {
      claim_status: claim.status,
    });
  }
}

/**
 * Sets the claim's outstanding reserve to `balance`, recording the movement (the signed difference) with its reason:
 * the reserve is always the sum of its movements. No movement when nothing changes.
 */
export async function setReserve(
  tx: Tx,
  claim: { id: number; tenantId: number; reserveMinor: Cents },
  balance: Cents,
  kind: 'adjustment' | 'approval' | 'release' | 'reopen',
  reason: string,
  actorUserId: number | null,
): Promise<void> {
  const delta = balance - claim.reserveMinor;
  if (delta === 0n) return;
  await tx.claimReserveMovement.create({
    data: {
      tenantId: claim.tenantId,
      claimId: claim.id,
      kind,
      amountMinor: delta,
      balanceAfterMinor: balance,
      reason,
      actorUserId,
    },
  });
  await tx.claim.update({ where: { id: claim.id }, data: { reserveMinor: balance } });
}
