import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { fromDbDate, nairobiIso, todayNairobi } from '../../lib/dates.ts';
import { amountOf } from '../../lib/money.ts';
import { nextNumber } from '../clients/client.service.ts';
import { emitEvent } from '../events/event.service.ts';
import { transitionPolicy } from '../policies/policy-state.ts';
import { onPolicyPaid } from '../policies/payment-hooks.ts';
import { queueCertificateIssue } from '../certificates/issuance.ts';
import { sweepCertificates } from '../certificates/certificate.service.ts';
import { type DarajaCallbackItem, darajaTimestampToIso, metadataValue, paymentsRuntime } from './rail.ts';

/** A rail's final word on a prompt, from a callback or a status query. */
export interface RailResult {
  resultCode: number;
  resultDesc: string;
  items?: DarajaCallbackItem[];
}

export type SettleOutcome = 'settled' | 'failed' | 'duplicate' | 'unmatched' | 'malformed';



/** Serialises "unknown checkout id" handling against pushes still committing (see payment.service initiate). */
export async function pushLock(tx: Tx, tenantId: number, mode: 'shared' | 'exclusive'): Promise<void> {
  const key = `mpesa-push:${tenantId}`;
  if (mode === 'shared') await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtext(${key}))`;
  else await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
}

/**
 * Applies a rail result to its payment request, exactly once: the request row is locked and only a pending one
 * changes, and a transaction reference already receipted is refused, so duplicate callbacks and a callback racing
 * a reconciling status query change nothing the second time.
 */
export async function applyRailResult(
  app: AppServices,
  tenantId: number,
  checkoutRequestId: string,
  result: RailResult,
  via: 'callback' | 'query',
): Promise<SettleOutcome> {
  const out = await app.db.tenant(
    tenantId,
    async (tx) => {
      let [row] = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM payment_requests WHERE tenant_id = ${tenantId} AND checkout_request_id = ${checkoutRequestId} FOR UPDATE`;
      if (!row) {
        // The rail can answer before the push that asked it has committed: wait for in-flight pushes, look again.
        await pushLock(tx, tenantId, 'exclusive');
        [row] = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM payment_requests WHERE tenant_id = ${tenantId} AND checkout_request_id = ${checkoutRequestId} FOR UPDATE`;
      }
      if (!row) return { outcome: 'unmatched' as const };
      const pr = await tx.paymentRequest.findUniqueOrThrow({ where: { id: row.id } });
      if (pr.status !== 'pending') return { outcome: 'duplicate' as const };
      if (result.resultCode !== 0) {
        await tx.paymentRequest.update({
          where: { id: pr.id },
          data: { status: 'failed', resultCode: result.resultCode, resultDesc: result.resultDesc, resolvedVia: via, resolvedAt: new Date() },
        });
        return { outcome: 'failed' as const };
      }
      const receiptRef = metadataValue(result.items, 'MpesaReceiptNumber');
      if (receiptRef == null || String(receiptRef).trim() === '') return { outcome: 'malformed' as const };
      const ref = String(receiptRef);
      if (await tx.receipt.findFirst({ where: { transactionRef: ref } })) return { outcome: 'duplicate' as const };
      const paidShillings = Number(metadataValue(result.items, 'Amount'));
      const amountMinor = Number.isFinite(paidShillings) && paidShillings > 0 ? BigInt(Math.round(paidShillings * 100)) : pr.amountMinor;
      const txDate = metadataValue(result.items, 'TransactionDate');
      const paidAt = txDate ? new Date(darajaTimestampToIso(txDate)) : new Date();
      const receiptId = await raiseReceipt(app, tx, tenantId, pr, { ref, amountMinor, paidAt: Number.isNaN(paidAt.getTime()) ? new Date() : paidAt });
      await tx.paymentRequest.update({
        where: { id: pr.id },
        data: { status: 'succeeded', resultCode: 0, resultDesc: result.resultDesc, mpesaReceiptNo: ref, receiptId, resolvedVia: via, resolvedAt: new Date() },
      });
      return { outcome: 'settled' as const, policyId: pr.policyId };
    },
    { timeout: 20_000 },
  );
  // Any payment to a policy may make a certificate (stage) due: the certificate module decides what.
  // Without a job runner in this process nothing is sent: the runner's minute sweep finds what is due.
  if ('policyId' in out && out.policyId) await queueCertificateIssue(app, out.policyId);
  return out.outcome;
}

type PaymentRequestRow = Awaited<ReturnType<Tx['paymentRequest']['findUniqueOrThrow']>>;

/**
 * Receipt, allocation to the account's open debit notes oldest first (a debit-note account: that note only), the
 * excess to the client's credit ledger, activation when the first instalment is paid in full, and the events, all
 * in the caller's transaction.
 */
async function raiseReceipt(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  pr: PaymentRequestRow,
  pay: { ref: string; amountMinor: bigint; paidAt: Date },
): Promise<number> {
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
  const seq = await nextNumber(tx, tenantId, 'receipt_no');
  const receiptNo = `RCT-${todayNairobi(pay.paidAt).slice(0, 4)}-${String(seq).padStart(6, '0')}`;
  let left = pay.amountMinor;
  const allocations: { debitNoteId: number; number: string; amountMinor: bigint }[] = [];
  for (const n of notes) {
    const open = n.amountMinor - n.paidMinor - n.creditedMinor;
    if (open <= 0n || left <= 0n) continue;
    const take = open < left ? open : left;
    allocations.push({ debitNoteId: n.id, number: n.number, amountMinor: take });
    left -= take;
  }
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
  for (const a of allocations) {
    await tx.receiptAllocation.create({ data: { tenantId, receiptId: receipt.id, debitNoteId: a.debitNoteId, amountMinor: a.amountMinor } });
    await tx.debitNote.update({ where: { id: a.debitNoteId }, data: { paidMinor: { increment: a.amountMinor } } });
  }
  if (left > 0n && client) {
    await tx.clientCredit.create({ data: { tenantId, clientId: client.id, receiptId: receipt.id, amountMinor: left, reason: `excess of ${receiptNo}` } });
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
    purpose: pr.purpose as 'premium' | 'ipf_repayment',
    client_no: client?.clientNo ?? null,
    policy_no: policy?.policyNo ?? null,
    policy_uuid: policy?.uuid ?? null,
    allocations: allocations.map((a) => ({ debit_note_no: a.number, ...amountOf(a.amountMinor) })),
    unallocated: amountOf(left),
  });

  if (policy && policy.status === 'pending_payment') {
    const first = await tx.debitNote.findFirst({ where: { policyId: policy.id, instalmentNo: 1 } });
    if (first && first.paidMinor >= first.amountMinor && (await transitionPolicy(tx, policy.id, 'pending_payment', 'active', { tenantId, source: 'payment', reason: `first instalment paid (${receiptNo})` }))) {
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
  }
  // After activation, so a renewal that just became active can mark the policy it renews.
  if (policy) await onPolicyPaid(app, tx, tenantId, policy.id, receiptNo);
  return receipt.id;
}

/**
 * The minute sweep (job payments.reconcile): prompts still pending past MPESA_RECONCILE_AFTER_MS are asked of the
 * rail even when nobody queries their status; then the certificate module's sweep queues certificates due but
 * missing (settled in a process without a job runner, a crash after commit) and cancellations left pending.
 */
export async function reconcilePending(app: AppServices, now: Date = new Date()): Promise<{ reconciled: number; certificates: number }> {
  const runtime = paymentsRuntime(app);
  let reconciled = 0;
  let certificates = 0;
  if (runtime.rail) {
    const stale = await app.db.system((tx) =>
      tx.paymentRequest.findMany({
        where: { status: 'pending', createdAt: { lte: new Date(now.getTime() - app.config.mpesaReconcileAfterMs) } },
        orderBy: { createdAt: 'asc' },
        take: 200,
        select: { tenantId: true, checkoutRequestId: true },
      }),
    );
    for (const s of stale) {
      const q = await runtime.rail.query(s.checkoutRequestId).catch((err) => {
        app.log.warn({ err, checkout_request_id: s.checkoutRequestId }, 'rail query failed');
        return null;
      });
      if (q?.ResultCode == null) continue;
      const outcome = await applyRailResult(app, s.tenantId, s.checkoutRequestId, { resultCode: q.ResultCode, resultDesc: q.ResultDesc ?? '', items: q.CallbackMetadata?.Item }, 'query');
      if (outcome === 'settled' || outcome === 'failed') reconciled += 1;
    }
  }
  const swept = await sweepCertificates(app);
  certificates = swept.issue + swept.cancel;
  return { reconciled, certificates };
}
