import type { Context } from '../../../context.ts';
import { keyset } from '../../../db/read-model.ts';
import type { Prisma } from '../../../db/client.ts';
import { notFound } from '../../../lib/problem.ts';
import { receiptVisibility } from '../../access/payment.visibility.ts';

/** Receipts the caller may see, newest first, optionally of one client or policy. `query`: the caller's selection. */
export function listReceipts(
  ctx: Context,
  f: { clientNo?: string | null; policyNo?: string | null },
  query: Prisma.ReceiptFindManyArgs = {},
) {
  const { query: paged, id } = keyset(query);
  return ctx.tx((tx) =>
    tx.receipt.findMany({
      ...paged,
      where: {
        AND: [
          receiptVisibility(ctx.principal!),
          f.clientNo ? { client: { clientNo: f.clientNo } } : {},
          f.policyNo ? { policy: { policyNo: f.policyNo } } : {},
          id ? { id } : {},
        ],
      },
      orderBy: { id: 'desc' },
    }),
  );
}

/** A receipt by number, or 404 when missing or not visible. */
export async function visibleReceipt(
  ctx: Context,
  receiptNo: string,
  query: Omit<Prisma.ReceiptFindFirstArgs, 'where'> = {},
) {
  const r = await ctx.tx((tx) =>
    tx.receipt.findFirst({ ...query, where: { receiptNo, ...receiptVisibility(ctx.principal!) } }),
  );
  if (!r) throw notFound('Receipt');
  return r;
}
