import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { nairobiIso } from '../../lib/dates.ts';
import { amountOf } from '../../lib/money.ts';
import { emitEvent } from '../events/event.service.ts';
import { queueCertificateIssue } from '../certificates/issuance.ts';
import { raiseLoanReceipt } from './ledger/loan-receipt.ts';
import { raiseReceipt } from './ledger/receipt.ts';
import { OPEN_PAYMENT_STATES, transitionPaymentRequest } from './payment-request-state.ts';
import { type DarajaCallbackItem, darajaTimestampToIso, metadataValue } from '../../ports/mobile-money.ts';

/** The rail's own word on a prompt (its status query or its statement), never a callback's claim. */
export interface RailResult {
  resultCode: number;
  resultDesc: string;
  items?: DarajaCallbackItem[];
}

/** How the rail's word reached us: a callback then confirmed by the status query, the query alone, or the statement. */
export type ConfirmedVia = 'callback' | 'query' | 'statement';

export type SettleOutcome = 'settled' | 'failed' | 'duplicate' | 'malformed';

/**
 * Applies the rail's confirmed result to its payment request, exactly once: the request row is locked and only a
 * `pending` or `sending` one changes, and a transaction reference already receipted is refused, so a replayed
 * callback, the sweep and a status query racing each other change nothing the second time. The amount receipted is
 * what the rail confirms, never more than was asked (an excess the rail reports is recorded as unmatched money).
 */
export async function applyRailResult(
  app: AppServices,
  tenantId: number,
  paymentRequestId: string,
  result: RailResult,
  via: ConfirmedVia,
): Promise<SettleOutcome> {
  const out = await app.db.tenant(tenantId, async (tx) => {
    await tx.$queryRaw`SELECT id FROM payment_requests WHERE id = ${paymentRequestId}::uuid FOR UPDATE`;
    const pr = await tx.paymentRequest.findUniqueOrThrow({ where: { id: paymentRequestId } });
    if (!OPEN_PAYMENT_STATES.includes(pr.status)) return { outcome: 'duplicate' as const };
    if (result.resultCode !== 0) {
      await transitionPaymentRequest(tx, pr.id, OPEN_PAYMENT_STATES, 'failed', {
        resultCode: result.resultCode,
        resultDesc: result.resultDesc,
        resolvedVia: via,
        resolvedAt: new Date(),
        sendingUntil: null,
      });
      return { outcome: 'failed' as const };
    }
    const receiptRef = metadataValue(result.items, 'MpesaReceiptNumber');
    if (receiptRef == null || String(receiptRef).trim() === '') return { outcome: 'malformed' as const };
    const ref = String(receiptRef);
    if (await tx.receipt.findFirst({ where: { transactionRef: ref } })) return { outcome: 'duplicate' as const };
    const confirmedMinor = shillingsToMinor(metadataValue(result.items, 'Amount'));
    if (confirmedMinor == null) return { outcome: 'malformed' as const };
    const amountMinor = confirmedMinor < pr.amountMinor ? confirmedMinor : pr.amountMinor;
    const txDate = metadataValue(result.items, 'TransactionDate');
    const paidAt = txDate ? new Date(darajaTimestampToIso(txDate)) : new Date();
    const when = Number.isNaN(paidAt.getTime()) ? new Date() : paidAt;
    const pay = { ref, amountMinor, paidAt: when };
    const loanPayment = pr.purpose === 'ipf_repayment' && pr.loanId != null;
    const raised = await (loanPayment ? raiseLoanReceipt : raiseReceipt)(app, tx, tenantId, pr, pay);
    const receiptId = raised.receiptId;
    if (confirmedMinor > pr.amountMinor) {
      await recordUnmatched(app, tx, tenantId, {
        transactionRef: `${ref}-EXCESS`,
        checkoutRequestId: pr.checkoutRequestId,
        phone: pr.phone,
        amountMinor: confirmedMinor - pr.amountMinor,
        accountReference: pr.accountReference,
        paidAt: when,
        foundVia: via,
        reason: `the rail confirmed ${confirmedMinor} cents against a request for ${pr.amountMinor}: the excess is not receipted`,
      });
    }
    await transitionPaymentRequest(tx, pr.id, OPEN_PAYMENT_STATES, 'succeeded', {
      resultCode: 0,
      resultDesc: result.resultDesc,
      mpesaReceiptNo: ref,
      receiptId,
      resolvedVia: via,
      resolvedAt: new Date(),
      sendingUntil: null,
    });
    return { outcome: 'settled' as const, policy: loanPayment ? null : raised.policy, fundLoanId: raised.fundLoanId };
  });
  if (out.outcome !== 'duplicate') app.metrics.paymentResult(result.resultCode, out.outcome);
  // Any premium paid to a policy may make a certificate (stage) due: the certificate module decides what.
  // Without a job runner in this process nothing is sent: the runner's sweep finds what is due.
  if ('policy' in out && out.policy) await queueCertificateIssue(app, out.policy);
  // A deposit paid in full: the lender is asked to fund the loan (finance/sweep.ts queues one whose job was lost).
  if ('fundLoanId' in out && out.fundLoanId)
    await app.lender
      ?.queueDisbursement(out.fundLoanId)
      .catch((err) => app.log.warn({ err, loan_id: out.fundLoanId }, 'disbursement not queued'));
  return out.outcome;
}

/** Whole shillings as the rail reports them (number or text, possibly with cents) → cents; null when not a positive amount. */
export function shillingsToMinor(v: string | number | undefined): bigint | null {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  const minor = BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0') || '0');
  return minor > 0n ? minor : null;
}

export interface UnmatchedInput {
  transactionRef: string;
  checkoutRequestId: string | null;
  phone: string;
  amountMinor: bigint;
  accountReference: string;
  paidAt: Date;
  foundVia: ConfirmedVia;
  reason: string;
}

/** Money the rail took that no payment request can take: kept for refund and announced (payment.unmatched), once. */
export async function recordUnmatched(app: AppServices, tx: Tx, tenantId: number, u: UnmatchedInput): Promise<boolean> {
  const inserted = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO unmatched_payments (tenant_id, transaction_ref, checkout_request_id, phone, amount_minor, account_reference, paid_at, found_via, reason)
    VALUES (${tenantId}, ${u.transactionRef}, ${u.checkoutRequestId}, ${u.phone}, ${u.amountMinor}, ${u.accountReference}, ${u.paidAt}, ${u.foundVia}, ${u.reason})
    ON CONFLICT (tenant_id, transaction_ref) DO NOTHING RETURNING id`;
  if (!inserted.length) return false;
  await emitEvent(app, tx, tenantId, 'payment.unmatched', {
    transaction_ref: u.transactionRef,
    ...amountOf(u.amountMinor),
    currency: 'KES',
    paid_at: nairobiIso(u.paidAt),
    method: 'mpesa',
    checkout_request_id: u.checkoutRequestId,
    phone: u.phone,
    account_reference: u.accountReference,
    found_via: u.foundVia,
    status: 'refund_due',
    reason: u.reason,
  });
  return true;
}
