import type { Context } from '../../context.ts';
import type { Insurer } from '../../generated/prisma/client.ts';
import { type Directory, directory, directoryCache, STAFF_COLUMNS } from './directory.ts';
import { ratingCache, ratingData, type RatingData } from './rating-data.ts';

/**
 * What a record's reference columns point at, answered from this process's memory instead of joined into the
 * record's statement (issue 28: a page of clients read five lateral joins of reference rows per row, and a policy two).
 * Each is a shallow copy of the cached row (cached rows are shared and frozen, and GraphQL's layers may mark what they
 * are given); synchronous when the copy is in memory, as it is on every request but the first after a change. Null
 * for a null column, or for an id the organisation does not have (what the join under row-level security gave).
 */

/** Rows a directory keeps by id, and how to load one it does not keep (a user past PEOPLE_KEPT). */
interface Kept<T> {
  pick: (d: Directory) => ReadonlyMap<number, T>;
  beyond?: { complete: (d: Directory) => boolean; load: (ctx: Context, id: number) => Promise<T | null> };
}

/** A row of the directory by id (see `references`). */
function pointedAt<T extends object>(ctx: Context, id: number | null, kept: Kept<T>): T | null | Promise<T | null> {
  if (id == null) return null;
  const found = (d: Directory): T | null | Promise<T | null> => {
    const row = kept.pick(d).get(id);
    if (row) return { ...row };
    return kept.beyond && !kept.beyond.complete(d) ? kept.beyond.load(ctx, id) : null;
  };
  const cached = directoryCache(ctx).peek(ctx.principal!.tenant.id);
  return cached ? found(cached) : directory(ctx).then(found);
}

const lookUp =
  <T extends object>(kept: Kept<T>) =>
  (ctx: Context, id: number | null) =>
    pointedAt(ctx, id, kept);

const ratingForRequest = new WeakMap<Context, Promise<RatingData>>();

/** The rating copy's insurers by id, made once per copy. */
const insurersOf = new WeakMap<RatingData, ReadonlyMap<number, Insurer>>();
function insurerById(data: RatingData): ReadonlyMap<number, Insurer> {
  let found = insurersOf.get(data);
  if (!found) insurersOf.set(data, (found = new Map(data.insurers.map((i) => [i.id, i]))));
  return found;
}

/**
 * Branches, users (the columns of STAFF_COLUMNS), business sources and prospect types from the directory
 * (directory.ts); insurers from the rating copy (rating-data.ts), every column of each.
 */
export const references = {
  branch: lookUp({ pick: (d) => d.branchById }),
  person: lookUp({
    pick: (d) => d.people,
    beyond: {
      complete: (d) => d.everyone,
      load: (ctx, id) =>
        ctx.tx((tx) => tx.user.findUnique({ where: { id }, select: STAFF_COLUMNS }), { readOnly: true }),
    },
  }),
  businessSource: lookUp({ pick: (d) => d.businessSources }),
  prospectType: lookUp({ pick: (d) => d.prospectTypes }),
  insurer(ctx: Context, id: number | null): Insurer | null | Promise<Insurer | null> {
    if (id == null) return null;
    const found = (data: RatingData) => {
      const row = insurerById(data).get(id);
      return row ? { ...row } : null;
    };
    const cache = ratingCache(ctx);
    const cached = cache.peek(ctx.principal!.tenant.id);
    if (cached) return found(cached);
    if (cache.enabled) return ratingData(ctx).then(found);
    // The caches are off (their invalidation feed is down): one load for the request, not one per field.
    let once = ratingForRequest.get(ctx);
    if (!once) ratingForRequest.set(ctx, (once = ratingData(ctx)));
    return once.then(found);
  },
};
