import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { shillings } from '../register/input.ts';
import { lockVisibleClaim, requireStatus, setReserve } from './common.ts';

const reserveSchema = z.object({
  amount: shillings(),
  reason: z.string().trim().min(3, 'say why').max(1000),
});

/**
 * Adjusts the outstanding reserve to a new figure, with its reason, while the claim is being handled (before
 * approval: from then on the reserve follows the net payable and the payments).
 */
export async function adjustReserve(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(reserveSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    requireStatus(
      claim,
      ['registered', 'documents_pending', 'with_underwriter', 'under_assessment'],
      'change its reserve',
    );
    await setReserve(tx, claim, d.amount, 'adjustment', d.reason, p.actor?.userId ?? null);
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.reserve_adjusted',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { from_minor: Number(claim.reserveMinor), to_minor: Number(d.amount), reason: d.reason },
    });
    return tx.claim.findUniqueOrThrow({ where: { id: claim.id } });
  });
}
