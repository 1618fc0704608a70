import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { validationFailed } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { lockVisibleClaim } from './common.ts';

const updateSchema = z.object({
  assigneeId: z.number().int().positive().nullish(),
  policeAbstractNo: z.string().trim().max(50).nullish(),
});

/** Assigns the claim to a handler (null unassigns) or records the police abstract number; audited. */
export async function updateClaim(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(updateSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    if (d.assigneeId != null) {
      const u = await tx.user.findFirst({ where: { id: d.assigneeId, disabled: false }, select: { id: true } });
      if (!u) throw validationFailed([{ field: 'input.assigneeId', message: 'no such user in this organisation' }]);
    }
    const data = {
      ...(d.assigneeId !== undefined ? { assigneeUserId: d.assigneeId } : {}),
      ...(d.policeAbstractNo !== undefined ? { policeAbstractNo: d.policeAbstractNo || null } : {}),
    };
    const updated = await tx.claim.update({ where: { id: claim.id }, data });
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.updated',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { assignee_id: d.assigneeId, police_abstract_no: d.policeAbstractNo },
    });
    return updated;
  });
}
