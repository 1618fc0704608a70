import type { Principal } from '../../auth/principal.ts';
import { Prisma } from '../../db/client.ts';
import type { Reach } from '../../graphql/access.ts';

/**
 * The clients an agent owns: those they created or for which they are the sales person. An owned client's policies
 * are within the agent's reach too (policyVisibility).
 */
export function clientOwnership(p: Principal | undefined): Prisma.ClientWhereInput {
  if (!p) throw new Error('clientOwnership needs a principal');
  const actor = p.actor;
  if (!actor?.ownRecordsOnly) return {};
  return { OR: [{ createdByUserId: actor.userId }, { salesPersonId: actor.userId }] };
}

/**
 * Which clients the caller may see, as a Prisma where-fragment. Staff see every client of the tenant (row-level
 * security confines the tenant; the fragment names it too, see ownTenant); an agent sees the clients they own and the
 * policyholders of the policies they created or sell (so a policy within reach never shows a client that is out of
 * reach). Every client read goes through this, REST and GraphQL alike; a bare lookup by number is a bug.
 */
export function clientVisibility(p: Principal | undefined): Prisma.ClientWhereInput {
  if (!p) throw new Error('clientVisibility needs a principal');
  const actor = p.actor;
  if (!actor?.ownRecordsOnly) return ownTenant(p);
  return {
    ...ownTenant(p),
    OR: [
      ...clientOwnership(p).OR!,
      { policies: { some: { OR: [{ createdByUserId: actor.userId }, { salesPersonId: actor.userId }] } } },
    ],
  };
}

/**
 * clientVisibility as an SQL condition on the clients table aliased `c`, for the clients module's read model
 * (clients/client/read-model.ts): the same rule, the same organisation named. Kept beside the Prisma fragment it
 * mirrors; test/client-read-model.test.ts checks that the two let each caller (staff, an agent, another organisation)
 * see exactly the same clients, and test/security/api1-broken-object-level-authorization.test.ts an agent reaching a
 * client only through a policy.
 */
export function clientVisibilitySql(p: Principal): Prisma.Sql {
  const actor = p.actor;
  const tenant = Prisma.sql`c.tenant_id = ${p.tenant.id}`;
  if (!actor?.ownRecordsOnly) return tenant;
  const u = actor.userId;
  return Prisma.sql`${tenant} AND (c.created_by_user_id = ${u} OR c.sales_person_id = ${u} OR EXISTS (
    SELECT 1 FROM policies x WHERE x.client_id = c.id AND (x.created_by_user_id = ${u} OR x.sales_person_id = ${u})))`;
}

/**
 * The caller's organisation, named in every visibility fragment. Row-level security is what confines a transaction to
 * its organisation, whatever a statement says, and its policy is an index condition of its own (src/db/tenancy.ts);
 * named in the statement too, a (tenant_id, …) index serves a list's order and a Citus coordinator could route the
 * statement to one node (docs/performance.md "Beyond one database").
 */
export function ownTenant(p: Principal): { tenantId: number } {
  return { tenantId: p.tenant.id };
}

/** The GraphQL Client type's reach rule (src/graphql/access.ts). */
export const clientReach: Reach = { model: 'client', where: clientVisibility };

/** In memory, for rows already loaded: ownership only (a client reached only through a policy is not counted). */
export function ownsClient(p: Principal, c: { createdByUserId: number | null; salesPersonId: number | null }): boolean {
  const actor = p.actor;
  if (!actor?.ownRecordsOnly) return true;
  return c.createdByUserId === actor.userId || c.salesPersonId === actor.userId;
}
