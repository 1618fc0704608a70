import { now as clockNow } from '../../../lib/clock.ts';
import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { InvalidStateError, validationFailed } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { shillings } from '../register/input.ts';
import { lockVisibleClaim, requireStatus } from './common.ts';

const assessorSchema = z.object({
  name: z.string().trim().min(2).max(200),
  phone: z
    .string()
    .nullish()
    .transform((v, c) => {
      if (!v) return null;
      const n = normalisePhone(v);
      if (!n) c.addIssue({ code: 'custom', message: 'not a Kenyan mobile number' });
      return n;
    }),
  firm: z.string().trim().max(200).nullish(),
});

/** Appoints (or replaces) the assessor, with the underwriter or during assessment. */
export async function appointAssessor(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(assessorSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    requireStatus(claim, ['with_underwriter', 'under_assessment'], 'have an assessor appointed');
    const updated = await tx.claim.update({
      where: { id: claim.id },
      data: {
        assessorName: d.name,
        assessorPhone: d.phone,
        assessorFirm: d.firm ?? null,
        assessorAppointedAt: clockNow(),
      },
    });
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.assessor_appointed',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { name: d.name, phone: d.phone, firm: d.firm ?? null },
    });
    return updated;
  });
}

const reportSchema = z.object({
  assessedAmount: shillings(),
  salvage: shillings().nullish(),
  notes: z.string().trim().max(5000).nullish(),
});

/** The assessor's report (under assessment): the assessed loss, salvage, notes. Replaces an earlier report. */
export async function recordAssessment(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(reportSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    requireStatus(claim, ['under_assessment'], 'take an assessment report');
    if (!claim.assessorAppointedAt) {
      throw new InvalidStateError('Appoint an assessor before recording the report', { claim_status: claim.status });
    }
    if (d.salvage != null && d.salvage > d.assessedAmount) {
      throw validationFailed([{ field: 'input.salvage', message: 'more than the assessed amount' }]);
    }
    const updated = await tx.claim.update({
      where: { id: claim.id },
      data: {
        assessedAmountMinor: d.assessedAmount,
        salvageMinor: d.salvage ?? null,
        assessmentNotes: d.notes ?? null,
        assessedAt: clockNow(),
      },
    });
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.assessed',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: {
        assessed_minor: Number(d.assessedAmount),
        salvage_minor: d.salvage != null ? Number(d.salvage) : null,
      },
    });
    return updated;
  });
}
