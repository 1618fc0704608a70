import type { Principal } from '../../auth/principal.ts';
import { Prisma, type Tx } from '../../db/client.ts';
import { appliesEvery, forwardPage, newestFirst, readModel } from '../../db/read-model.ts';
import type { Claim } from '../../generated/prisma/client.ts';
import { claimVisibilitySql } from '../access/claim.visibility.ts';
import type { ClaimStatus } from '../../generated/prisma/enums.ts';

/** The claims list's filters (the GraphQL `claims` arguments, REST's query parameters). */
export interface ClaimListFilters {
  status?: ClaimStatus[] | null;
  policyId?: string | null;
  clientNo?: string | null;
  insurerId?: number | null;
  assigneeId?: number | null;
  reportedFrom?: Date | null;
  reportedTo?: Date | null;
  lossFrom?: string | null;
  lossTo?: string | null;
  slaBreached?: boolean | null;
  search?: string | null;
}

/**
 * The claims list's read model (src/db/read-model.ts): a page of claims in one fixed statement, the policy, client
 * and insured risk each claim names joined, for the selections the REST facade and most GraphQL callers make (the
 * Claim type's columns and those three relations' few fields). read.ts falls back to Prisma for anything else.
 */
export const claimColumns = readModel(
  'Claim',
  'c',
  {
    id: 'id',
    uuid: 'uuid::text',
    claimNo: 'claim_no',
    status: 'status::text',
    policyId: 'policy_id',
    clientId: 'client_id',
    insurerId: 'insurer_id',
    vehicleId: 'vehicle_id',
    riskId: 'risk_id',
    regNo: 'reg_no',
    productLine: 'product_line',
    causeCode: 'cause_code',
    lossDate: 'loss_date',
    lossTime: 'loss_time',
    lossPlace: 'loss_place',
    description: 'description',
    thirdParties: 'third_parties',
    witnesses: 'witnesses',
    policeAbstractNo: 'police_abstract_no',
    antiTheftDevice: 'anti_theft_device',
    reporterName: 'reporter_name',
    reporterPhone: 'reporter_phone',
    reporterRelationship: 'reporter_relationship',
    channel: 'channel',
    reportedAt: 'reported_at',
    lateNotification: 'late_notification',
    estimatedLossMinor: 'estimated_loss_minor',
    sumInsuredMinor: 'sum_insured_minor',
    reserveMinor: 'reserve_minor',
    assessorName: 'assessor_name',
    assessorPhone: 'assessor_phone',
    assessorFirm: 'assessor_firm',
    assessorAppointedAt: 'assessor_appointed_at',
    assessedAmountMinor: 'assessed_amount_minor',
    salvageMinor: 'salvage_minor',
    assessmentNotes: 'assessment_notes',
    assessedAt: 'assessed_at',
    approvedAmountMinor: 'approved_amount_minor',
    excessMinor: 'excess_minor',
    netPayableMinor: 'net_payable_minor',
    approvedAt: 'approved_at',
    repudiationReason: 'repudiation_reason',
    repudiationNote: 'repudiation_note',
    paidMinor: 'paid_minor',
    committedMinor: 'committed_minor',
    assigneeUserId: 'assignee_user_id',
    statusChangedAt: 'status_changed_at',
    slaDueAt: 'sla_due_at',
    closedAt: 'closed_at',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
  },
  {
    policy: {
      table: 'policies',
      alias: 'cp',
      on: 'cp.id = c.policy_id',
      fields: { uuid: 'uuid::text', policyNo: 'policy_no' },
    },
    client: {
      table: 'clients',
      alias: 'ck',
      on: 'ck.id = c.client_id',
      fields: { clientNo: 'client_no', name: 'name' },
    },
    risk: { table: 'policy_risks', alias: 'cr', on: 'cr.id = c.risk_id', fields: { kind: 'kind', name: 'name' } },
  },
);

/**
 * The page a Prisma findMany of the list would return (claimListWhere, newest first), when the read model can say
 * the same: the query selects only what the model has and pages forward (`take` ≥ 0, `skip`, after an id: keyset), and
 * every filter set is one of the equalities it takes (status, insurer, assignee: appliesEvery; the others stay with
 * Prisma). Null when it cannot.
 */
export function claimPage(
  tx: Tx,
  p: Principal,
  f: ClaimListFilters,
  query: Prisma.ClaimFindManyArgs,
  id: { lt: number } | { gt: number } | null,
): Promise<Claim[]> | null {
  const page = forwardPage(query, id);
  if (!page || !claimColumns.answers(query) || !appliesEvery(f, ['status', 'insurerId', 'assigneeId'])) return null;
  const and: Prisma.Sql[] = [claimVisibilitySql(p)];
  if (f.status?.length) and.push(Prisma.sql`c.status::text = ANY(${[...f.status]}::text[])`);
  if (f.insurerId != null) and.push(Prisma.sql`c.insurer_id = ${f.insurerId}`);
  if (f.assigneeId != null) and.push(Prisma.sql`c.assignee_user_id = ${f.assigneeId}`);
  const { where, tail } = newestFirst('c', page, and);
  return tx.$queryRaw<
    unknown[]
  >`SELECT ${claimColumns.columns} FROM claims c ${claimColumns.joins} WHERE ${where} ${tail}`.then((rows) =>
    claimColumns.rows<Claim>(rows),
  );
}
