import type { Prisma } from '../../../db/client.ts';
import { agentsOf, type ErpAgent, nameOf, personOf } from './agents.ts';
import { type ErpSource, selectedRows, ymd } from './source.ts';

export interface ErpClientRecord {
  id: number;
  clientNo: string;
  type: string;
  name: string;
  idNo: string | null;
  kraPin: string | null;
  phone: string;
  email: string | null;
  dateOfBirth: string | null;
  physicalAddress: string | null;
  branch: string | null;
  sector: string | null;
  businessSource: string | null;
  kycStatus: string;
  onboardedVia: string;
  createdAt: Date;
  updatedAt: Date;
  agents: ErpAgent[];
}

/** The columns the record reads and no others. */
const SELECT = {
  id: true,
  clientNo: true,
  type: true,
  name: true,
  idNo: true,
  kraPin: true,
  phone: true,
  email: true,
  dateOfBirth: true,
  physicalAddress: true,
  branchId: true,
  sector: true,
  businessSourceId: true,
  kycStatus: true,
  onboardedVia: true,
  createdAt: true,
  updatedAt: true,
  createdByUserId: true,
  salesPersonId: true,
  riskManagerId: true,
} satisfies Prisma.ClientSelect;

export const erpClients: ErpSource<ErpClientRecord> = {
  model: 'Client',
  select: SELECT,
  column: 'updatedAt',
  key: (r) => ({ at: r.updatedAt, id: r.id }),
  read: async (tx, page, refs) => {
    const rows = await selectedRows(tx, erpClients, page, () =>
      tx.client.findMany({ ...(page.args as Prisma.ClientFindManyArgs), select: SELECT }),
    );
    const people = await refs.people(
      tx,
      rows.flatMap((c) => [c.createdByUserId, c.salesPersonId, c.riskManagerId]),
    );
    const branches = await refs.branches(
      tx,
      rows.map((c) => c.branchId),
    );
    const sources = await refs.businessSources(
      tx,
      rows.map((c) => c.businessSourceId),
    );
    return rows.map((c) => ({
      id: c.id,
      clientNo: c.clientNo,
      type: c.type,
      name: c.name,
      idNo: c.idNo,
      kraPin: c.kraPin,
      phone: c.phone,
      email: c.email,
      dateOfBirth: ymd(c.dateOfBirth),
      physicalAddress: c.physicalAddress,
      branch: nameOf(branches, c.branchId),
      sector: c.sector,
      businessSource: nameOf(sources, c.businessSourceId),
      kycStatus: c.kycStatus,
      onboardedVia: c.onboardedVia,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      agents: agentsOf([
        ['created_by', personOf(people, c.createdByUserId)],
        ['sales_person', personOf(people, c.salesPersonId)],
        ['risk_manager', personOf(people, c.riskManagerId)],
      ]),
    }));
  },
};
