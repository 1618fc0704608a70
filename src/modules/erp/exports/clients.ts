import type { Prisma } from '../../../db/client.ts';
import { AGENT_SELECT, agentsOf, type ErpAgent } from './agents.ts';
import { type ErpSource, ymd } from './source.ts';

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

export const erpClients: ErpSource<ErpClientRecord> = {
  column: 'updatedAt',
  key: (r) => ({ at: r.updatedAt, id: r.id }),
  read: async (tx, args) => {
    const rows = await tx.client.findMany({
      ...(args as Prisma.ClientFindManyArgs),
      include: {
        branch: { select: { name: true } },
        businessSource: { select: { name: true } },
        createdByUser: AGENT_SELECT,
        salesPerson: AGENT_SELECT,
        riskManager: AGENT_SELECT,
      },
    });
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
      branch: c.branch?.name ?? null,
      sector: c.sector,
      businessSource: c.businessSource?.name ?? null,
      kycStatus: c.kycStatus,
      onboardedVia: c.onboardedVia,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      agents: agentsOf([
        ['created_by', c.createdByUser],
        ['sales_person', c.salesPerson],
        ['risk_manager', c.riskManager],
      ]),
    }));
  },
};
