import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { queueCertificateIssue } from '../../certificates/issuance.ts';
import { markLoanFunded } from '../../finance/loan/funding.ts';
import type { LenderDisbursement, LenderDisbursementRequest } from '../../../ports/ipf-lender.ts';
import { orgRailReference } from '../../../ports/rail-reference.ts';
import { afterPremiumPaid, applyNoteAllocations, lockPolicyAccount, planNoteAllocations } from './debit-notes.ts';
import { numberReceipt } from './receipt.ts';

/**
 * Funding a loan whose deposit is paid (queue ipf.disburse; docs/premium-finance.md "Premium finance: deposit, funding, repayments and
 * early settlement"), in three steps, none holding a connection while the lender is called:
 *  1. a short transaction records the call (ipf_lender_calls, kind `disbursement`, `recorded`), or takes up the one
 *     an earlier attempt recorded, for a loan still awaiting its deposit with the deposit paid in full;
 *  2. the lender is asked, outside any transaction, under our reference (the organisation's code and the loan number,
 *     `<org>/IPF-YYYY-NNNNNN`, unique across the deployment, which the lender treats as one request): after an earlier attempt that may have reached it, it is first asked what it holds;
 *  3. one transaction, only for a loan still awaiting its deposit: the lender's receipt (method `ipf_lender`, the
 *     disbursement reference as transaction reference, unique per organisation) allocated to the policy's debit notes
 *     (activating the policy through the path every receipt takes), the loan active, its application funded, refunds
 *     to the lender, ipf.funded; the call `confirmed`.
 * A refused disbursement marks the call `failed` and leaves the loan as it was (awaiting its deposit), logged; it is
 * not asked again by the sweep. A lender that cannot be reached throws: the job retries, the call stays `recorded`.
 */
export async function fundLoan(app: AppServices, loanId: number): Promise<'funded' | 'skipped' | 'refused'> {
  const head = await app.db.system((tx) =>
    tx.ipfLoan.findUnique({ where: { id: loanId }, select: { tenantId: true } }),
  );
  if (!head || !app.lender) return 'skipped';
  const { tenantId } = head;
  const call = await app.db.tenant(tenantId, (tx) => recordCall(tx, loanId));
  if (!call) return 'skipped';
  if (call === 'refused') return 'refused';
  const rail = app.lender.rail;
  const answer =
    (call.attempts > 1 ? await rail.lookupDisbursement(call.request.reference) : null) ??
    (await rail.disburse(call.request));
  if (answer.status !== 'paid') {
    await app.db.tenant(tenantId, (tx) =>
      tx.ipfLenderCall.update({ where: { id: call.id }, data: { status: 'failed', response: answer as never } }),
    );
    app.log.warn(
      { loan_id: loanId, reference: answer.reference, message: answer.message },
      'lender refused disbursement',
    );
    return 'refused';
  }
  const policy = await app.db.tenant(tenantId, (tx) => applyDisbursement(app, tx, tenantId, loanId, call.id, answer));
  if (policy == null) return 'skipped';
  await queueCertificateIssue(app, policy);
  return 'funded';
}

type RecordedCall = { id: number; attempts: number; request: LenderDisbursementRequest };

