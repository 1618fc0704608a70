import type { PolicyDetailFragment, PolicyRecordFragment } from '../generated/operations.ts';
import { snakeKeys } from './json-keys.ts';
import { moneyPair } from './money.ts';
import { cancellationToRest } from './cancellation.ts';
import { certificateToRest } from './certificate.ts';
import { claimSummaryToRest } from './claim.ts';
import { endorsementToRest } from './endorsement.ts';

/** DateTime or Date → Y-m-d (the legacy date shape). */
const ymd = (v: string) => (v ? v.slice(0, 10) : null);

/** GraphQL Policy → the spec's policy record (money as whole shillings plus `_minor`, dates Y-m-d). */
export function policyToRest(p: PolicyRecordFragment) {
  return {
    id: p.databaseId,
    uuid: p.uuid,
    policy_no: p.policyNo,
    risknote: p.riskNote,
    status: p.status,
    product_line: p.productLine,
    class: p.vehicleClass,
    scope: p.coverType,
    cover_period: p.coverPeriod,
    start_date: ymd(p.startDate),
    end_date: ymd(p.endDate),
    payment_mode: p.paymentMode,
    instalments: p.instalments,
    client: { client_no: p.client.clientNo, name: p.client.name, phone: p.client.phone },
    insurer: { id: p.insurer.databaseId, name: p.insurer.name },
    sales_person: p.salesPerson
      ? { id: p.salesPerson.databaseId, name: p.salesPerson.name, role: p.salesPerson.role, code: p.salesPerson.code }
      : null,
    premium: {
      ...moneyPair('basic_premium', p.basicPremium),
      ...moneyPair('taxes', p.taxes),
      ...moneyPair('total', p.total),
      levies: p.levies.map((l) => ({ code: l.code, name: l.name, ...moneyPair('amount', l.amount) })),
    },
    product: p.coverProduct
      ? { id: p.coverProduct.databaseId, code: p.coverProduct.code, name: p.coverProduct.name }
      : null,
    cover: snakeKeys(p.coverDetails ?? null),
    insured: p.insured.map(insuredToRest),
    vehicles: p.vehicles.map(vehicleToRest),
    debit_notes: p.debitNotes.map(debitNoteToRest),
    credit_notes: p.creditNotes.map(creditNoteToRest),
    receipts: p.receipts.map(receiptToRest),
    endorsements: p.endorsements.map(endorsementToRest),
    cancellations: p.cancellations.map(cancellationToRest),
    certificates: p.certificates.map(certificateToRest),
    status_history: p.statusHistory.map((h) => ({
      from: h.fromStatus,
      to: h.toStatus,
      source: h.source,
      reason: h.reason,
      at: h.at,
    })),
    renewal_of: p.renewalOf ? { uuid: p.renewalOf.uuid, policy_no: p.renewalOf.policyNo } : null,
    renewed_by: p.renewal ? { uuid: p.renewal.uuid, policy_no: p.renewal.policyNo, status: p.renewal.status } : null,
    created_at: p.createdAt,
  };
}

/** GET /policies (each item) and GET /policies/{uuid}: the record and its claims, newest first. */
export function policyDetailToRest(p: PolicyDetailFragment) {
  return { ...policyToRest(p), claims: p.claims.map(claimSummaryToRest) };
}

function vehicleToRest(v: PolicyRecordFragment['vehicles'][number]) {
  return {
    regno: v.regNo,
    chassis_no: v.chassisNo,
    engine_no: v.engineNo,
    make: v.make,
    model: v.model,
    yom: v.yearOfManufacture,
    ...moneyPair('value', v.value),
    body_type: v.bodyType,
    coverage: v.coverage,
  };
}

function insuredToRest(r: PolicyRecordFragment['insured'][number]) {
  return {
    id: r.databaseId,
    kind: r.kind,
    name: r.name,
    relationship: r.relationship,
    age: r.age,
    date_of_birth: r.dateOfBirth,
    in_school: r.inSchool,
    id_no: r.idNo,
    ...moneyPair('sum_insured', r.sumInsured),
    details: snakeKeys(r.details ?? null),
    status: r.status,
    added_on: r.addedOn,
    removed_on: r.removedOn,
  };
}

function debitNoteToRest(d: PolicyRecordFragment['debitNotes'][number]) {
  return {
    number: d.number,
    kind: d.kind,
    instalment_no: d.instalmentNo,
    due_on: ymd(d.dueOn),
    ...moneyPair('amount', d.amount),
    ...moneyPair('paid', d.paid),
    ...moneyPair('credited', d.credited),
    ...moneyPair('outstanding', d.outstanding),
  };
}

function creditNoteToRest(c: PolicyRecordFragment['creditNotes'][number]) {
  return {
    number: c.number,
    kind: c.kind,
    ...moneyPair('amount', c.amount),
    ...moneyPair('basic_premium', c.basicPremium),
    ...moneyPair('taxes', c.taxes),
    ...moneyPair('applied', c.applied),
    ...moneyPair('refunded', c.refunded),
    applications: c.applications.map((a) => ({
      debit_note_no: a.debitNoteNo,
      ...moneyPair('amount', a.amount),
    })),
    created_at: c.createdAt,
  };
}

function receiptToRest(r: PolicyRecordFragment['receipts'][number]) {
  return {
    receipt_no: r.receiptNo,
    transaction_ref: r.transactionRef,
    method: r.method,
    paid_at: r.paidAt,
    ...moneyPair('amount', r.amount),
    ...moneyPair('unallocated', r.unallocated),
    allocations: r.allocations.map((a) => ({ debit_note_no: a.debitNoteNo, ...moneyPair('amount', a.amount) })),
  };
}
