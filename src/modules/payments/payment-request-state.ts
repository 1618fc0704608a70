import type { Prisma, Tx } from '../../db/client.ts';

/**
 * The one payment-request state machine. Every status write goes through `transitionPaymentRequest`, guarded by the
 * current status, so a callback, a status query, the sweep and the statement racing each other move a request once.
 *
 * sending → pending (the rail acknowledged the push) | succeeded (an in-doubt request found paid on the statement)
 *         | failed (the rail refused the push, or nothing on the statement within MPESA_PROMPT_TTL_SECONDS);
 * pending → succeeded | failed (the rail's confirmed result). succeeded and failed are final: money that arrives for
 * a failed request is unmatched money, held for refund, never a late success.
 */
export const PAYMENT_REQUEST_STATES = ['sending', 'pending', 'succeeded', 'failed'] as const;
export type PaymentRequestState = (typeof PAYMENT_REQUEST_STATES)[number];

export const PAYMENT_REQUEST_TRANSITIONS: Record<PaymentRequestState, readonly PaymentRequestState[]> = {
  sending: ['pending', 'succeeded', 'failed'],
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

/** Not yet final: the rail's answer is still awaited. */
export const OPEN_PAYMENT_STATES: readonly PaymentRequestState[] = ['sending', 'pending'];

export function canTransition(from: PaymentRequestState, to: PaymentRequestState): boolean {
  return PAYMENT_REQUEST_TRANSITIONS[from]?.includes(to) ?? false;
}

export class IllegalPaymentTransition extends Error {
  constructor(from: string, to: string) {
    super(`payment request transition ${from} → ${to} is not allowed`);
  }
}

type From = PaymentRequestState | readonly PaymentRequestState[];
type MoveData = Omit<Prisma.PaymentRequestUpdateManyMutationInput, 'status'>;

/** Moves a request from one of `from` to `to` with `data`; false when it was no longer in `from` (someone else moved it). */
export async function transitionPaymentRequest(
  tx: Tx,
  id: string,
  from: From,
  to: PaymentRequestState,
  data: MoveData = {},
) {
  return (await tx.paymentRequest.updateMany(guardedMove(id, from, to, data))).count === 1;
}

/** transitionPaymentRequest answering the request as moved (in the same statement), or null when it was not moved. */
export async function transitionPaymentRequestReturning(
  tx: Tx,
  id: string,
  from: From,
  to: PaymentRequestState,
  data: MoveData = {},
) {
  const [moved] = await tx.paymentRequest.updateManyAndReturn(guardedMove(id, from, to, data));
  return moved ?? null;
}

function guardedMove(id: string, from: From, to: PaymentRequestState, data: MoveData) {
  const froms = typeof from === 'string' ? [from] : [...from];
  for (const f of froms) if (!canTransition(f, to)) throw new IllegalPaymentTransition(f, to);
  return { where: { id, status: { in: froms } }, data: { ...data, status: to } };
}
