import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { now } from '../../../lib/clock.ts';
import { InvalidStateError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { claimActor, moveClaim } from '../claim-moves.ts';
import { CLAIM_RULES } from '../claim-state.ts';
import { shillings } from '../register/input.ts';
import { lockVisibleClaim, requireStatus, setReserve } from './common.ts';

const reopenSchema = z.object({
  reason: z.string().trim().min(3, 'say why').max(1000),
  reserve: shillings().nullish(),
});

/**
 * Reopening (closed → under_assessment) within CLAIM_RULES.reopenDays of closing, judged on the service clock
 * (`now()`, src/lib/clock.ts): new facts on a settled or repudiated claim. An optional new reserve is recorded; a later
 * approval may raise the net payable (a supplementary payment) but never below what was paid.
 */
export async function reopenClaim(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(reopenSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    requireStatus(claim, ['closed'], 'be reopened');
    const closedAt = claim.closedAt ?? claim.statusChangedAt;
    if (now().getTime() - closedAt.getTime() > CLAIM_RULES.reopenDays * 86_400_000) {
      throw new InvalidStateError(`A claim can be reopened within ${CLAIM_RULES.reopenDays} days of closing`, {
        claim_status: claim.status,
      });
    }
    await moveClaim(ctx, tx, claim, 'under_assessment', { source: 'api', by: claimActor(ctx), reason: d.reason });
    if (d.reserve != null) await setReserve(tx, claim, d.reserve, 'reopen', d.reason, p.actor?.userId ?? null);
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.reopened',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { reason: d.reason, reserve_minor: d.reserve != null ? Number(d.reserve) : null },
    });
    return tx.claim.findUniqueOrThrow({ where: { id: claim.id } });
  });
}
