import type { Principal } from '../../auth/principal.ts';
import type { Prisma } from '../../db/client.ts';

/**
 * Which clients the caller may see, as a Prisma where-fragment. Staff see every client of the tenant (row-level
 * security already confines the tenant); an agent sees the clients they created or for which they are the sales
 * person. Every client read goes through this; a bare lookup by number is a bug.
 */
export function clientVisibility(p: Principal | undefined): Prisma.ClientWhereInput {
  if (!p) throw new Error('clientVisibility needs a principal');
  const actor = p.actor;
  if (!actor?.ownRecordsOnly) return {};
  return { OR: [{ createdByUserId: actor.userId }, { salesPersonId: actor.userId }] };
}

export function canSeeClient(p: Principal, c: { createdByUserId: number | null; salesPersonId: number | null }): boolean {
  const actor = p.actor;
  if (!actor?.ownRecordsOnly) return true;
  return c.createdByUserId === actor.userId || c.salesPersonId === actor.userId;
}
