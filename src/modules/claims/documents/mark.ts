import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { now } from '../../../lib/clock.ts';
import { parseInput } from '../../../lib/validate.ts';
import { visibleClaim } from '../../access/claim.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { LINE_STATUSES } from './checklist.ts';
import { KIND } from './content.ts';
import { lockOpenClaim, requireLine } from './locks.ts';

const markSchema = z
  .object({
    kind: z.string().trim().regex(KIND, 'A document kind such as claim_form'),
    status: z.enum(LINE_STATUSES),
    note: z
      .string()
      .trim()
      .max(1000)
      .nullish()
      .transform((v) => v || null),
  })
  .superRefine((d, c) => {
    if (d.status === 'waived' && !d.note)
      c.addIssue({ code: 'custom', path: ['note'], message: 'Say why it is waived' });
  });

/**
 * Decides a checklist line by hand (claims.manage: staff, not agents): `received` when the original was seen on paper
 * (no file needed), `waived` with the reason in `note`, or `pending` again (a file found unreadable). Audited.
 */
export async function mark(ctx: Context, claimUuid: string, input: unknown) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'claims.manage');
  const d = parseInput(markSchema, input);
  const seen = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  return ctx.tx(async (tx) => {
    const claim = await lockOpenClaim(tx, seen.id, 'have its checklist changed');
    const line = await requireLine(tx, claim, d.kind);
    const after = await tx.claimDocument.update({
      where: { id: line.id },
      data: {
        status: d.status,
        note: d.note,
        decidedAt: d.status === 'pending' ? null : now(),
        decidedByUserId: d.status === 'pending' ? null : actor.userId,
      },
    });
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.document_marked',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { kind: d.kind, status: { from: line.status, to: d.status }, note: d.note },
    });
    return after;
  });
}
