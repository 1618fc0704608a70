import { now as clockNow } from '../../../lib/clock.ts';
import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { nairobiIso } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import { DomainRuleError, validationFailed } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { emitEvent } from '../../events/event.service.ts';
import { claimActor, claimEventRef, moveClaim } from '../claim-moves.ts';
import { type ExcessTerm, excessFor, excessTermFor, type ExcessTermName } from '../claim-money.ts';
import { shillings } from '../register/input.ts';
import { lockVisibleClaim, requireStatus, setReserve } from './common.ts';

const approveSchema = z.object({
  approvedAmount: shillings(),
  reason: z.string().trim().max(1000).nullish(),
});

const termSchema = z.object({
  rate_bps: z.number().int().min(0).max(10_000),
  min_minor: z.number().int().min(0),
  basis: z.enum(['sum_insured', 'claim']),
});
const termsSchema = z.record(z.string(), termSchema).nullable();

/** The policy product's excess terms (motor_products.excess_terms); none for a product without them. */
async function excessTerms(tx: Tx, policyId: number): Promise<Partial<Record<ExcessTermName, ExcessTerm>> | null> {
  const row = await tx.policy.findUniqueOrThrow({
    where: { id: policyId },
    select: { motorProduct: { select: { excessTerms: true } } },
  });
  const parsed = termsSchema.safeParse(row.motorProduct?.excessTerms ?? null);
  if (!parsed.success) throw new Error(`motor product excess_terms are malformed: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Approval (under_assessment → approved): the approved amount (at most the sum insured where there is one), the
 * excess from the product's terms for the claim's cause, and net payable = approved − excess. The reserve becomes
 * what is still to pay (net payable less anything paid before a reopening). A net payable of nothing is refused:
 * such a claim is repudiated (below_excess).
 */
export async function approveClaim(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'claims.manage');
  const d = parseInput(approveSchema, input);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    requireStatus(claim, ['under_assessment'], 'be approved');
    const approved = d.approvedAmount;
    if (approved <= 0n) throw validationFailed([{ field: 'input.approvedAmount', message: 'more than 0' }]);
    if (claim.sumInsuredMinor != null && approved > claim.sumInsuredMinor) {
      throw validationFailed([{ field: 'input.approvedAmount', message: 'more than the sum insured' }]);
    }
    const cause = await tx.claimCause.findFirstOrThrow({
      where: { productLine: claim.productLine, code: claim.causeCode },
    });
    const term = excessTermFor(await excessTerms(tx, claim.policyId), cause.excessTerm, claim.antiTheftDevice);
    const excess = excessFor(term, approved, claim.sumInsuredMinor);
    const net = approved - excess;
    if (net <= claim.paidMinor + claim.committedMinor) {
      throw new DomainRuleError(
        net <= 0n
          ? 'The approved amount does not exceed the excess: repudiate the claim (below_excess) instead'
          : 'The net payable would not exceed what is already paid or instructed',
      );
    }
    const at = clockNow();
    await tx.claim.update({
      where: { id: claim.id },
      data: { approvedAmountMinor: approved, excessMinor: excess, netPayableMinor: net, approvedAt: at },
    });
    await setReserve(
      tx,
      claim,
      net - claim.paidMinor,
      'approval',
      'Approved: reserve set to the net payable',
      p.actor?.userId ?? null,
    );
    const by = claimActor(ctx);
    await moveClaim(ctx, tx, claim, 'approved', { source: 'api', by, reason: d.reason ?? null, at });
    await emitEvent(ctx, tx, claim.tenantId, 'claim.approved', {
      ...(await claimEventRef(tx, claim.id)),
      approved: amountOf(approved),
      excess: amountOf(excess),
      net_payable: amountOf(net),
      approved_at: nairobiIso(at),
      by,
    });
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.approved',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { approved_minor: Number(approved), excess_minor: Number(excess), net_payable_minor: Number(net) },
    });
    return tx.claim.findUniqueOrThrow({ where: { id: claim.id } });
  });
}
