import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { ClaimStatus } from '../../../generated/prisma/enums.ts';
import { InvalidStateError, validationFailed } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { claimActor, moveClaim } from '../claim-moves.ts';
import { assertClaimMove, COMMAND_ONLY } from '../claim-state.ts';
import { checklistState } from '../documents/checklist.ts';
import { lockVisibleClaim, setReserve } from './common.ts';

const moveSchema = z.object({
  to: z.enum(Object.values(ClaimStatus) as [ClaimStatus, ...ClaimStatus[]]),
  reason: z.string().trim().max(1000).nullish(),
});

/**
 * A plain move of the state machine: acknowledge (→ documents_pending), hand to the underwriter (the checklist must
 * be complete), start assessment, close, or withdraw. Moves that carry data have their own commands (approve,
 * repudiate, reopen; settled follows payment). Withdrawal is open to whoever may register a claim (the claimant's
 * wish, relayed) but not once money is instructed; it releases the reserve.
 */
export async function moveClaimTo(ctx: Context, uuid: string, input: unknown) {
  const p = ctx.principal!;
  const d = parseInput(moveSchema, input);
  requireAbility(p, d.to === 'withdrawn' ? 'claims.register' : 'claims.manage');
  const command = COMMAND_ONLY[d.to];
  if (command) throw validationFailed([{ field: 'input.to', message: `moves to ${d.to} through ${command}` }]);
  return ctx.tx(async (tx) => {
    const claim = await lockVisibleClaim(ctx, tx, uuid);
    if (claim.status === 'closed') {
      throw new InvalidStateError('A closed claim moves again only through reopen', { claim_status: claim.status });
    }
    // The state machine first: a move it does not list is refused as such, whatever else stands in the way.
    assertClaimMove(claim.status, d.to);
    if (claim.status === 'documents_pending' && d.to === 'with_underwriter') {
      const { complete, missing } = await checklistState(tx, claim.id);
      if (!complete) {
        throw new InvalidStateError(`Documents outstanding: ${missing.join(', ')}`, {
          claim_status: claim.status,
          missing_documents: missing,
        });
      }
    }
    if (d.to === 'withdrawn' && claim.paidMinor + claim.committedMinor > 0n) {
      throw new InvalidStateError('Money has been instructed on this claim; it can no longer be withdrawn', {
        claim_status: claim.status,
      });
    }
    if (d.to === 'closed' && claim.reserveMinor !== 0n) {
      throw new InvalidStateError('The claim still holds a reserve', { claim_status: claim.status });
    }
    await moveClaim(ctx, tx, claim, d.to, { source: 'api', by: claimActor(ctx), reason: d.reason ?? null });
    if (d.to === 'withdrawn') {
      await setReserve(tx, claim, 0n, 'release', 'Claim withdrawn', p.actor?.userId ?? null);
    }
    await recordAudit(ctx, tx, claim.tenantId, {
      action: 'claim.moved',
      entityType: 'claim',
      entityId: claim.claimNo,
      changes: { from: claim.status, to: d.to, reason: d.reason ?? null },
    });
    return tx.claim.findUniqueOrThrow({ where: { id: claim.id } });
  });
}
