import type { Principal } from '../../auth/principal.ts';
import type { Prisma } from '../../db/client.ts';
import { clientVisibility } from '../clients/client.policy.ts';

/**
 * Which policies the caller may see, as a Prisma where-fragment: staff see all; an agent sees the policies they
 * created or sell, and those of the clients they may see.
 */
export function policyVisibility(p: Principal | undefined): Prisma.PolicyWhereInput {
  if (!p) throw new Error('policyVisibility needs a principal');
  const a = p.actor;
  if (!a?.ownRecordsOnly) return {};
  return { OR: [{ createdByUserId: a.userId }, { salesPersonId: a.userId }, { client: clientVisibility(p) }] };
}
