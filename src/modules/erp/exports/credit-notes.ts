import type { Prisma } from '../../../db/client.ts';
import { money, type MoneyShape } from '../../../graphql/common.ts';
import { agentsOf, type ErpAgent, personOf } from './agents.ts';
import { type ErpSource, selectedRows } from './source.ts';

/** A credit note never changes once raised (what it applied and refunded is decided with it): synced on creation. */
export interface ErpCreditNoteRecord {
  id: number;
  number: string;
  kind: string;
  policyNo: string;
  clientNo: string;
  clientName: string;
  amount: MoneyShape;
  basic: MoneyShape;
  taxes: MoneyShape;
  applied: MoneyShape;
  refunded: MoneyShape;
  refundPayee: string;
  createdAt: Date;
  agents: ErpAgent[];
}

/** The columns the record reads and no others (the note's JSON applications stay unread). */
const SELECT = {
  id: true,
  number: true,
  kind: true,
  amountMinor: true,
  basicMinor: true,
  taxesMinor: true,
  appliedMinor: true,
  refundedMinor: true,
  refundPayee: true,
  createdAt: true,
  policy: {
    select: { policyNo: true, client: { select: { clientNo: true, name: true } }, salesPersonId: true },
  },
} satisfies Prisma.CreditNoteSelect;

export const erpCreditNotes: ErpSource<ErpCreditNoteRecord> = {
  model: 'CreditNote',
  select: SELECT,
  column: 'createdAt',
  key: (r) => ({ at: r.createdAt, id: r.id }),
  read: async (tx, page, refs) => {
    const rows = await selectedRows(tx, erpCreditNotes, page, () =>
      tx.creditNote.findMany({ ...(page.args as Prisma.CreditNoteFindManyArgs), select: SELECT }),
    );
    const people = await refs.people(
      tx,
      rows.map((n) => n.policy.salesPersonId),
    );
    return rows.map((n) => ({
      id: n.id,
      number: n.number,
      kind: n.kind,
      policyNo: n.policy.policyNo,
      clientNo: n.policy.client.clientNo,
      clientName: n.policy.client.name,
      amount: money(n.amountMinor)!,
      basic: money(n.basicMinor)!,
      taxes: money(n.taxesMinor)!,
      applied: money(n.appliedMinor)!,
      refunded: money(n.refundedMinor)!,
      refundPayee: n.refundPayee,
      createdAt: n.createdAt,
      agents: agentsOf([['sales_person', personOf(people, n.policy.salesPersonId)]]),
    }));
  },
};
