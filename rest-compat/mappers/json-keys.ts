/**
 * JSON the core keeps as it understood it (a cover as bound, an option's terms, an insured's details) reaches REST
 * through these: every REST field is snake_case at any depth, whatever spelling the module stored. Only keys spelt in
 * lower camelCase are renamed (`totalSumInsuredMinor` → `total_sum_insured_minor`); snake_case keys and anything
 * else (codes used as keys) pass unchanged, so the rename is safe on JSON already in the REST spelling.
 */
const LOWER_CAMEL = /^[a-z][a-zA-Z0-9]*$/;

export const snakeKey = (k: string): string =>
  LOWER_CAMEL.test(k) ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : k;

/** snakeKey's answers for the keys met so far: stored JSON repeats a few dozen keys on every record. Bounded. */
const SNAKE_KEYS = new Map<string, string>();
const SNAKE_KEYS_MAX = 2_000;

function snakeKeyKept(k: string): string {
  let out = SNAKE_KEYS.get(k);
  if (out === undefined) {
    out = snakeKey(k);
    if (SNAKE_KEYS.size < SNAKE_KEYS_MAX) SNAKE_KEYS.set(k, out);
  }
  return out;
}

/** A copy of a JSON value with every object key, at any depth, in snake_case. */
export function snakeKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(snakeKeys) as T;
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, snakeKeyKept(k), snakeKeys((v as Record<string, unknown>)[k]));
  return out as T;
}

/**
 * `o[k] = x` as Object.fromEntries would: an own data property even for the key `__proto__` (stored JSON may hold
 * one), which plain assignment would take as the object's prototype.
 */
export function setOwn(o: Record<string, unknown>, k: string, x: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
  else o[k] = x;
}
