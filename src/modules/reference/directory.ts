import type { Context } from '../../context.ts';
import type { Prisma } from '../../db/client.ts';
import type { Branch } from '../../generated/prisma/client.ts';
import { deepFreeze } from './rating-data.ts';

/**
 * The columns of a user the directory keeps: what the staff lists can show. Never the agent key's hash or when it was
 * issued (a read loads no secret-bearing column, and a process's memory holds none it does not need).
 */
export const STAFF_COLUMNS = {
  id: true,
  tenantId: true,
  name: true,
  email: true,
  phone: true,
  role: true,
  agentCode: true,
  disabled: true,
  branchId: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Prisma.UserSelect;

export type StaffRow = Prisma.UserGetPayload<{ select: typeof STAFF_COLUMNS }>;

/** An organisation's branches and its active account executives and sales people, each list by name then id. */
export interface Directory {
  branches: readonly Branch[];
  staff: readonly StaffRow[];
}

/**
 * The caller's organisation's directory, from this process's cache: dropped in every process at the commit of any
 * change to a branch (migration directory_cache, kind `directory`) or a user (caches_and_replicas, kind `principal`),
 * whoever makes it. Read in one snapshot, so the two lists agree with each other.
 */
export function directory(ctx: Context): Promise<Directory> {
  const tenantId = ctx.principal!.tenant.id;
  return ctx.app.caches.define<number, Directory>('directory', ['directory', 'principal']).get(tenantId, async () => ({
    value: deepFreeze(
      await ctx.tx(
        async (tx) => ({
          branches: await tx.branch.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
          staff: await tx.user.findMany({
            select: STAFF_COLUMNS,
            where: { role: { in: ['account_exec', 'agent'] }, disabled: false },
            orderBy: [{ name: 'asc' }, { id: 'asc' }],
          }),
        }),
        { isolationLevel: 'RepeatableRead' },
      ),
    ),
    scope: tenantId,
  }));
}
