import { requireCustomer } from '../../../auth/customer.ts';
import type { Context } from '../../../context.ts';
import { fromDbDate } from '../../../lib/dates.ts';

export type StatementKind = 'debit_note' | 'receipt' | 'credit_note';

export interface StatementLine {
  at: Date;
  kind: StatementKind;
  number: string;
  policyNo: string | null;
  description: string;
  /** What the line adds to the balance owed (debit notes) or takes off it (receipts, credit notes), in cents. */
  debitMinor: bigint;
  creditMinor: bigint;
  /** Owed after this line: positive the client owes, negative the client is in credit. */
  balanceMinor: bigint;
}

export interface Statement {
  clientNo: string;
  name: string;
  generatedAt: Date;
  lines: StatementLine[];
  totalDebitsMinor: bigint;
  totalCreditsMinor: bigint;
  closingBalanceMinor: bigint;
}

/** Same-instant lines: the note raised first, then what paid or credited it. */
const ORDER: Record<StatementKind, number> = { debit_note: 0, credit_note: 1, receipt: 2 };

/** Pure: lines in date order with the running balance. */
export function runningBalance(lines: Omit<StatementLine, 'balanceMinor'>[]): StatementLine[] {
  const sorted = [...lines].sort(
    (a, b) => a.at.getTime() - b.at.getTime() || ORDER[a.kind] - ORDER[b.kind] || a.number.localeCompare(b.number),
  );
  let balance = 0n;
  return sorted.map((l) => {
    balance += l.debitMinor - l.creditMinor;
    return { ...l, balanceMinor: balance };
  });
}

/**
 * The client's statement: every debit note of its policies, every receipt (of its policies or paid to the client),
 * and every credit note, from the first (opening balance 0) to now. The closing balance is what is owed net of money
 * held: Σ debit notes − Σ receipts − Σ credit notes.
 */
export async function viewerStatement(ctx: Context): Promise<Statement> {
  const { clientId } = requireCustomer(ctx);
  const { client, debitNotes, receipts, creditNotes } = await ctx.tx(
    async (tx) => ({
      client: await tx.client.findUniqueOrThrow({ where: { id: clientId }, select: { clientNo: true, name: true } }),
      debitNotes: await tx.debitNote.findMany({
        where: { policy: { clientId } },
        include: { policy: { select: { policyNo: true } } },
      }),
      receipts: await tx.receipt.findMany({
        where: { OR: [{ clientId }, { policy: { clientId } }] },
        include: { policy: { select: { policyNo: true } } },
      }),
      creditNotes: await tx.creditNote.findMany({
        where: { policy: { clientId } },
        include: { policy: { select: { policyNo: true } } },
      }),
    }),
    { readOnly: true },
  );
  const lines = runningBalance([
    ...debitNotes.map((d) => ({
      at: d.createdAt,
      kind: 'debit_note' as const,
      number: d.number,
      policyNo: d.policy.policyNo,
      description: `${d.kind === 'instalment' ? `Instalment ${d.instalmentNo} of ${d.instalmentCount}` : `Debit note (${d.kind})`}, due ${fromDbDate(d.dueOn)}`,
      debitMinor: d.amountMinor,
      creditMinor: 0n,
    })),
    ...receipts.map((r) => ({
      at: r.paidAt,
      kind: 'receipt' as const,
      number: r.receiptNo,
      policyNo: r.policy?.policyNo ?? null,
      description: `Payment by ${r.method === 'mpesa' ? 'M-Pesa' : r.method} ${r.transactionRef}`,
      debitMinor: 0n,
      creditMinor: r.amountMinor,
    })),
    ...creditNotes.map((c) => ({
      at: c.createdAt,
      kind: 'credit_note' as const,
      number: c.number,
      policyNo: c.policy.policyNo,
      description: `Credit note (${c.kind})`,
      debitMinor: 0n,
      creditMinor: c.amountMinor,
    })),
  ]);
  const totalDebitsMinor = lines.reduce((s, l) => s + l.debitMinor, 0n);
  const totalCreditsMinor = lines.reduce((s, l) => s + l.creditMinor, 0n);
  return {
    clientNo: client.clientNo,
    name: client.name,
    generatedAt: new Date(),
    lines,
    totalDebitsMinor,
    totalCreditsMinor,
    closingBalanceMinor: totalDebitsMinor - totalCreditsMinor,
  };
}
