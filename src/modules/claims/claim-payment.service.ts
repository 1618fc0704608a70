/**
 * Claim settlement as money out (docs/claims.md "Claim payouts"): payouts through the B2C rail or recorded bank transfers.
 * One file per operation under ./settlement/: pay (record and commit), send (the rail call), confirm (the rail's
 * answer applied), result (a Result received as a hint), sweep, apply (the one ledger writer), reconcile (the pure
 * money rules), payment-state (the status machine), read.
 */
import { pay } from './settlement/pay.ts';
import { getPayment, listPayments, listReserveMovements, paymentById } from './settlement/read.ts';
import { receiveResult } from './settlement/result.ts';
import { sendPayout } from './settlement/send.ts';
import { sweepPayouts } from './settlement/sweep.ts';

export const claimPaymentService = {
  /** payClaim: ability claims.manage, an approved claim, an amount within what remains. */
  pay,
  list: listPayments,
  get: getPayment,
  byId: paymentById,
  reserveMovements: listReserveMovements,
  /** The `claims.payout` job: one recorded payout to the rail. */
  send: sendPayout,
  /** The ResultURL and QueueTimeOutURL (src/http/b2c-result.ts). */
  receiveResult,
  /** The `claims.payout-sweep` job. */
  sweep: sweepPayouts,
};

export { B2C_RESULT_PATH, B2C_TIMEOUT_PATH } from './settlement/send.ts';
export type { PayClaimInput } from './settlement/pay.ts';
