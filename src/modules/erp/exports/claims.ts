import type { Prisma } from '../../../db/client.ts';
import { money, type MoneyShape } from '../../../graphql/common.ts';
import { agentsOf, type ErpAgent, personOf } from './agents.ts';
import { type ErpSource, selectedRows, ymd } from './source.ts';

export interface ErpClaimRecord {
  id: number;
  uuid: string;
  claimNo: string;
  policyNo: string;
  clientNo: string;
  clientName: string;
  insurer: string;
  productLine: string;
  registration: string | null;
  cause: string;
  status: string;
  lossDate: string;
  lossPlace: string;
  reportedAt: Date;
  estimatedLoss: MoneyShape | null;
  sumInsured: MoneyShape | null;
  reserve: MoneyShape;
  assessedAmount: MoneyShape | null;
  approvedAmount: MoneyShape | null;
  excess: MoneyShape | null;
  netPayable: MoneyShape | null;
  paid: MoneyShape;
  approvedAt: Date | null;
  closedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  agents: ErpAgent[];
}

/** The columns the record reads and no others (descriptions, third parties and witnesses stay unread). */
const SELECT = {
  id: true,
  uuid: true,
  claimNo: true,
  insurerId: true,
  productLine: true,
  regNo: true,
  causeCode: true,
  status: true,
  lossDate: true,
  lossPlace: true,
  reportedAt: true,
  estimatedLossMinor: true,
  sumInsuredMinor: true,
  reserveMinor: true,
  assessedAmountMinor: true,
  approvedAmountMinor: true,
  excessMinor: true,
  netPayableMinor: true,
  paidMinor: true,
  approvedAt: true,
  closedAt: true,
  createdAt: true,
  updatedAt: true,
  createdByUserId: true,
  assigneeUserId: true,
  policy: { select: { policyNo: true } },
  client: { select: { clientNo: true, name: true } },
} satisfies Prisma.ClaimSelect;

export const erpClaims: ErpSource<ErpClaimRecord> = {
  model: 'Claim',
  select: SELECT,
  column: 'updatedAt',
  key: (r) => ({ at: r.updatedAt, id: r.id }),
  read: async (tx, page, refs) => {
    const rows = await selectedRows(tx, erpClaims, page, () =>
      tx.claim.findMany({ ...(page.args as Prisma.ClaimFindManyArgs), select: SELECT }),
    );
    const people = await refs.people(
      tx,
      rows.flatMap((c) => [c.createdByUserId, c.assigneeUserId]),
    );
    const insurers = await refs.insurers(
      tx,
      rows.map((c) => c.insurerId),
    );
    return rows.map((c) => ({
      id: c.id,
      uuid: c.uuid,
      claimNo: c.claimNo,
      policyNo: c.policy.policyNo,
      clientNo: c.client.clientNo,
      clientName: c.client.name,
      insurer: insurers.get(c.insurerId)!.name,
      productLine: c.productLine,
      registration: c.regNo,
      cause: c.causeCode,
      status: c.status,
      lossDate: ymd(c.lossDate)!,
      lossPlace: c.lossPlace,
      reportedAt: c.reportedAt,
      estimatedLoss: money(c.estimatedLossMinor),
      sumInsured: money(c.sumInsuredMinor),
      reserve: money(c.reserveMinor)!,
      assessedAmount: money(c.assessedAmountMinor),
      approvedAmount: money(c.approvedAmountMinor),
      excess: money(c.excessMinor),
      netPayable: money(c.netPayableMinor),
      paid: money(c.paidMinor)!,
      approvedAt: c.approvedAt,
      closedAt: c.closedAt,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      agents: agentsOf([
        ['created_by', personOf(people, c.createdByUserId)],
        ['assignee', personOf(people, c.assigneeUserId)],
      ]),
    }));
  },
};
