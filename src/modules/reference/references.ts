import type { Context } from '../../context.ts';
import { type InHand, type InHandRead, MISSING } from '../../graphql/column-fields.ts';
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

type Held<T> = ReadonlyMap<number, T>;

/** A kind of reference row: the copy holding it by id (in memory, or loading), and how to read some by id. */
interface Kind<T> {
  held: (ctx: Context) => Held<T> | Promise<Held<T>>;
  byId: (tx: Tx, ids: number[]) => Promise<T[]>;
}

/** `f` of a value in hand at once, or of a promised one once it settles. */
const then = <A, B>(v: A | Promise<A>, f: (a: A) => B): B | Promise<Awaited<B>> =>
  v instanceof Promise ? (v.then(f) as Promise<Awaited<B>>) : f(v);

/** The organisation's directory: from memory when held, else loading (directory.ts). */
const directoryOf = (ctx: Context): Directory | Promise<Directory> =>
  directoryCache(ctx).peek(ctx.principal!.tenant.id) ?? directory(ctx);

/** A kind of the directory's rows, picked from it. */
const inDirectory =
  <T>(pick: (d: Directory) => Held<T>) =>
  (ctx: Context) =>
    then(directoryOf(ctx), pick);

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

/** The rating copy's insurers by id, made once per copy. */
const insurersOf = new WeakMap<RatingData, Held<Insurer>>();
function insurerById(data: RatingData): Held<Insurer> {
  let found = insurersOf.get(data);
  if (!found) insurersOf.set(data, (found = new Map(data.insurers.map((i) => [i.id, i]))));
  return found;
}

const KINDS = {
  branch: {
    held: inDirectory((d) => d.branchById),
    byId: (tx, ids) => tx.branch.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<Branch>,
  person: {
    held: inDirectory((d) => d.people),
    byId: (tx, ids) => tx.user.findMany({ where: { id: { in: ids } }, select: STAFF_COLUMNS }),
  } satisfies Kind<StaffRow>,
  businessSource: {
    held: inDirectory((d) => d.businessSources),
    byId: (tx, ids) => tx.businessSource.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<BusinessSource>,
  prospectType: {
    held: inDirectory((d) => d.prospectTypes),
    byId: (tx, ids) => tx.prospectType.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<ProspectType>,
  insurer: {
    held: (ctx) => then(ratingCopy(ctx), insurerById),
    byId: (tx, ids) => tx.insurer.findMany({ where: { id: { in: ids } } }),
  } satisfies Kind<Insurer>,
};

/** One row by id from the database, in a read-only transaction of its own. */
function readOne<T>(ctx: Context, kind: Kind<T>, id: number): Promise<T | null> {
  return ctx.tx(async (tx) => (await kind.byId(tx, [id]))[0] ?? null, { readOnly: true });
}

/**
 * The row `id` points at: a shallow copy of the held row (cached rows are shared and frozen, and GraphQL's layers may
 * mark what they are given), or read by id when the copy lacks it.
 */
function pointedAt<T extends object>(kind: Kind<T>) {
  return (ctx: Context, id: number | null): T | null | Promise<T | null> =>
    id == null
      ? null
      : then(kind.held(ctx), (rows) => {
          const row = rows.get(id);
          return row ? { ...row } : readOne(ctx, kind, id);
        });
}

/**
 * For a GraphQL field: the row a record's column points at. Synchronous when the copy is in memory, as it is on every
 * request but the first after a change.
 */
export const references = {
  branch: pointedAt(KINDS.branch),
  person: pointedAt(KINDS.person),
  businessSource: pointedAt(KINDS.businessSource),
  prospectType: pointedAt(KINDS.prospectType),
  insurer: pointedAt(KINDS.insurer),
};

/** The organisation's directory and its insurers, as a request holds them in hand (InHand) for a compiled read. */
const directoryInHand: InHand<Directory> = {
  name: 'directory',
  hold: directoryOf,
};
const insurersInHand: InHand<Held<Insurer>> = { name: 'insurers', hold: KINDS.insurer.held };

const inHandOf =
  <H, T>(inHand: InHand<H>, pick: (held: H) => Held<T>) =>
  (column: string): { inHandRead: InHandRead<H> } => ({
    inHandRead: {
      inHand,
      read: (row: Record<string, unknown>, held: H) => {
        const id = row[column] as number | null;
        return id == null ? null : (pick(held).get(id) ?? MISSING);
      },
    },
  });

/**
 * For a GraphQL reference field's `extensions`, beside its resolver (`references[kind]` of the same column):
 * `inHandReference.branch('branchId')`. The facade's compiled operations read the row the column points at from the
 * copy the request holds in hand (graphql/column-fields.ts InHandRead), through a getter of the record's row prototype
 * instead of a resolver call per row, and answer through the resolvers instead when the copy lacks it (a row read by
 * id, see readOne). The held rows are the copy's own, shared and frozen: a compiled operation only reads them.
 */
export const inHandReference = {
  branch: inHandOf(directoryInHand, (d) => d.branchById),
  person: inHandOf(directoryInHand, (d) => d.people),
  businessSource: inHandOf(directoryInHand, (d) => d.businessSources),
  prospectType: inHandOf(directoryInHand, (d) => d.prospectTypes),
  insurer: inHandOf(insurersInHand, (i) => i),
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
  const page = async <T extends { id: number }>(kind: Kind<T>) => rowsById(await kind.held(ctx), kind);
  return {
    people: await page(KINDS.person),
    branches: await page(KINDS.branch),
    insurers: await page(KINDS.insurer),
    businessSources: await page(KINDS.businessSource),
  };
}