/** Step 1: the call to make (recorded, or an earlier attempt's taken up), or why there is none. */
async function recordCall(tx: Tx, loanId: number): Promise<RecordedCall | 'refused' | null> {
  await tx.$queryRaw`SELECT id FROM ipf_loans WHERE id = ${loanId} FOR UPDATE`;
  const loan = await tx.ipfLoan.findUniqueOrThrow({
    where: { id: loanId },
    include: {
      instalments: { where: { seq: 1 } },
      lender: { select: { name: true } },
      tenant: { select: { code: true } },
      policy: { include: { insurer: true, debitNotes: { orderBy: [{ instalmentNo: 'asc' }, { id: 'asc' }] } } },
      calls: { where: { kind: 'disbursement' }, orderBy: { id: 'desc' } },
    },
  });
  const deposit = loan.instalments[0];
  if (loan.status !== 'awaiting_deposit' || !deposit || deposit.paidMinor < deposit.amountMinor) return null;
  if (loan.calls.some((c) => c.status === 'failed')) return 'refused';
  const prior = loan.calls.find((c) => c.status === 'recorded');
  if (prior) {
    const taken = await tx.ipfLenderCall.update({ where: { id: prior.id }, data: { attempts: { increment: 1 } } });
    return { id: taken.id, attempts: taken.attempts, request: taken.request as unknown as LenderDisbursementRequest };
  }
  const request: LenderDisbursementRequest = {
    // The lender keys on the reference across every organisation (loan numbers restart in each): it carries the
    // organisation, and is persisted on the call before the call is made.
    reference: orgRailReference(loan.tenant.code, loan.loanNo),
    loan_no: loan.loanNo,
    lender: loan.lender.name,
    amount_minor: loan.principalMinor.toString(),
    payee: {
      insurer: loan.policy.insurer.name,
      policy_no: loan.policy.policyNo,
      debit_note_no: loan.policy.debitNotes[0]?.number ?? `DN-${loan.policy.policyNo}`,
    },
  };
  const created = await tx.ipfLenderCall.create({
    data: {
      tenantId: loan.tenantId,
      kind: 'disbursement',
      loanId,
      status: 'recorded',
      request: request as never,
      attempts: 1,
    },
  });
  return { id: created.id, attempts: created.attempts, request };
}

/** Step 3: the lender's money on the policy and the loan funded; the policy, or null when nothing was to do. */
async function applyDisbursement(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  loanId: number,
  callId: number,
  answer: LenderDisbursement,
): Promise<{ id: number; motorProductId: number | null } | null> {
  await tx.$queryRaw`SELECT id FROM ipf_loans WHERE id = ${loanId} FOR UPDATE`;
  const loan = await tx.ipfLoan.findUniqueOrThrow({ where: { id: loanId } });
  const confirm = () =>
    tx.ipfLenderCall.update({
      where: { id: callId },
      data: { status: 'confirmed', response: answer as never, confirmedAt: new Date() },
    });
  if (loan.status !== 'awaiting_deposit') {
    // Another attempt funded it (or the loan was cancelled meanwhile): the lender's answer is kept on the call.
    await confirm();
    app.log.warn({ loan_id: loanId, status: loan.status }, 'disbursement answered for a loan no longer awaiting it');
    return null;
  }
  const paidAt = Number.isNaN(Date.parse(answer.paid_at)) ? new Date() : new Date(answer.paid_at);
  const amountMinor = BigInt(answer.amount_minor);
  const { policy, notes } = await lockPolicyAccount(tx, loan.policyId);
  const receiptNo = await numberReceipt(tx, tenantId, paidAt);
  const { allocations, left } = planNoteAllocations(notes, amountMinor);
  const receipt = await tx.receipt.create({
    data: {
      tenantId,
      receiptNo,
      clientId: policy.clientId,
      policyId: policy.id,
      method: 'ipf_lender',
      transactionRef: answer.disbursement_ref,
      phone: '',
      account: notes[0]?.number ?? policy.policyNo,
      purpose: 'premium',
      amountMinor,
      // The lender's money beyond what the notes owe stays on the receipt (it is not the client's credit).
      unallocatedMinor: left,
      paidAt,
    },
  });
  await applyNoteAllocations(tx, tenantId, receipt.id, allocations);
  await afterPremiumPaid(app, tx, tenantId, policy, { receiptNo, checkoutRequestId: null });
  // On the organisation's clock, as the loan's other dates (signed_at, closed_at): a sandbox's or the demo week's day.
  const disbursed = { disbursementRef: answer.disbursement_ref, amountMinor, receiptNo, fundedAt: clockNow() };
  await markLoanFunded(app, tx, loanId, disbursed);
  await confirm();
  return policy;
}
