import type { Tx } from '../../../db/client.ts';
import { AppError } from '../../../lib/problem.ts';

/**
 * The answer to an STK push, fixed once (docs/payments.md "Collecting"): the payment request as it was when the push
 * was first answered, kept on the request (`first_answer`). Every later use of the same Idempotency-Key answers this
 * snapshot, so a replay is the first answer byte for byte in every transport (REST, GraphQL, the client area, early
 * settlement), whatever the request became since, and whichever attempt (the first, a twin racing it, a retry after
 * a shed or crashed one) wrote it. The request as it is now is GET /payment/stk/{id}.
 */
type Snapshot = Record<string, unknown>;
/** A payment request row (prompt.ts IntentRow; named here too so the two files do not import each other). */
type IntentRow = Awaited<ReturnType<Tx['paymentRequest']['findUniqueOrThrow']>>;

function encode(row: IntentRow): Snapshot {
  const out: Snapshot = {};
  for (const [k, v] of Object.entries(row)) {
    // The early-settlement answer is kept beside it (settlement-answer.ts), not in the push's own.
    if (k === 'firstAnswer' || k === 'settlementAnswer') continue;
    if (typeof v === 'bigint') out[k] = { $bigint: v.toString() };
    else if (v instanceof Date) out[k] = { $date: v.toISOString() };
    else out[k] = v;
  }
  return out;
}

function decode(snapshot: Snapshot, row: IntentRow): IntentRow {
  const out: Record<string, unknown> = { ...row };
  for (const [k, v] of Object.entries(snapshot)) {
    if (v && typeof v === 'object' && '$bigint' in v) out[k] = BigInt(String((v as { $bigint: string }).$bigint));
    else if (v && typeof v === 'object' && '$date' in v) out[k] = new Date(String((v as { $date: string }).$date));
    else out[k] = v;
  }
  return out as IntentRow;
}

/** The request as first answered, or null when it has not been answered yet. */
export function answered(row: IntentRow): IntentRow | null {
  const s = row.firstAnswer;
  return s && typeof s === 'object' && !Array.isArray(s) ? decode(s, row) : null;
}

/**
 * Fixes the answer from the request as it is in `tx` (or as `current` gives it, which this transaction just wrote)
 * unless an earlier attempt fixed one first, and returns the
 * answer that stands. Only a request the rail has answered, or that is final, is answered: one still `sending` has no
 * answer to give (its attempt is running, or it is in doubt).
 */
export async function fixAnswer(tx: Tx, id: string, current?: IntentRow): Promise<IntentRow> {
  // `current`: the request as this transaction just wrote it (not read again).
  const row = current ?? (await tx.paymentRequest.findUniqueOrThrow({ where: { id } }));
  const prior = answered(row);
  if (prior) return prior;
  if (row.status === 'sending') throw new Error(`payment request ${id} has no answer while it is sending`);
  const answer = JSON.stringify(encode(row));
  const fixed = await tx.$executeRaw`UPDATE payment_requests SET first_answer = ${answer}::jsonb
    WHERE id = ${id}::uuid AND first_answer IS NULL`;
  // This attempt fixed it: the answer is what it wrote. Otherwise another fixed one first, and that one stands.
  if (fixed === 1) return answered({ ...row, firstAnswer: JSON.parse(answer) as IntentRow['firstAnswer'] })!;
  return answered(await tx.paymentRequest.findUniqueOrThrow({ where: { id } }))!;
}

/** What a retry answers while the attempt it repeats is in doubt: the first attempt's own answer, 503 to retry. */
export function inDoubt(id: string): AppError {
  return new AppError('service_unavailable', {
    detail: `The rail's answer to the first attempt with this Idempotency-Key is not known yet (it is looked up on the rail); nothing is sent again. Retry with the same key, or follow /api/v1/payment/stk/${id}`,
    headers: { 'Retry-After': '5' },
  });
}
