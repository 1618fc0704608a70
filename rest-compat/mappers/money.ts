import type { MoneyFieldsFragment } from '../generated/operations.ts';

/**
 * Money as the core gives it (`MoneyFields`): whole shillings already rounded by src/lib/money.ts, and the cents. The
 * facade only renames: it never computes an amount.
 */
type Money = MoneyFieldsFragment;

/** A GraphQL Money as the spec's nested money object: `{amount, amount_minor}` (nulls when absent). */
export function moneyObject(v: Money): { amount: number; amount_minor: number };
export function moneyObject(v: Money | null): { amount: number | null; amount_minor: number | null };
export function moneyObject(v: Money | null): { amount: number | null; amount_minor: number | null } {
  return { amount: v?.amount ?? null, amount_minor: v?.amountMinor ?? null };
}

type Pair<N extends string, T> = { [K in N | `${N}_minor`]: T };

/** A GraphQL Money as the spec's field pair: `{[name]: whole shillings, [name_minor]: cents}`. */
export function moneyPair<N extends string>(name: N, v: Money): Pair<N, number>;
export function moneyPair<N extends string>(name: N, v: Money | null): Pair<N, number | null>;
export function moneyPair<N extends string>(name: N, v: Money | null): Pair<N, number | null> {
  return { [name]: v?.amount ?? null, [`${name}_minor`]: v?.amountMinor ?? null } as Pair<N, number | null>;
}
