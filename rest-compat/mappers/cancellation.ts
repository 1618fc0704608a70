import type { CancellationFieldsFragment, CancellationInput } from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { CancellationInput as CancellationInputBody } from '../schemas/cancellation.ts';
import { moneyPair } from './money.ts';

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
      ...moneyPair('basic_premium', r.basicPremium),
      levies: r.levies.map((l) => ({ code: l.code, name: l.name, ...moneyPair('amount', l.amount) })),
      ...moneyPair('taxes', r.taxes),
      non_refundable: r.nonRefundable.map((l) => ({
        code: l.code,
        name: l.name,
        ...moneyPair('amount', l.amount),
        reason: l.reason,
      })),
      ...moneyPair('credit_total', r.creditTotal),
      applied_to_debit_notes: r.appliedToDebitNotes.map((a) => ({
        debit_note_no: a.debitNoteNo,
        ...moneyPair('amount', a.amount),
      })),
      ...moneyPair('applied_total', r.appliedTotal),
      ...moneyPair('refund_to_client', r.refundToClient),
      refund_payee: r.refundPayee,
      ...moneyPair('refund_to_lender', r.refundToLender),
      ...moneyPair('outstanding_after', r.outstandingAfter),
      items: r.items.map((i) => ({
        regno: i.regNo,
        insured: i.insured,
        ...moneyPair('annual_basic_premium', i.annualBasicPremium),
        from: i.from,
        to: i.to,
        ...moneyPair('unearned_basic_premium', i.unearnedBasicPremium),
      })),
    },
    credit_note: c.creditNote
      ? {
          number: c.creditNote.number,
          ...moneyPair('amount', c.creditNote.amount),
          ...moneyPair('applied', c.creditNote.applied),
          ...moneyPair('refunded', c.creditNote.refunded),
          refund_payee: c.creditNote.refundPayee,
        }
      : null,
    reinstatement_debit_note: c.reinstatementDebitNote
      ? {
          number: c.reinstatementDebitNote.number,
          ...moneyPair('amount', c.reinstatementDebitNote.amount),
          ...moneyPair('credited', c.reinstatementDebitNote.credited),
        }
      : null,
    expires_at: c.expiresAt,
    confirmed_at: c.confirmedAt,
    reinstated_at: c.reinstatedAt,
    created_at: c.createdAt,
  };
}
