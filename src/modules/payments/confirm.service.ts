/**
 * Nothing a callback says is believed (docs/payments.md "Payments"). A stored callback only names a checkout request id; the
 * rail's status query says what happened to it, and only that is applied. Prompts nothing recorded (a crash between
 * the push and recording its acknowledgement) are found on the rail's statement. Every rail call here is made
 * outside a transaction.
 *
 * One file per part under ./confirm/: a prompt confirmed by query, a stored callback confirmed, callbacks replayed,
 * a request in doubt resolved from the statement, the statement reconciled, and the sweep that runs them all.
 */

export { confirmPrompt } from './confirm/prompt.ts';
export { type CallbackOutcome, confirmCallback } from './confirm/callback.ts';
export { receiveCallback } from './confirm/receive.ts';
export { replayCallbacks } from './confirm/replay.ts';
export { resolveInDoubt } from './confirm/in-doubt.ts';
export { reconcileStatement } from './confirm/statement.ts';
export { sweepPayments } from './confirm/sweep.ts';
