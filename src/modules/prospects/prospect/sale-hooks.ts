import type { Principal } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Prospect } from '../../../generated/prisma/client.ts';
import type { ProspectStatus } from '../../../generated/prisma/enums.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { prospectVisibility } from '../../access/prospect.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { addTimeline, automaticPath, OPEN_PROSPECT_STATES, transitionProspect } from '../prospect-state.ts';

/**
 * What a sale does to the prospects behind it, called by the motor save-quote and the bind inside their own
 * transactions (so a refused save leaves the prospect as it was). The prospect is the one named by `prospectUuid`
 * (the caller must see it; 422 otherwise), else every open prospect already linked to the client.
 */
export interface SaleHook {
  clientId: number;
  /** The client was added in this same transaction: no prospect can be linked to it yet. */
  clientIsNew?: boolean;
  prospectUuid?: string | null;
  /** What the timeline row names: the quote or policy number. */
  ref?: string | null;
}

/** A quote saved: new, contacted or qualified → quoted (timeline quote_saved); the client linked if it was not. */
export function onQuoteSaved(ctx: Context, tx: Tx, hook: SaleHook): Promise<void> {
  return onSale(ctx, tx, hook, 'quote');
}

/** A policy bound: any open prospect → won, through quoted when needed (timeline policy_bound); client linked. */
export function onPolicyBound(ctx: Context, tx: Tx, hook: SaleHook): Promise<void> {
  return onSale(ctx, tx, hook, 'bind');
}

async function onSale(ctx: Context, tx: Tx, hook: SaleHook, source: 'quote' | 'bind'): Promise<void> {
  const targets = hook.prospectUuid
    ? [await namedProspect(tx, ctx.principal!, hook.prospectUuid, hook.clientId)]
    : hook.clientIsNew
      ? []
      : await tx.prospect.findMany({
          where: { clientId: hook.clientId, status: { in: [...OPEN_PROSPECT_STATES] } },
          orderBy: { id: 'asc' },
        });
  for (const prospect of targets) await applySale(ctx, tx, prospect, hook, source);
}

async function namedProspect(tx: Tx, p: Principal, uuid: string, clientId: number): Promise<Prospect> {
  const row = isUuid(uuid) ? await tx.prospect.findFirst({ where: { AND: [{ uuid }, prospectVisibility(p)] } }) : null;
  if (!row)
    throw new ValidationError([{ field: 'prospectUuid', message: 'no prospect with this uuid that you can see' }]);
  if (row.clientId != null && row.clientId !== clientId)
    throw new ValidationError([{ field: 'prospectUuid', message: 'this prospect is linked to another client' }]);
  return row;
}

/**
 * Links the client and walks the prospect along the automatic path; a prospect that does not move (lost, won, or
 * quoted on a second quote) still gets the timeline row, so its history shows every quote and policy.
 */
async function applySale(ctx: Context, tx: Tx, prospect: Prospect, hook: SaleHook, source: 'quote' | 'bind') {
  const kind = source === 'quote' ? 'quote_saved' : 'policy_bound';
  const actorUserId = ctx.principal?.actor?.userId ?? null;
  const link = prospect.clientId == null;
  if (link) await tx.prospect.update({ where: { id: prospect.id }, data: { clientId: hook.clientId } });
  let status: ProspectStatus = prospect.status;
  const path = automaticPath(source, status);
  for (const to of path) {
    await transitionProspect(tx, { ...prospect, status }, to, { source, kind, actorUserId, body: hook.ref });
    status = to;
  }
  if (!path.length)
    await addTimeline(tx, { tenantId: prospect.tenantId, prospectId: prospect.id, kind, body: hook.ref, actorUserId });
  await recordAudit(ctx, tx, prospect.tenantId, {
    action: `prospect.${kind}`,
    entityType: 'prospect',
    entityId: prospect.prospectNo,
    changes: {
      ref: hook.ref ?? null,
      ...(path.length ? { status: { from: prospect.status, to: status } } : {}),
      ...(link ? { client_linked: true } : {}),
    },
  });
}
