import { ownTenant } from './client.visibility.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import { Prisma } from '../../db/client.ts';
import { access, type Reach } from '../../graphql/access.ts';
import { isUuid } from '../../lib/identifiers.ts';
import { notFound } from '../../lib/problem.ts';
import { agentPolicyReachSql, policyVisibility } from './policy.visibility.ts';

/**
 * Which claims the caller may see: staff see all; an agent those they registered or are assigned, and the claims of
 * the policies within their reach (policyVisibility: created, sold, or of a client they own).
 */
export function claimVisibility(p: Principal | undefined): Prisma.ClaimWhereInput {
  if (!p) throw new Error('claimVisibility needs a principal');
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return {
    ...ownTenant(p),
    OR: [{ createdByUserId: a.userId }, { assigneeUserId: a.userId }, { policy: policyVisibility(p) }],
  };
}

/**
 * claimVisibility as an SQL condition on the claims table aliased `c`, for the claims read model
 * (claims/read-model.ts): the same rule, the same organisation named. test/claim-read-model.test.ts checks that the two
 * let each caller (staff, an agent, another organisation) see exactly the same claims.
 */
export function claimVisibilitySql(p: Principal): Prisma.Sql {
  const a = p.actor;
  const tenant = Prisma.sql`c.tenant_id = ${p.tenant.id}`;
  if (!a?.ownRecordsOnly) return tenant;
  const u = a.userId;
  return Prisma.sql`${tenant} AND (c.created_by_user_id = ${u} OR c.assignee_user_id = ${u} OR EXISTS (
    SELECT 1 FROM policies pv WHERE pv.id = c.policy_id AND ${agentPolicyReachSql(u, 'pv')}))`;
}

/** The reach rule of the Claim type and of every record that hangs off one claim. */
export const claimReach: Reach = { model: 'claim', where: claimVisibility };

/** Claims and what hangs off them are read with `read` (an integration that services claims) or `crm`. */
export const CLAIM_SCOPES = ['read', 'crm'] as const;

/** The access rule of every type whose rows belong to one claim (documents, files, history, reserves, payments). */
export const oneClaim = access<{ claimId: number }>({
  scopes: CLAIM_SCOPES,
  reach: { via: claimReach, id: (r) => r.claimId },
});

/** The claim `uuid` if the caller may see it, else 404: the one lookup every claim operation starts from. */
export async function visibleClaim<Q extends Omit<Prisma.ClaimFindFirstArgs, 'where'>>(
  ctx: Context,
  uuid: string,
  query?: Q,
) {
  if (!isUuid(uuid)) throw notFound('Claim');
  const row = await ctx.tx(
    (tx) => tx.claim.findFirst({ ...(query ?? ({} as Q)), where: { AND: [{ uuid }, claimVisibility(ctx.principal)] } }),
    { readOnly: true },
  );
  if (!row) throw notFound('Claim');
  return row;
}
