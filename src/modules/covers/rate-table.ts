import type { RatingCoverProduct, RatingCoverRate } from './line.ts';

/**
 * Reading a cover product's rate rows: the rows of one table (and key), and the row whose inclusive band covers a
 * value. Bands of one table and key must not overlap (the seed and the data checks keep them so); the first match in
 * ascending `from` order wins.
 *
 * Products come from the rating cache, frozen and shared by every request until the rating data changes, so their
 * rows are grouped and sorted once per product (a WeakMap keyed by the product object: a reloaded product is a new
 * object, the old index goes with the old copy) rather than filtered and sorted on every lookup of every quote.
 */
type Index = { byKey: Map<string, RatingCoverRate[]>; byTable: Map<string, RatingCoverRate[]> };

const indexes = new WeakMap<RatingCoverProduct, Index>();
const NONE: readonly RatingCoverRate[] = Object.freeze([]);

const ascending = (a: RatingCoverRate, b: RatingCoverRate) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0);

function indexOf(product: RatingCoverProduct): Index {
  let index = indexes.get(product);
  if (!index) {
    index = { byKey: new Map(), byTable: new Map() };
    for (const r of product.rates) {
      const k = `${r.table}\u0000${r.key}`;
      index.byKey.set(k, [...(index.byKey.get(k) ?? []), r]);
      index.byTable.set(r.table, [...(index.byTable.get(r.table) ?? []), r]);
    }
    for (const list of [...index.byKey.values(), ...index.byTable.values()]) list.sort(ascending);
    indexes.set(product, index);
  }
  return index;
}

/** The rows of `table` (and `key`), ascending by band start. Shared: never mutate. */
export function rows(product: RatingCoverProduct, table: string, key?: string): readonly RatingCoverRate[] {
  const index = indexOf(product);
  return (key === undefined ? index.byTable.get(table) : index.byKey.get(`${table}\u0000${key}`)) ?? NONE;
}

export function bandOf(
  product: RatingCoverProduct,
  table: string,
  key: string,
  value: bigint | number,
): RatingCoverRate | undefined {
  const x = BigInt(value);
  return rows(product, table, key).find((r) => x >= r.from && (r.to === null || x <= r.to));
}

/** The distinct keys of a table, in ascending band order of their first rows (limit bands, plans, extension codes). */
export function keysOf(product: RatingCoverProduct, table: string): string[] {
  return [...new Set(rows(product, table).map((r) => r.key))];
}
