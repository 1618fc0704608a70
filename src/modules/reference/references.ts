import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { Branch, BusinessSource, Insurer, ProspectType } from '../../generated/prisma/client.ts';
import { type Directory, directory, directoryCache, STAFF_COLUMNS, type StaffRow } from './directory.ts';
import { ratingCache, ratingData, type RatingData } from './rating-data.ts';

/**
 * What a record's reference columns point at, answered from this process's memory instead of joined into the
 * record's statement (issue 28: a page of clients read five lateral joins of reference rows per row, and a policy two):
 * branches, users (the columns of STAFF_COLUMNS), business sources and prospect types from the directory
 * (directory.ts); insurers from the rating copy (rating-data.ts), every column of each.
 *
 * An id the copy does not hold is read from the database by id (under row-level security, so null when the row is not
 * the organisation's, as the join gave): a user past the directory's PEOPLE_KEPT, or a row committed an instant ago
 * whose invalidation this process has not heard yet. Never null for a row that exists.
 */

interface Kind<T> {
  inDirectory: (d: Directory) => ReadonlyMap<number, T>;
  byId: (tx: Tx, ids: number[]) => Promise<T[]>;
}

const KINDS = {
  branch: {
    inDirectory: (d) => d.branchById,
    byId: (tx, ids) => tx.branch.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<Branch>,
  person: {
    inDirectory: (d) => d.people,
    byId: (tx, ids) => tx.user.findMany({ where: { id: { in: ids } }, select: STAFF_COLUMNS }),
  } satisfies Kind<StaffRow>,
  businessSource: {
    inDirectory: (d) => d.businessSources,
    byId: (tx, ids) => tx.businessSource.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<BusinessSource>,
  prospectType: {
    inDirectory: (d) => d.prospectTypes,
    byId: (tx, ids) => tx.prospectType.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<ProspectType>,
};

/** The rating copy's insurers by id, made once per copy. */
const insurersOf = new WeakMap<RatingData, ReadonlyMap<number, Insurer>>();
function insurerById(data: RatingData): ReadonlyMap<number, Insurer> {
  let found = insurersOf.get(data);
  if (!found) insurersOf.set(data, (found = new Map(data.insurers.map((i) => [i.id, i]))));
  return found;
}
const insurerKind: Kind<Insurer> = {
  inDirectory: () => new Map(),
  byId: (tx, ids) => tx.insurer.findMany({ where: { id: { in: ids } } }),
};

/** One row by id from the database, in a read-only transaction of its own. */
function readOne<T>(ctx: Context, kind: Kind<T>, id: number): Promise<T | null> {
  return ctx.tx(async (tx) => (await kind.byId(tx, [id]))[0] ?? null, { readOnly: true });
}

/** A shallow copy: cached rows are shared and frozen, and GraphQL's layers may mark what they are given. */
const copy = <T extends object>(row: T): T => ({ ...row });

function fromDirectory<T extends object>(kind: Kind<T>) {
  return (ctx: Context, id: number | null): T | null | Promise<T | null> => {
    if (id == null) return null;
    const found = (d: Directory) => {
      const row = kind.inDirectory(d).get(id);
      return row ? copy(row) : readOne(ctx, kind, id);
    };
    const cached = directoryCache(ctx).peek(ctx.principal!.tenant.id);
    return cached ? found(cached) : directory(ctx).then(found);
  };
}

const ratingForRequest = new WeakMap<Context, Promise<RatingData>>();

/** The rating copy: from memory, or (caches off: their invalidation feed is down) loaded once for the request. */
function ratingCopy(ctx: Context): RatingData | Promise<RatingData> {
  const cache = ratingCache(ctx);
  const cached = cache.peek(ctx.principal!.tenant.id);
  if (cached) return cached;
  if (cache.enabled) return ratingData(ctx);
  let once = ratingForRequest.get(ctx);
  if (!once) ratingForRequest.set(ctx, (once = ratingData(ctx)));
  return once;
}

/**
 * For a GraphQL field: the row a record's column points at. Synchronous when the copy is in memory, as it is on every
 * request but the first after a change.
 */
export const references = {
  branch: fromDirectory(KINDS.branch),
  person: fromDirectory(KINDS.person),
  businessSource: fromDirectory(KINDS.businessSource),
  prospectType: fromDirectory(KINDS.prospectType),
  insurer(ctx: Context, id: number | null): Insurer | null | Promise<Insurer | null> {
    if (id == null) return null;
    const found = (data: RatingData) => {
      const row = insurerById(data).get(id);
      return row ? copy(row) : readOne(ctx, insurerKind, id);
    };
    const data = ratingCopy(ctx);
    return data instanceof Promise ? data.then(found) : found(data);
  },
};

/** Rows by id for a page of records; what the copy lacks is read in `tx` in one statement. The rows are frozen. */
export type RowsById<T> = (tx: Tx, ids: readonly (number | null | undefined)[]) => Promise<ReadonlyMap<number, T>>;

function rowsById<T extends { id: number }>(held: ReadonlyMap<number, T>, kind: Kind<T>): RowsById<T> {
  return async (tx, ids) => {
    const missing = new Set<number>();
    for (const id of ids) if (id != null && !held.has(id)) missing.add(id);
    if (!missing.size) return held;
    const rows = new Map(held);
    for (const r of await kind.byId(tx, [...missing])) rows.set(r.id, Object.freeze(r));
    return rows;
  };
}

/**
 * For code that maps a page of records inside its own transaction (the ERP exports): the copies in hand, taken before
 * the transaction opens (so loading them never holds a second connection), each kind answering a page's ids at once.
 */
export interface PageReferences {
  people: RowsById<StaffRow>;
  branches: RowsById<Branch>;
  insurers: RowsById<Insurer>;
  businessSources: RowsById<BusinessSource>;
}

export async function pageReferences(ctx: Context): Promise<PageReferences> {
  const [d, rating] = await Promise.all([directory(ctx), ratingCopy(ctx)]);
  return {
    people: rowsById(d.people, KINDS.person),
    branches: rowsById(d.branchById, KINDS.branch),
    insurers: rowsById(insurerById(rating), insurerKind),
    businessSources: rowsById(d.businessSources, KINDS.businessSource),
  };
}
