import type { PolicyDetailFragment, PolicyRecordFragment } from '../generated/operations.ts';
import { snakeKeys } from './json-keys.ts';
import { minor, whole } from './money.ts';
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
      basic_premium: whole(p.basicPremium),
      basic_premium_minor: minor(p.basicPremium),
      taxes: whole(p.taxes),
      taxes_minor: minor(p.taxes),
      total: whole(p.total),
      total_minor: minor(p.total),
      levies: p.levies.map((l) => ({
        code: l.code,
        name: l.name,
        amount: whole(l.amount),
        amount_minor: minor(l.amount),
      })),
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
  // The record's object given one more key, not copied into a new one (a page maps 25 of them).
  return Object.assign(policyToRest(p), { claims: p.claims.map(claimSummaryToRest) });
}

function vehicleToRest(v: PolicyRecordFragment['vehicles'][number]) {
  return {
    regno: v.regNo,
    chassis_no: v.chassisNo,
    engine_no: v.engineNo,
    make: v.make,
    model: v.model,
    yom: v.yearOfManufacture,
    value: whole(v.value),
    value_minor: minor(v.value),
    body_type: v.bodyType,
    coverage: v.coverage,
    status: v.status,
    added_on: v.addedOn,
    removed_on: v.removedOn,
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
    sum_insured: whole(r.sumInsured),
    sum_insured_minor: minor(r.sumInsured),
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
    amount: whole(d.amount),
    amount_minor: minor(d.amount),
    paid: whole(d.paid),
    paid_minor: minor(d.paid),
    credited: whole(d.credited),
    credited_minor: minor(d.credited),
    outstanding: whole(d.outstanding),
    outstanding_minor: minor(d.outstanding),
  };
}

function creditNoteToRest(c: PolicyRecordFragment['creditNotes'][number]) {
  return {
    number: c.number,
    kind: c.kind,
    amount: whole(c.amount),
    amount_minor: minor(c.amount),
    basic_premium: whole(c.basicPremium),
    basic_premium_minor: minor(c.basicPremium),
    taxes: whole(c.taxes),
    taxes_minor: minor(c.taxes),
    applied: whole(c.applied),
    applied_minor: minor(c.applied),
    refunded: whole(c.refunded),
    refunded_minor: minor(c.refunded),
    applications: c.applications.map((a) => ({
      debit_note_no: a.debitNoteNo,
      amount: whole(a.amount),
      amount_minor: minor(a.amount),
    })),
    created_at: c.createdAt,
  };
}

function receiptToRest(r: PolicyRecordFragment['receipts'][number]) {
  return {
    receipt_no: r.receiptNo,
    transaction_ref: r.transactionRef,
    method: r.method,
    purpose: r.purpose,
    account: r.account,
    paid_at: r.paidAt,
    amount: whole(r.amount),
    amount_minor: minor(r.amount),
    unallocated: whole(r.unallocated),
    unallocated_minor: minor(r.unallocated),
    allocations: r.allocations.map((a) => ({
      debit_note_no: a.debitNoteNo,
      amount: whole(a.amount),
      amount_minor: minor(a.amount),
    })),
  };
}
