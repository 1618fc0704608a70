import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { InvalidStateError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { findVisibleCancellation, lockPolicy } from './shared.ts';

/** Drops a quoted preview; nothing else changes. */
export async function discard(ctx: Context, uuid: string, policyUuid?: string | null) {
  const p = ctx.principal!;
  requireAbility(p, 'policies.create');
  return ctx.tx(async (tx) => {
    const { c, policy } = await findVisibleCancellation(ctx, tx, uuid, policyUuid);
    // Serialised with confirmations through the policy row, so a discard never overtakes a confirmation.
    await lockPolicy(tx, policy.id);
    const r = await tx.cancellation.updateMany({
      where: { id: c.id, status: 'quoted' },
      data: { status: 'discarded' },
    });
    if (r.count !== 1)
      throw new InvalidStateError(`This cancellation is ${c.status}; only a quoted one can be discarded`);
    await recordAudit(ctx, tx, policy.tenantId, {
      action: 'cancellation.discarded',
      entityType: 'policy',
      entityId: policy.uuid,
      changes: { cancellation_uuid: c.uuid },
    });
    return tx.cancellation.findUniqueOrThrow({ where: { id: c.id } });
  });
}
