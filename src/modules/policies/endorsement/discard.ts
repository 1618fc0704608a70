import { now as clockNow } from '../../../lib/clock.ts';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { EndorsementStateError, findVisibleEndorsement } from './shared.ts';

/** Drops a pending endorsement; nothing else changes. */
export async function discard(ctx: Context, uuid: string, policyUuid?: string | null) {
  requireAbility(ctx.principal!, 'policies.create');
  const found = await findVisibleEndorsement(ctx, uuid, policyUuid);
  return ctx.tx(async (tx) => {
    const now = clockNow();
    const r = await tx.endorsement.updateMany({
      where: { id: found.id, status: 'pending' },
      data: { status: 'discarded', discardedAt: now },
    });
    const row = await tx.endorsement.findUniqueOrThrow({
      where: { id: found.id },
      include: { debitNote: true, creditNote: true },
    });
    if (r.count !== 1)
      throw new EndorsementStateError(`${row.number} is ${row.status}; only a pending endorsement can be discarded`);
    await recordAudit(ctx, tx, row.tenantId, {
      action: 'endorsement.discarded',
      entityType: 'endorsement',
      entityId: row.uuid,
      changes: { number: row.number },
    });
    return row;
  });
}
