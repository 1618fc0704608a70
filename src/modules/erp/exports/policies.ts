import type { Prisma } from '../../../db/client.ts';
import { money, type MoneyShape } from '../../../graphql/common.ts';
import { agentsOf, type ErpAgent, personOf } from './agents.ts';
import { type ErpSource, selectedRows, ymd } from './source.ts';

export interface ErpPolicyRecord {
  id: number;
  uuid: string;
  policyNo: string;
  riskNote: string;
  clientNo: string;
  clientName: string;
  insurer: string;
  productLine: string;
  /** Non-motor lines: the cover product's code (MEDICAL, TRAVEL, PA, DOMESTIC …); null for motor. */
  productCode: string | null;
  status: string;
  vehicleClass: string | null;
  coverType: string | null;
  coverPeriod: string;
  startDate: string;
  endDate: string;
  paymentMode: string;
  instalmentCount: number;
  basic: MoneyShape;
  taxes: MoneyShape;
  total: MoneyShape;
  renewalOf: string | null;
  createdAt: Date;
  updatedAt: Date;
  agents: ErpAgent[];
}

/** The columns the record reads and no others (the policy's JSON terms and cover details stay unread). */
const SELECT = {
  id: true,
  uuid: true,
  policyNo: true,
  riskNote: true,
  insurerId: true,
  productLine: true,
  status: true,
  vehicleClass: true,
  coverType: true,
  coverPeriod: true,
  startDate: true,
  endDate: true,
  paymentMode: true,
  instalmentCount: true,
  basicMinor: true,
  taxesMinor: true,
  totalMinor: true,
  createdAt: true,
  updatedAt: true,
  createdByUserId: true,
  salesPersonId: true,
  client: { select: { clientNo: true, name: true } },
  coverProduct: { select: { code: true } },
  renewalOf: { select: { policyNo: true } },
} satisfies Prisma.PolicySelect;

export const erpPolicies: ErpSource<ErpPolicyRecord> = {
  model: 'Policy',
  select: SELECT,
  column: 'updatedAt',
  key: (r) => ({ at: r.updatedAt, id: r.id }),
  read: async (tx, page, refs) => {
    const rows = await selectedRows(tx, erpPolicies, page, () =>
      tx.policy.findMany({ ...(page.args as Prisma.PolicyFindManyArgs), select: SELECT }),
    );
    const people = await refs.people(
      tx,
      rows.flatMap((p) => [p.createdByUserId, p.salesPersonId]),
    );
    const insurers = await refs.insurers(
      tx,
      rows.map((p) => p.insurerId),
    );
    return rows.map((p) => ({
      id: p.id,
      uuid: p.uuid,
      policyNo: p.policyNo,
      riskNote: p.riskNote,
      clientNo: p.client.clientNo,
      clientName: p.client.name,
      insurer: insurers.get(p.insurerId)!.name,
      productLine: p.productLine,
      productCode: p.coverProduct?.code ?? null,
      status: p.status,
      vehicleClass: p.vehicleClass,
      coverType: p.coverType,
      coverPeriod: p.coverPeriod,
      startDate: ymd(p.startDate)!,
      endDate: ymd(p.endDate)!,
      paymentMode: p.paymentMode,
      instalmentCount: p.instalmentCount,
      basic: money(p.basicMinor)!,
      taxes: money(p.taxesMinor)!,
      total: money(p.totalMinor)!,
      renewalOf: p.renewalOf?.policyNo ?? null,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
      agents: agentsOf([
        ['created_by', personOf(people, p.createdByUserId)],
        ['sales_person', personOf(people, p.salesPersonId)],
      ]),
    }));
  },
};
