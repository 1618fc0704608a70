import type { AppServices, Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { ClaimStatus } from '../../generated/prisma/enums.ts';
import { nairobiIso } from '../../lib/dates.ts';
import { InvalidStateError } from '../../lib/problem.ts';
import { emitEvent } from '../events/event.service.ts';
import { type ClaimMoveSource, transitionClaim } from './claim-state.ts';

/** Who did something to a claim, as history rows and events show it. */
export interface ClaimActor {
  type: 'user' | 'api_client' | 'system';
  id: number | null;
  name: string;
}

export const SYSTEM_ACTOR: ClaimActor = { type: 'system', id: null, name: 'system' };

/** The caller as a claim actor: the acting user when there is one, else the API client; the system for jobs. */
export function claimActor(ctx: Context | null): ClaimActor {
  const p = ctx?.principal;
  if (!p) return SYSTEM_ACTOR;
  if (p.actor) return { type: 'user', id: p.actor.userId, name: p.actor.name };
  return { type: 'api_client', id: p.apiClient.id, name: p.apiClient.name };
}

/** The identifiers every claim event carries (catalogue-claims.ts `claimRef`), read in `tx`. */
export async function claimEventRef(tx: Tx, claimId: number) {
  const c = await tx.claim.findUniqueOrThrow({
    where: { id: claimId },
    select: {
      claimNo: true,
      uuid: true,
      status: true,
      policy: { select: { policyNo: true, uuid: true } },
      client: { select: { clientNo: true } },
    },
  });
  return {
    claim_no: c.claimNo,
    claim_uuid: c.uuid,
    policy_no: c.policy.policyNo,
    policy_uuid: c.policy.uuid,
    client_no: c.client.clientNo,
    status: c.status,
  };
}

export interface MoveOptions {
  source: ClaimMoveSource;
  by: ClaimActor;
  reason?: string | null;
  at?: Date;
}

/**
 * Moves a claim through the state machine (claim-state.ts) and announces it (claim.moved) in the same transaction:
 * the one way every module moves a claim. `from` is the status the caller read; a claim that moved meanwhile is 409.
 */
export async function moveClaim(
  app: Context | AppServices,
  tx: Tx,
  claim: { id: number; tenantId: number; status: ClaimStatus },
  to: ClaimStatus,
  opts: MoveOptions,
): Promise<Date> {
  const at = await transitionClaim(tx, claim.id, claim.status, to, {
    tenantId: claim.tenantId,
    source: opts.source,
    reason: opts.reason ?? null,
    actorUserId: opts.by.type === 'user' ? opts.by.id : null,
    actorApiClientId: opts.by.type === 'api_client' ? opts.by.id : null,
    actorName: opts.by.name,
    at: opts.at,
  });
  if (!at) throw new InvalidStateError('The claim changed meanwhile; read it again', { claim_status: claim.status });
  await emitEvent(app, tx, claim.tenantId, 'claim.moved', {
    ...(await claimEventRef(tx, claim.id)),
    from: claim.status,
    to,
    by: opts.by,
    reason: opts.reason ?? null,
    moved_at: nairobiIso(at),
  });
  return at;
}
