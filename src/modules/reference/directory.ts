import type { Context } from '../../context.ts';
import type { Prisma } from '../../db/client.ts';
import type { Branch, BusinessSource, ProspectType } from '../../generated/prisma/client.ts';
import { deepFreeze } from './rating-data.ts';

/**
 * The columns of a user the directory keeps: what the staff lists and a record's people (a client's risk manager and
 * sales person, a policy's sales person …) can show. Never the agent key's hash or when it was issued (a read loads
 * no secret-bearing column, and a process's memory holds none it does not need).
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

/**
 * Users the directory keeps by id, at most: an organisation with more is served its first this many (by id) from
 * memory and the rest from the database by id, so no organisation's users can grow one process's memory without bound.
 */
export const PEOPLE_KEPT = 5_000;

/**
 * An organisation's reference rows that records point at: its branches, its users (the columns above), its business
 * sources and prospect types; and the staff lists (active account executives and sales people, by name then id).
 */
export interface Directory {
  branches: readonly Branch[];
  staff: readonly StaffRow[];
  branchById: ReadonlyMap<number, Branch>;
  /** The organisation's users by id: every one, or its first PEOPLE_KEPT (the rest are read by id when needed). */
  people: ReadonlyMap<number, StaffRow>;
  businessSources: ReadonlyMap<number, BusinessSource>;
  prospectTypes: ReadonlyMap<number, ProspectType>;
}

const byId = <T extends { id: number }>(rows: readonly T[]): ReadonlyMap<number, T> =>
  new Map(rows.map((r) => [r.id, r]));

async function load(ctx: Context): Promise<Directory> {
  const rows = await ctx.tx(
    async (tx) => ({
      branches: await tx.branch.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
      users: await tx.user.findMany({ select: STAFF_COLUMNS, orderBy: { id: 'asc' }, take: PEOPLE_KEPT }),
      staff: await tx.user.findMany({
        select: STAFF_COLUMNS,
        where: { role: { in: ['account_exec', 'agent'] }, disabled: false },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
      }),
      // By name then id: the maps keep that order, which is the order GET /business-sources and /prospect-types list.
      businessSources: await tx.businessSource.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
      prospectTypes: await tx.prospectType.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    }),
    { isolationLevel: 'RepeatableRead' },
  );
  const { branches, staff, businessSources, prospectTypes } = deepFreeze(rows);
  return {
    branches,
    staff,
    branchById: byId(branches),
    people: byId(rows.users),
    businessSources: byId(businessSources),
    prospectTypes: byId(prospectTypes),
  };
}

export const directoryCache = (ctx: Context) => ctx.app.caches.define<number, Directory>('directory', ['directory']);

/** While the caches are off (their invalidation feed is down), a request loads the directory once, not per field. */
const loadedForRequest = new WeakMap<Context, Promise<Directory>>();

/**
 * The caller's organisation's directory, from this process's cache: dropped in every process at the commit of any
 * change to a branch, a user, a business source or a prospect type (migrations directory_cache and
 * reference_relations, kind `directory`; not a token's or an API client's change), whoever makes it. Read in one snapshot, so its
 * lists agree with each other.
 */
export function directory(ctx: Context): Promise<Directory> {
  const tenantId = ctx.principal!.tenant.id;
  const cache = directoryCache(ctx);
  if (!cache.enabled) {
    let once = loadedForRequest.get(ctx);
    if (!once) loadedForRequest.set(ctx, (once = load(ctx)));
    return once;
  }
  return cache.get(tenantId, async () => ({ value: await load(ctx), scope: tenantId }));
}
