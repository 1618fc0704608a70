import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { confirmQuoted } from './confirm.ts';
import { quoteCancellation } from './preview.ts';
import { type CancellationInput, lockPolicy } from './shared.ts';

/**
 * The service's own cancellation of a policy (a premium-finance loan in default: reason non_payment, requested by the
 * lender): the same preview and confirmation as the API's, run at once in the caller's transaction under a lock on
 * the policy row, with no user (the audit says system, the status history source `schedule`). `ctx` is a job context
 * without a principal: nothing here reads visibility, the caller chose the policy. Refusals are the API's (409
 * invalid_state for a policy that is not active, 422 for an effective date outside the period) and roll back the
 * caller's transaction.
 */
export async function cancelAsService(ctx: Context, tx: Tx, policyId: number, input: CancellationInput) {
  const policy = await lockPolicy(tx, policyId);
  const quoted = await quoteCancellation(ctx, tx, policy, input, null);
  return confirmQuoted(ctx, tx, quoted, { userId: null, source: 'schedule' });
}
