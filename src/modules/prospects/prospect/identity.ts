import type { Principal } from '../../../auth/principal.ts';
import { roleCan } from '../../../auth/abilities.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { identityConditions, matchedIdentifiers, type PersonIdentifiers } from '../../../lib/identifiers.ts';
import { type DuplicateMatch, DuplicateClientError, ValidationError } from '../../../lib/problem.ts';
import { describeMatches, findIdentityMatches, lockIdentifiers } from '../../clients/client.service.ts';

/**
 * One person, one record: a prospect's phone, ID number and PIN are checked against the organisation's clients and
 * prospects alike. Locks are the clients' own (lockIdentifiers), so a prospect and a client for the same person
 * created at once queue on each other too.
 */

/** Prospects of the tenant sharing an identifier (whoever may see them), `excludeId` aside. */
async function findProspectMatches(tx: Tx, ids: PersonIdentifiers, excludeId?: number) {
  const or = identityConditions(ids);
  if (!or.length) return [];
  const rows = await tx.prospect.findMany({
    where: { OR: or, ...(excludeId ? { id: { not: excludeId } } : {}) },
    orderBy: { id: 'asc' },
    take: 20,
  });
  return rows.map((r) => ({ ...r, matched: matchedIdentifiers(ids, r) }));
}

/** As the clients' describeMatches: a prospect outside the caller's reach is a redacted marker. */
function describeProspectMatches(
  p: Principal,
  rows: Awaited<ReturnType<typeof findProspectMatches>>,
): DuplicateMatch[] {
  const a = p.actor;
  return rows.map((r) => {
    const visible = !a?.ownRecordsOnly || r.createdByUserId === a.userId || r.assigneeUserId === a.userId;
    return {
      kind: 'prospect',
      clientNo: null,
      prospectNo: visible ? r.prospectNo : null,
      name: visible ? r.name : null,
      matched: r.matched,
      redacted: !visible,
    };
  });
}

/**
 * 409 duplicate_client when a client or another prospect holds one of these identifiers, unless `force`. The
 * identifiers stay locked until commit either way, so a concurrent twin sees this record once it exists.
 */
export async function assertNoDuplicates(
  ctx: Context,
  tx: Tx,
  ids: PersonIdentifiers,
  opts: { force?: boolean | null; excludeProspectId?: number; excludeClientId?: number | null },
): Promise<void> {
  const p = ctx.principal!;
  await lockIdentifiers(tx, p.tenant.id, [ids.phone, ids.idNo, ids.kraPin]);
  if (opts.force) return;
  const clients = await findIdentityMatches(tx, ids, opts.excludeClientId ?? undefined);
  const prospects = await findProspectMatches(tx, ids, opts.excludeProspectId);
  if (!clients.length && !prospects.length) return;
  const matches = [
    ...describeMatches(p, clients).map((m): DuplicateMatch => ({ ...m, kind: 'client', prospectNo: null })),
    ...describeProspectMatches(p, prospects),
  ];
  throw new DuplicateClientError(
    matches,
    `${matches.length === 1 ? 'An existing client or prospect matches' : `${matches.length} existing clients or prospects match`} this phone, ID number or tax PIN; send force: true to save anyway`,
  );
}

/** An assignee is a user of the organisation, not disabled, whose role may work prospects (prospects.write). */
export async function assertAssignee(tx: Tx, assigneeId: number | null | undefined): Promise<void> {
  if (assigneeId == null) return;
  const u = await tx.user.findUnique({ where: { id: assigneeId } });
  if (!u || u.disabled || !roleCan(u.role, 'prospects.write'))
    throw new ValidationError([{ field: 'assigneeId', message: 'no such user who may work prospects' }]);
}
