import type { Tx } from '../../../db/client.ts';
import { InvalidStateError, ValidationError } from '../../../lib/problem.ts';
import { OPEN_CLAIM_STATES } from '../claim-state.ts';
import { EXTRA_KINDS, EXTRA_SORT_BASE } from './checklist.ts';

/**
 * The locks uploads and marks take, always claim first and then line, as the claim's moves do (claim first): no two
 * of them can wait on each other in a circle.
 */

export type LockedClaim = { id: number; tenantId: number; status: string; claimNo: string };

/**
 * The claim read under a shared lock: a move (which locks it FOR UPDATE, then reads the checklist) waits for an upload
 * or mark under way, and they for it; uploads to one claim do not wait for each other. Open claims only (approved
 * included): an ended one's checklist is closed (409 invalid_state).
 */
export async function lockOpenClaim(tx: Tx, id: number, doing: string): Promise<LockedClaim> {
  await tx.$queryRaw`SELECT id FROM claims WHERE id = ${id} FOR SHARE`;
  const claim = await tx.claim.findUniqueOrThrow({
    where: { id },
    select: { id: true, tenantId: true, status: true, claimNo: true },
  });
  if (!(OPEN_CLAIM_STATES as readonly string[]).includes(claim.status)) {
    throw new InvalidStateError(`A claim in ${claim.status} cannot ${doing}`, { claim_status: claim.status });
  }
  return claim;
}

/**
 * The line of `kind` on the claim, locked (FOR UPDATE) for the rest of `tx` so uploads and marks of one line take
 * turns. An extra kind's line is made on first use; any other kind must be on the checklist, else 422 on `kind`.
 */
export async function requireLine(tx: Tx, claim: { id: number; tenantId: number }, kind: string) {
  if ((EXTRA_KINDS as readonly string[]).includes(kind)) {
    // ON CONFLICT: two first uploads of an extra kind at once both find the one line.
    await tx.$executeRaw`
      INSERT INTO claim_documents (tenant_id, claim_id, kind, required, status, sort_order)
      SELECT ${claim.tenantId}, ${claim.id}, ${kind}, false, 'pending',
             ${EXTRA_SORT_BASE} + (SELECT count(*) FROM claim_documents WHERE claim_id = ${claim.id} AND NOT required)
      ON CONFLICT (claim_id, kind) DO NOTHING`;
  }
  const locked = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM claim_documents WHERE claim_id = ${claim.id} AND kind = ${kind} FOR UPDATE`;
  if (locked.length) return tx.claimDocument.findUniqueOrThrow({ where: { id: locked[0].id } });
  const lines = await tx.claimDocument.findMany({
    where: { claimId: claim.id },
    select: { kind: true },
    orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }],
  });
  const kinds = [...new Set([...lines.map((l) => l.kind), ...EXTRA_KINDS])];
  throw new ValidationError([{ field: 'kind', message: `Not on this claim's checklist: one of ${kinds.join(', ')}` }]);
}
