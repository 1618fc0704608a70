import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { claimActor, moveClaim } from '../claim-moves.ts';
import { CLAIM_RULES } from '../claim-state.ts';
import { lockVisibleClaim, requireStatus, setReserve } from './common.ts';

const repudiateSchema = z.object({
  reason: z.enum(CLAIM_RULES.repudiationReasons),
  note: z.string().trim().max(2000).nullish(),
});

/** Repudiation (with_underwriter or under_assessment → repudiated) for a documented reason; the reserve is released. */
export async function repudiateClaim(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(repudiateSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    requireStatus(claim, ['with_underwriter', 'under_assessment'], 'be repudiated');
    await tx.claim.update({
      where: { id: claim.id },
      data: { repudiationReason: d.reason, repudiationNote: d.note ?? null },
    });
    await setReserve(tx, claim, 0n, 'release', `Repudiated: ${d.reason}`, p.actor?.userId ?? null);
    const reason = d.note ? `${d.reason}: ${d.note}` : d.reason;
    await moveClaim(ctx, tx, claim, 'repudiated', { source: 'api', by: claimActor(ctx), reason });
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.repudiated',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { reason: d.reason, note: d.note ?? null },
    });
    return tx.claim.findUniqueOrThrow({ where: { id: claim.id } });
  });
}
