import type { Context } from '../../../context.ts';
import { isYmd, todayNairobi, YMD_MESSAGE } from '../../../lib/dates.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { paymentRequestVisibility, receiptVisibility } from '../../access/payment.visibility.ts';

/** One hour of the Nairobi day (0–23): receipts raised and their total. */
export interface CollectionsHour {
  hour: number;
  count: number;
  amountMinor: bigint;
}

/** STK prompts of the day by outcome: status (pending, succeeded, failed, sending) and Daraja result code. */
export interface PromptOutcome {
  status: string;
  resultCode: number | null;
  count: number;
}

export interface CollectionsSummary {
  date: string;
  count: number;
  amountMinor: bigint;
  byHour: CollectionsHour[];
  prompts: PromptOutcome[];
}

const HOUR_MS = 3_600_000;

/**
 * A Nairobi calendar day's collections as the caller may see them (an agent: receipts and prompts of their reach):
 * receipts by the hour they were paid, and the STK prompts sent that day by outcome. Read-only; `date` defaults to
 * today on the service's clock.
 */
export async function collectionsSummary(ctx: Context, date?: string | null): Promise<CollectionsSummary> {
  const day = date ?? todayNairobi();
  if (!isYmd(day)) throw new ValidationError([{ field: 'date', code: 'invalid_value', message: YMD_MESSAGE }]);
  const from = new Date(`${day}T00:00:00+03:00`);
  const to = new Date(from.getTime() + 24 * HOUR_MS);
  const p = ctx.principal!;
  const [receipts, prompts] = await ctx.tx(
    (tx) =>
      Promise.all([
        tx.receipt.findMany({
          where: { AND: [receiptVisibility(p), { paidAt: { gte: from, lt: to } }] },
          select: { amountMinor: true, paidAt: true },
        }),
        tx.paymentRequest.groupBy({
          by: ['status', 'resultCode'],
          where: { AND: [paymentRequestVisibility(p), { createdAt: { gte: from, lt: to } }] },
          _count: { _all: true },
          orderBy: [{ status: 'asc' }, { resultCode: 'asc' }],
        }),
      ]),
    { readOnly: true }, // a dashboard aggregate: a read replica may answer (src/db/replicas.ts)
  );
  const byHour = Array.from({ length: 24 }, (_, hour): CollectionsHour => ({ hour, count: 0, amountMinor: 0n }));
  for (const r of receipts) {
    const h = byHour[Math.floor((r.paidAt.getTime() - from.getTime()) / HOUR_MS)];
    h.count += 1;
    h.amountMinor += r.amountMinor;
  }
  return {
    date: day,
    count: receipts.length,
    amountMinor: receipts.reduce((s, r) => s + r.amountMinor, 0n),
    byHour,
    prompts: prompts.map((g) => ({ status: g.status, resultCode: g.resultCode, count: g._count._all })),
  };
}
