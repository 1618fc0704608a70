import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { nextNumber } from '../../../db/counters.ts';
import { fromDbDate, nairobiIso, todayNairobi } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { emitEvent } from '../../events/event.service.ts';
import { onPolicyPaid } from '../../policies/payment-hooks.ts';
import { transitionPolicy } from '../../policies/policy-state.ts';

type PaymentRequestRow = Awaited<ReturnType<Tx['paymentRequest']['findUniqueOrThrow']>>;

interface Payment {
  ref: string;
  amountMinor: bigint;
  paidAt: Date;
}

interface Allocation {
  debitNoteId: number;
  number: string;
  amountMinor: bigint;
}

/**
 * Receipt, allocation to the account's open debit notes oldest first (a debit-note account: that note only), the
 * excess to the client's credit ledger, activation when the first instalment is paid in full, and the events, all
 * in the caller's transaction.
 */
export async function raiseReceipt(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  pr: PaymentRequestRow,
  pay: Payment,
): Promise<number> {
  const { policy, client, notes } = await lockAccount(tx, pr);
  const seq = await nextNumber(tx, tenantId, 'receipt_no');
  const receiptNo = `RCT-${todayNairobi(pay.paidAt).slice(0, 4)}-${String(seq).padStart(6, '0')}`;
  const { allocations, left } = allocate(notes, pay.amountMinor);
  const receipt = await tx.receipt.create({
    data: {
      tenantId,
      receiptNo,
      clientId: client?.id ?? null,
      policyId: policy?.id ?? null,
      paymentRequestId: pr.id,
      method: 'mpesa',
      transactionRef: pay.ref,
      phone: pr.phone,
      account: pr.account,
      purpose: pr.purpose,
      amountMinor: pay.amountMinor,
      unallocatedMinor: left,
      paidAt: pay.paidAt,
    },
  });
  await applyAllocations(tx, tenantId, receipt.id, allocations);
  if (left > 0n && client) {
    await tx.clientCredit.create({
      data: {
        tenantId,
        clientId: client.id,
        receiptId: receipt.id,
        amountMinor: left,
        reason: `excess of ${receiptNo}`,
      },
    });
  }
  await emitEvent(app, tx, tenantId, 'payment.received', {
    receipt_no: receiptNo,
    ...amountOf(pay.amountMinor),
    currency: 'KES',
    paid_at: nairobiIso(pay.paidAt),
    method: 'mpesa',
    transaction_ref: pay.ref,
    checkout_request_id: pr.checkoutRequestId,
    phone: pr.phone,
    account: pr.account,
    purpose: pr.purpose,
    client_no: client?.clientNo ?? null,
    policy_no: policy?.policyNo ?? null,
    policy_uuid: policy?.uuid ?? null,
    allocations: allocations.map((a) => ({ debit_note_no: a.number, ...amountOf(a.amountMinor) })),
    unallocated: amountOf(left),
  });
  if (policy && policy.status === 'pending_payment')
    await activateOnFirstInstalment(app, tx, tenantId, policy, pr, receiptNo);
  // After activation, so a renewal that just became active can mark the policy it renews.
  if (policy) await onPolicyPaid(app, tx, tenantId, policy.id, receiptNo);
  return receipt.id;
}

/** The policy the payment is for (locked), its client, and the debit notes the money may go to. */
async function lockAccount(tx: Tx, pr: PaymentRequestRow) {
  // One settlement of a policy at a time: allocations read and write the same debit notes.
  if (pr.policyId) await tx.$queryRaw`SELECT id FROM policies WHERE id = ${pr.policyId} FOR UPDATE`;
  const policy = pr.policyId
    ? await tx.policy.findUniqueOrThrow({ where: { id: pr.policyId }, include: { client: true, insurer: true } })
    : null;
  const client = policy?.client ?? (pr.clientId ? await tx.client.findUnique({ where: { id: pr.clientId } }) : null);
  const notes = policy
    ? await tx.debitNote.findMany({
        where: { policyId: policy.id, ...(pr.debitNoteId ? { id: pr.debitNoteId } : {}) },
        orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }],
      })
    : [];
  return { policy, client, notes };
}

type LockedPolicy = NonNullable<Awaited<ReturnType<typeof lockAccount>>['policy']>;

/** Oldest note first, each up to what it still owes; what no note takes is `left`. */
function allocate(
  notes: { id: number; number: string; amountMinor: bigint; paidMinor: bigint; creditedMinor: bigint }[],
  amountMinor: bigint,
): { allocations: Allocation[]; left: bigint } {
  let left = amountMinor;
  const allocations: Allocation[] = [];
  for (const n of notes) {
    const open = n.amountMinor - n.paidMinor - n.creditedMinor;
    if (open <= 0n || left <= 0n) continue;
    const take = open < left ? open : left;
    allocations.push({ debitNoteId: n.id, number: n.number, amountMinor: take });
    left -= take;
  }
  return { allocations, left };
}

async function applyAllocations(tx: Tx, tenantId: number, receiptId: number, allocations: Allocation[]) {
  for (const a of allocations) {
    await tx.receiptAllocation.create({
      data: { tenantId, receiptId, debitNoteId: a.debitNoteId, amountMinor: a.amountMinor },
    });
    await tx.debitNote.update({ where: { id: a.debitNoteId }, data: { paidMinor: { increment: a.amountMinor } } });
  }
}

/** A policy awaiting payment goes live once its first instalment is paid in full (perhaps over several receipts). */
async function activateOnFirstInstalment(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  policy: LockedPolicy,
  pr: PaymentRequestRow,
  receiptNo: string,
) {
  const first = await tx.debitNote.findFirst({ where: { policyId: policy.id, instalmentNo: 1 } });
  if (
    !first ||
    first.paidMinor < first.amountMinor ||
    !(await transitionPolicy(tx, policy.id, 'pending_payment', 'active', {
      tenantId,
      source: 'payment',
      reason: `first instalment paid (${receiptNo})`,
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
    receipt_no: receiptNo,
    checkout_request_id: pr.checkoutRequestId,
  });
}
