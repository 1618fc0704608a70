import type {
  ClaimQuery,
  PolicyDetailFragment,
  ClaimCauseFieldsFragment,
  ClaimFieldsFragment,
  ClaimHistoryFieldsFragment,
  RegisterClaimInput,
} from '../generated/operations.ts';
import type { SentInput } from '../route.ts';
import type { z } from 'zod';
import type { registerClaimBody } from '../schemas/claim.ts';
import { minor, whole } from './money.ts';

/** GraphQL Claim → the REST claim record (money as whole shillings plus `_minor`, dates Y-m-d, times ISO 8601). */
export function claimToRest(c: ClaimFieldsFragment) {
  return {
    id: c.databaseId,
    uuid: c.uuid,
    claim_no: c.claimNo,
    status: c.claimStatus,
    policy: { uuid: c.policyUuid, policy_no: c.policyNo },
    client: { client_no: c.clientNo, name: c.clientName },
    insurer: { id: c.insurer.databaseId, name: c.insurer.name },
    registration: c.registration,
    insured: c.insured ? { id: c.insured.databaseId, kind: c.insured.kind, name: c.insured.name } : null,
    product_line: c.productLine,
    cause: c.cause,
    loss: { date: c.lossDate, time: c.lossTime, place: c.lossPlace, description: c.description },
    third_parties: c.thirdParties,
    witnesses: c.witnesses,
    police_abstract_no: c.policeAbstractNo,
    anti_theft_device: c.antiTheftDevice,
    reporter: { name: c.reporterName, phone: c.reporterPhone, relationship: c.reporterRelationship },
    channel: c.channel,
    reported_at: c.reportedAt,
    late_notification: c.lateNotification,
    estimated_loss: whole(c.estimatedLoss),
    estimated_loss_minor: minor(c.estimatedLoss),
    sum_insured: whole(c.sumInsured),
    sum_insured_minor: minor(c.sumInsured),
    reserve: whole(c.reserve),
    reserve_minor: minor(c.reserve),
    assessor: c.assessorName
      ? { name: c.assessorName, phone: c.assessorPhone, firm: c.assessorFirm, appointed_at: c.assessorAppointedAt }
      : null,
    assessment: c.assessedAt
      ? {
          assessed_amount: whole(c.assessedAmount),
          assessed_amount_minor: minor(c.assessedAmount),
          salvage: whole(c.salvage),
          salvage_minor: minor(c.salvage),
          notes: c.assessmentNotes,
          assessed_at: c.assessedAt,
        }
      : null,
    approved_amount: whole(c.approvedAmount),
    approved_amount_minor: minor(c.approvedAmount),
    excess: whole(c.excess),
    excess_minor: minor(c.excess),
    net_payable: whole(c.netPayable),
    net_payable_minor: minor(c.netPayable),
    approved_at: c.approvedAt,
    paid: whole(c.paid),
    paid_minor: minor(c.paid),
    outstanding: whole(c.outstanding),
    outstanding_minor: minor(c.outstanding),
    repudiation: c.repudiationReason ? { reason: c.repudiationReason, note: c.repudiationNote } : null,
    assignee: c.assignee ? { id: c.assignee.databaseId, name: c.assignee.name } : null,
    sla: { status_since: c.statusChangedAt, due_at: c.slaDueAt, breached: c.slaBreached },
    closed_at: c.closedAt,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** The claim with its history: what every write answers. */
export const claimDetailToRest = (c: ClaimFieldsFragment & ClaimHistoryFieldsFragment) => ({
  ...claimToRest(c),
  history: claimHistoryToRest(c),
});

/** The claim's state history, oldest first: who moved it, when and why. */
export function claimHistoryToRest(c: ClaimHistoryFieldsFragment) {
  return c.history.map((h) => ({
    from: h.from,
    to: h.to,
    source: h.source,
    reason: h.reason,
    by: { name: h.actorName, user_id: h.actorUserId },
    at: h.at,
  }));
}

/** The reserve ledger, in order: each movement signed, with the balance after it. */
export function reserveMovementsToRest(c: Pick<NonNullable<ClaimQuery['claim']>, 'reserveMovements'>) {
  return c.reserveMovements.map((r) => ({
    kind: r.kind,
    amount: whole(r.amount),
    amount_minor: minor(r.amount),
    balance_after: whole(r.balanceAfter),
    balance_after_minor: minor(r.balanceAfter),
    reason: r.reason,
    actor_user_id: r.actorUserId,
    at: r.at,
  }));
}

/** A claim as the policy record lists it. */
export function claimSummaryToRest(c: PolicyDetailFragment['claims'][number]) {
  return {
    uuid: c.uuid,
    claim_no: c.claimNo,
    status: c.claimStatus,
    cause: c.cause,
    loss_date: c.lossDate,
    registration: c.registration,
  };
}

export function claimCauseToRest(c: ClaimCauseFieldsFragment) {
  return {
    product_line: c.productLine,
    code: c.code,
    name: c.name,
    documents: c.documents,
    excess_term: c.excessTerm,
  };
}

/** A first notice of loss as its definition reads it (schemas/claim.ts registerClaimBody). */
export type RegisterClaimBody = z.output<typeof registerClaimBody>;

/**
 * REST first notice of loss → GraphQL RegisterClaimInput (the service checks it again). The legacy `policy_id`,
 * `regno` and `reg_no` spellings are read where the first is absent; `reporter` may be nested or flat.
 */
export function registerClaimFromRest(b: Partial<RegisterClaimBody>): SentInput<RegisterClaimInput> {
  const reporter = b.reporter ?? {};
  return {
    policyId: b.policy_uuid ?? b.policy_id,
    registration: b.registration ?? b.reg_no ?? b.regno,
    insuredId: b.insured_id,
    cause: b.cause,
    lossDate: b.loss_date,
    lossTime: b.loss_time,
    lossPlace: b.loss_place,
    description: b.description,
    thirdParties: b.third_parties?.map((t) => ({
      name: t.name,
      phone: t.phone,
      idNo: t.id_no ?? t.idno,
      registration: t.registration ?? t.regno,
      insurer: t.insurer,
      injured: t.injured,
      damage: t.damage,
    })),
    witnesses: b.witnesses?.map((w) => ({ name: w.name, phone: w.phone, statement: w.statement })),
    policeAbstractNo: b.police_abstract_no,
    antiTheftDevice: b.anti_theft_device,
    reporterName: reporter.name ?? b.reporter_name,
    reporterPhone: reporter.phone ?? b.reporter_phone,
    reporterRelationship: reporter.relationship ?? b.reporter_relationship,
    channel: b.channel,
    reportedAt: b.reported_at,
    estimatedLoss: b.estimated_loss,
    assigneeId: b.assignee_id,
  };
}
