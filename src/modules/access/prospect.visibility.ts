import { ownTenant } from './client.visibility.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Prisma } from '../../db/client.ts';
import type { Reach } from '../../graphql/access.ts';

/** Which prospects the caller may see: staff see all; an agent those they created or are assigned. */
export function prospectVisibility(p: Principal | undefined): Prisma.ProspectWhereInput {
  if (!p) throw new Error('prospectVisibility needs a principal');
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return { ...ownTenant(p), OR: [{ createdByUserId: a.userId }, { assigneeUserId: a.userId }] };
}

/** The reach rule of the Prospect type and of its timeline. */
export const prospectReach: Reach = { model: 'prospect', where: prospectVisibility };
