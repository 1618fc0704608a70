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

/**
 * A GraphQL Money's whole shillings and cents, the spec's field pair written out where a record is built
 * (`amount: whole(v), amount_minor: minor(v)`): what moneyPair gives, without a spread of a computed-key object per
 * pair (a page of 25 policy records spreads hundreds of them: issue 28). Null when the money is absent.
 */
export function whole(v: Money): number;
export function whole(v: Money | null | undefined): number | null;
export function whole(v: Money | null | undefined): number | null {
  return v?.amount ?? null;
}
/** The cents of whole's pair. */
export function minor(v: Money): number;
export function minor(v: Money | null | undefined): number | null;
export function minor(v: Money | null | undefined): number | null {
  return v?.amountMinor ?? null;
}

/** A GraphQL Money as the spec's field pair: `{[name]: whole shillings, [name_minor]: cents}`. */
export function moneyPair<N extends string>(name: N, v: Money): Pair<N, number>;
export function moneyPair<N extends string>(name: N, v: Money | null): Pair<N, number | null>;
export function moneyPair<N extends string>(name: N, v: Money | null): Pair<N, number | null> {
  return { [name]: v?.amount ?? null, [`${name}_minor`]: v?.amountMinor ?? null } as Pair<N, number | null>;
}
