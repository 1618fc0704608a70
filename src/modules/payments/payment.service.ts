import { clientBalance } from './ledger/balance.ts';
import { collectionsSummary } from './ledger/collections.ts';
import { listReceipts, visibleReceipt } from './ledger/receipts.ts';
import { initiateStkPush, priorPush } from './stk/initiate.ts';
import { stkPushStatus } from './stk/status.ts';

/**
 * The payment operations callers use: an STK push (stk/initiate.ts), its status (stk/status.ts) and a client's
 * balance (ledger/balance.ts). Confirmation of what the rail did lives in confirm.service.ts, settlement in
 * settle.service.ts.
 */

export { STK_MAX_AMOUNT, type StkPushInput } from './stk/initiate.ts';
export { CALLBACK_PATH } from './stk/prompt.ts';
export { accountReference } from './stk/account.ts';
export { paymentRequestVisibility, receiptVisibility } from '../access/payment.visibility.ts';

/** Policies the caller may see: staff all; an agent those they created, sell, or whose client they may see. */
export { policyVisibility } from '../access/policy.visibility.ts';

export const paymentService = {
  initiate: initiateStkPush,
  priorPush,
  status: stkPushStatus,
  balance: clientBalance,
  receipts: listReceipts,
  receipt: visibleReceipt,
  collections: collectionsSummary,
};
