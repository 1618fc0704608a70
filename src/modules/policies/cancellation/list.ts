import type { Context } from '../../../context.ts';
import { findVisiblePolicy } from './shared.ts';

/** The policy's cancellations, newest first (visibility through the policy). */
export async function list(ctx: Context, policyUuid: string, query: object = {}) {
  return ctx.tx(async (tx) => {
    const policy = await findVisiblePolicy(ctx, tx, { uuid: policyUuid });
    return tx.cancellation.findMany({ ...query, where: { policyId: policy.id }, orderBy: { id: 'desc' } });
  });
}
