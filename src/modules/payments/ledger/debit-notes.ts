import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { fromDbDate, nairobiIso } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { onPolicyPaid } from '../../policies/payment-hooks.ts';
import { transitionPolicy } from '../../policies/policy-state.ts';

/**
 * Premium money on a policy's debit notes, whoever pays it (docs/payments.md "Receipts and allocation"): an M-Pesa receipt
 * (receipt.ts) or the lender's disbursement of a premium-finance loan (disbursement.ts). Allocation oldest note
 * first, activation when the first instalment is paid in full, then the lifecycle's reactions to money.
 */

export interface NoteAllocation {
  debitNoteId: number;
  number: string;
  amountMinor: bigint;
}

/** The policy (locked: one settlement of a policy at a time), its client and insurer, and the notes money may go to. */
export async function lockPolicyAccount(tx: Tx, policyId: number, debitNoteId: number | null = null) {
  await tx.$queryRaw`SELECT id FROM policies WHERE id = ${policyId} FOR UPDATE`;
  const policy = await tx.policy.findUniqueOrThrow({
    where: { id: policyId },
    include: { client: true, insurer: true },
  });
  const notes = await tx.debitNote.findMany({
    where: { policyId, ...(debitNoteId ? { id: debitNoteId } : {}) },
    orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }],
  });
  return { policy, notes };
}

export type LockedPolicy = Awaited<ReturnType<typeof lockPolicyAccount>>['policy'];

/** Oldest note first, each up to what it still owes; what no note takes is `left`. */
export function planNoteAllocations(
  notes: { id: number; number: string; amountMinor: bigint; paidMinor: bigint; creditedMinor: bigint }[],
  amountMinor: bigint,
): { allocations: NoteAllocation[]; left: bigint } {
  let left = amountMinor;
  const allocations: NoteAllocation[] = [];
  for (const n of notes) {
    const open = n.amountMinor - n.paidMinor - n.creditedMinor;
    if (open <= 0n || left <= 0n) continue;
    const take = open < left ? open : left;
    allocations.push({ debitNoteId: n.id, number: n.number, amountMinor: take });
    left -= take;
  }
  return { allocations, left };
}

export async function applyNoteAllocations(tx: Tx, tenantId: number, receiptId: number, allocations: NoteAllocation[]) {
  for (const a of allocations) {
    await tx.receiptAllocation.create({
      data: { tenantId, receiptId, debitNoteId: a.debitNoteId, amountMinor: a.amountMinor },
    });
    await tx.debitNote.update({ where: { id: a.debitNoteId }, data: { paidMinor: { increment: a.amountMinor } } });
  }
}

/**
 * What premium money does to its policy once allocated: a pending policy goes live when its first instalment is paid
 * in full (policy.activated), then the lifecycle's reactions (payment-hooks.ts: a lapse paid up, a renewal taken).
 */
export async function afterPremiumPaid(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  policy: LockedPolicy,
  paid: { receiptNo: string; checkoutRequestId: string | null },
): Promise<void> {
  if (policy.status === 'pending_payment') await activateOnFirstInstalment(app, tx, tenantId, policy, paid);
  // After activation, so a renewal that just became active can mark the policy it renews.
  await onPolicyPaid(app, tx, tenantId, policy.id, paid.receiptNo);
}

/** A policy awaiting payment goes live once its first instalment is paid in full (perhaps over several receipts). */
async function activateOnFirstInstalment(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  policy: LockedPolicy,
  paid: { receiptNo: string; checkoutRequestId: string | null },
) {
  const first = await tx.debitNote.findFirst({ where: { policyId: policy.id, instalmentNo: 1 } });
  if (
    !first ||
    first.paidMinor < first.amountMinor ||
    !(await transitionPolicy(tx, policy.id, 'pending_payment', 'active', {
      tenantId,
      source: 'payment',
      reason: `first instalment paid (${paid.receiptNo})`,
    }))
  )
    return;
  const now = new Date();
  await emitEvent(app, tx, tenantId, 'policy.activated', {
    policy_no: policy.policyNo,
    policy_uuid: policy.uuid,
    client_no: policy.client.clientNo,
    status: 'active',
    activated_at: nairobiIso(now),
    cover_start: fromDbDate(policy.startDate),
    cover_end: fromDbDate(policy.endDate),
    insurer: policy.insurer.name,
    premium: amountOf(policy.totalMinor),
    receipt_no: paid.receiptNo,
    checkout_request_id: paid.checkoutRequestId,
  });
}
