import type { CancellationFieldsFragment, CancellationInput } from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { CancellationInput as CancellationInputBody } from '../schemas/cancellation.ts';
import { minor, whole } from './money.ts';

/**
 * REST body of POST /policies/{uuid}/cancellation (parsed by its definition: the types checked) → GraphQL
 * CancellationInput; the service judges the values (a missing reason is "" for it to refuse).
 */
export function cancellationInputFromRest(b: z.output<typeof CancellationInputBody>): SentInput<CancellationInput> {
  const s = <T>(v: T | null | undefined): T | undefined => (v == null ? undefined : v);
  return {
    reason: s(b.reason) ?? '',
    requestedBy: s(b.requested_by) ?? '',
    effectiveDate: s(b.effective_date),
    note: s(b.note),
  };
}

/** GraphQL Cancellation → the REST record (money as whole shillings plus `_minor`, dates Y-m-d). */
export function cancellationToRest(c: CancellationFieldsFragment) {
  const r = c.refund;
  return {
    id: c.databaseId,
    uuid: c.uuid,
    policy: { uuid: c.policy.uuid, policy_no: c.policy.policyNo, status: c.policy.status },
    // Aliased in the operations: a Problem's `status` (the HTTP status) shares the selection.
    status: c.cancellationStatus,
    reason: c.reason,
    registry_reason_id: c.registryReasonId,
    requested_by: c.requestedBy,
    note: c.note,
    effective_date: c.effectiveDate,
    based_on_revision: c.basedOnRevision,
    refund: {
      days: { in_period: r.days.inPeriod, covered: r.days.covered, unearned: r.days.unearned },
      basic_premium: whole(r.basicPremium),
      basic_premium_minor: minor(r.basicPremium),
      levies: r.levies.map((l) => ({
        code: l.code,
        name: l.name,
        amount: whole(l.amount),
        amount_minor: minor(l.amount),
      })),
      taxes: whole(r.taxes),
      taxes_minor: minor(r.taxes),
      non_refundable: r.nonRefundable.map((l) => ({
        code: l.code,
        name: l.name,
        amount: whole(l.amount),
        amount_minor: minor(l.amount),
        reason: l.reason,
      })),
      credit_total: whole(r.creditTotal),
      credit_total_minor: minor(r.creditTotal),
      applied_to_debit_notes: r.appliedToDebitNotes.map((a) => ({
        debit_note_no: a.debitNoteNo,
        amount: whole(a.amount),
        amount_minor: minor(a.amount),
      })),
      applied_total: whole(r.appliedTotal),
      applied_total_minor: minor(r.appliedTotal),
      refund_to_client: whole(r.refundToClient),
      refund_to_client_minor: minor(r.refundToClient),
      refund_payee: r.refundPayee,
      refund_to_lender: whole(r.refundToLender),
      refund_to_lender_minor: minor(r.refundToLender),
      outstanding_after: whole(r.outstandingAfter),
      outstanding_after_minor: minor(r.outstandingAfter),
      items: r.items.map((i) => ({
        regno: i.regNo,
        insured: i.insured,
        annual_basic_premium: whole(i.annualBasicPremium),
        annual_basic_premium_minor: minor(i.annualBasicPremium),
        from: i.from,
        to: i.to,
        unearned_basic_premium: whole(i.unearnedBasicPremium),
        unearned_basic_premium_minor: minor(i.unearnedBasicPremium),
      })),
    },
    credit_note: c.creditNote
      ? {
          number: c.creditNote.number,
          amount: whole(c.creditNote.amount),
          amount_minor: minor(c.creditNote.amount),
          applied: whole(c.creditNote.applied),
          applied_minor: minor(c.creditNote.applied),
          refunded: whole(c.creditNote.refunded),
          refunded_minor: minor(c.creditNote.refunded),
          refund_payee: c.creditNote.refundPayee,
        }
      : null,
    reinstatement_debit_note: c.reinstatementDebitNote
      ? {
          number: c.reinstatementDebitNote.number,
          amount: whole(c.reinstatementDebitNote.amount),
          amount_minor: minor(c.reinstatementDebitNote.amount),
          credited: whole(c.reinstatementDebitNote.credited),
          credited_minor: minor(c.reinstatementDebitNote.credited),
        }
      : null,
    expires_at: c.expiresAt,
    confirmed_at: c.confirmedAt,
    reinstated_at: c.reinstatedAt,
    created_at: c.createdAt,
  };
}
