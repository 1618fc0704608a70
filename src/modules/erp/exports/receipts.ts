import type { Prisma } from '../../../db/client.ts';
import { money, type MoneyShape } from '../../../graphql/common.ts';
import { agentsOf, type ErpAgent, personOf } from './agents.ts';
import { type ErpSource, selectedRows } from './source.ts';

/**
 * A receipt's money and reference never change once raised: the export syncs on its creation. Its allocation (what
 * is left unallocated) does change, so it is not part of the record.
 */
export interface ErpReceiptRecord {
  id: number;
  receiptNo: string;
  clientNo: string | null;
  clientName: string | null;
  policyNo: string | null;
  method: string;
  transactionRef: string;
  phone: string;
  account: string;
  purpose: string;
  amount: MoneyShape;
  paidAt: Date;
  createdAt: Date;
  agents: ErpAgent[];
}

/** The columns the record reads and no others. */
const SELECT = {
  id: true,
  receiptNo: true,
  method: true,
  transactionRef: true,
  phone: true,
  account: true,
  purpose: true,
  amountMinor: true,
  paidAt: true,
  createdAt: true,
  client: { select: { clientNo: true, name: true } },
  policy: { select: { policyNo: true, salesPersonId: true } },
} satisfies Prisma.ReceiptSelect;

export const erpReceipts: ErpSource<ErpReceiptRecord> = {
  model: 'Receipt',
  select: SELECT,
  column: 'createdAt',
  key: (r) => ({ at: r.createdAt, id: r.id }),
  read: async (tx, page, refs) => {
    const rows = await selectedRows(tx, erpReceipts, page, () =>
      tx.receipt.findMany({ ...(page.args as Prisma.ReceiptFindManyArgs), select: SELECT }),
    );
    const people = await refs.people(
      tx,
      rows.map((r) => r.policy?.salesPersonId),
    );
    return rows.map((r) => ({
      id: r.id,
      receiptNo: r.receiptNo,
      clientNo: r.client?.clientNo ?? null,
      clientName: r.client?.name ?? null,
      policyNo: r.policy?.policyNo ?? null,
      method: r.method,
      transactionRef: r.transactionRef,
      phone: r.phone,
      account: r.account,
      purpose: r.purpose,
      amount: money(r.amountMinor)!,
      paidAt: r.paidAt,
      createdAt: r.createdAt,
      agents: agentsOf([['sales_person', personOf(people, r.policy?.salesPersonId)]]),
    }));
  },
};
