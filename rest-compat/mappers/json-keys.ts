/**
 * JSON the core keeps as it understood it (a cover as bound, an option's terms, an insured's details) reaches REST
 * through these: every REST field is snake_case at any depth, whatever spelling the module stored. Only keys spelt in
 * lower camelCase are renamed (`totalSumInsuredMinor` → `total_sum_insured_minor`); snake_case keys and anything
 * else (codes used as keys) pass unchanged, so the rename is safe on JSON already in the REST spelling.
 */
const LOWER_CAMEL = /^[a-z][a-zA-Z0-9]*$/;

export const snakeKey = (k: string): string =>
  LOWER_CAMEL.test(k) ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : k;

/** A copy of a JSON value with every object key, at any depth, in snake_case. */
export function snakeKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(snakeKeys) as T;
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [snakeKey(k), snakeKeys(x)])) as T;
}
