import type { RatingCoverProduct, RatingCoverRate } from './line.ts';

/**
 * Reading a cover product's rate rows: the rows of one table (and key), and the row whose inclusive band covers a
 * value. Bands of one table and key must not overlap (the seed and the data checks keep them so); the first match in
 * ascending `from` order wins.
 */
export function rows(product: RatingCoverProduct, table: string, key?: string): RatingCoverRate[] {
  return product.rates
    .filter((r) => r.table === table && (key === undefined || r.key === key))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
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

/** The distinct keys of a table, in first-seen order (limit bands, plans, extension codes). */
export function keysOf(product: RatingCoverProduct, table: string): string[] {
  return [...new Set(rows(product, table).map((r) => r.key))];
}
