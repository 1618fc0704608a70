import type { Tx } from '../../db/client.ts';
import type { EarlySettlement } from '../finance/loan/settlement.ts';

/**
 * The early-settlement confirmation as first answered (docs/api-conventions.md "Idempotency-Key"): the loan and the
 * figure held, kept on the payment request collecting the payoff (`settlement_answer`), written once. Every later use
 * of the same Idempotency-Key answers this with the push's own first answer (stk/answer.ts), so the replay is the first
 * answer byte for byte however the loan has moved since (paid, settled, held again under another key).
 */

const encode = (s: EarlySettlement): string =>
  JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));

const decode = (json: unknown): EarlySettlement =>
  JSON.parse(JSON.stringify(json), (_k, v: unknown) =>
    v && typeof v === 'object' && '$bigint' in v ? BigInt(String((v as { $bigint: string }).$bigint)) : v,
  ) as EarlySettlement;

/** The confirmation first answered with this request's push, or null when none was fixed yet. */
export function settlementAnswered(row: { settlementAnswer: unknown }): EarlySettlement | null {
  const s = row.settlementAnswer;
  return s && typeof s === 'object' && !Array.isArray(s) ? decode(s) : null;
}

/**
 * Fixes `answer` as the confirmation this request's push answers unless an earlier attempt (a twin racing this one,
 * the first attempt before a retry) fixed one first, and returns the one that stands.
 */
export async function fixSettlementAnswer(tx: Tx, paymentRequestId: string, answer: EarlySettlement) {
  await tx.$executeRaw`UPDATE payment_requests SET settlement_answer = ${encode(answer)}::jsonb
    WHERE id = ${paymentRequestId}::uuid AND settlement_answer IS NULL`;
  const row = await tx.paymentRequest.findUniqueOrThrow({
    where: { id: paymentRequestId },
    select: { settlementAnswer: true },
  });
  return settlementAnswered(row)!;
}
