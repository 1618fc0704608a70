type GqlMoney = { amount: number; amountMinor: string | number } | null | undefined;

/** A GraphQL Money as the spec's nested money object: `{amount, amount_minor}` (nulls when absent). */
export function moneyObject(v: GqlMoney): { amount: number | null; amount_minor: number | null } {
  return { amount: v?.amount ?? null, amount_minor: v == null ? null : Number(v.amountMinor) };
}

/** A GraphQL Money as the spec's field pair: `{[name]: whole shillings, [name_minor]: cents}`. */
export function moneyPair(name: string, v: GqlMoney): Record<string, number | null> {
  const x = moneyObject(v);
  return { [name]: x.amount, [`${name}_minor`]: x.amount_minor };
}
