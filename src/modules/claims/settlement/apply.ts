import type { AppServices, Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Claim } from '../../../generated/prisma/client.ts';
import { nairobiIso } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { lockClaimRow } from '../adjudication/common.ts';
import { type ClaimActor, claimEventRef, moveClaim } from '../claim-moves.ts';
import { OPEN_PAYMENT_STATES, transitionClaimPayment } from './payment-state.ts';
import { applyPayment, releasePayout } from './reconcile.ts';

/**
 * What the rail confirmed (or a bank transfer recorded), applied in the caller's short transaction. One function for
 * every path that learns a payment is paid (a confirmed Result, the sweep's query, a bank transfer), so the ledger
 * moves the same way whichever comes first; a second confirmation of the same payment finds it final and changes
 * nothing.
 */
export interface Confirmation {
  transactionId: string | null;
  resultCode: number | null;
  resultDesc: string | null;
  /** The rail's ConversationID, kept when the acknowledgement that carried it was lost. */
  conversationId?: string;
  at?: Date;
}

export type ApplyOutcome = 'paid' | 'failed' | 'duplicate';

const keptConversation = (p: { conversationId: string | null }, conf: Confirmation) =>
  conf.conversationId && !p.conversationId ? { conversationId: conf.conversationId } : {};

/**
 * Payment `paymentId` is paid: paid += amount, the B2C commitment consumed, the reserve consumed by a `payment`
 * movement; when that completes the net payable, the claim moves to settled (claim.moved) and claim.settled lists
 * every paid payment.
 */
export async function applyPaid(
  from: Context | AppServices,
  tx: Tx,
  paymentId: number,
  conf: Confirmation,
  by: ClaimActor,
): Promise<ApplyOutcome> {
  const p = await tx.claimPayment.findUniqueOrThrow({ where: { id: paymentId } });
  // Serialises the money writes of one claim (two payments confirmed at once both add to paidMinor).
  await lockClaimRow(tx, p.claimId);
  const at = conf.at ?? new Date();
  const moved = await transitionClaimPayment(tx, p.id, OPEN_PAYMENT_STATES, 'paid', {
    paidAt: at,
    transactionId: conf.transactionId,
    resultCode: conf.resultCode,
    resultDesc: conf.resultDesc,
    ...keptConversation(p, conf),
  });
  if (!moved) return 'duplicate';
  const claim = await tx.claim.findUniqueOrThrow({ where: { id: p.claimId } });
  const applied = applyPayment(claim, p.amountMinor, { committed: p.method === 'mpesa_b2c' });
  await tx.claim.update({
    where: { id: claim.id },
    data: {
      paidMinor: applied.claim.paidMinor,
      committedMinor: applied.claim.committedMinor,
      reserveMinor: applied.claim.reserveMinor,
    },
  });
  await tx.claimReserveMovement.create({
    data: {
      tenantId: p.tenantId,
      claimId: p.claimId,
      kind: 'payment',
      amountMinor: applied.movement.amountMinor,
      balanceAfterMinor: applied.movement.balanceAfterMinor,
      reason: `${p.method === 'mpesa_b2c' ? 'M-Pesa payout' : 'Bank transfer'} ${p.reference}`,
      actorUserId: by.type === 'user' ? by.id : p.requestedByUserId,
      at,
    },
  });
  // A claim that left `approved` meanwhile (a person's move) keeps its status: the payment is recorded all the same.
  if (applied.settles && claim.status === 'approved') await settle(from, tx, claim, by);
  return 'paid';
}

/**
 * The move to settled is stamped on the organisation's business clock (moveClaim's default), as every other move of
 * the claim is: the payment's own paid_at is the rail's instant, but a sandbox claim's history and status_since
 * must not step back to the real clock.
 */
async function settle(from: Context | AppServices, tx: Tx, claim: Claim, by: ClaimActor): Promise<void> {
  const settledAt = await moveClaim(from, tx, claim, 'settled', { source: 'payment', by });
  const paid = await tx.claimPayment.findMany({ where: { claimId: claim.id, status: 'paid' }, orderBy: { id: 'asc' } });
  await emitEvent(from, tx, claim.tenantId, 'claim.settled', {
    ...(await claimEventRef(tx, claim.id)),
    paid: amountOf(paid.reduce((s, x) => s + x.amountMinor, 0n)),
    settled_at: nairobiIso(settledAt),
    payments: paid.map((x) => ({
      payment_uuid: x.uuid,
      method: x.method as 'mpesa_b2c' | 'bank_transfer',
      reference: x.reference,
      transaction_id: x.transactionId,
      ...amountOf(x.amountMinor),
    })),
  });
}

/** Payment `paymentId` failed (refused, or a failure the rail confirmed): its commitment is released, nothing else. */
export async function applyFailed(tx: Tx, paymentId: number, conf: Confirmation): Promise<ApplyOutcome> {
  const p = await tx.claimPayment.findUniqueOrThrow({ where: { id: paymentId } });
  await lockClaimRow(tx, p.claimId);
  const moved = await transitionClaimPayment(tx, p.id, OPEN_PAYMENT_STATES, 'failed', {
    failedAt: conf.at ?? new Date(),
    resultCode: conf.resultCode,
    resultDesc: conf.resultDesc?.slice(0, 500) ?? null,
    ...keptConversation(p, conf),
  });
  if (!moved) return 'duplicate';
  if (p.method === 'mpesa_b2c') {
    const claim = await tx.claim.findUniqueOrThrow({ where: { id: p.claimId } });
    const released = releasePayout(claim, p.amountMinor);
    await tx.claim.update({ where: { id: claim.id }, data: { committedMinor: released.committedMinor } });
  }
  return 'failed';
}
