import type { MotorQuoteQuery } from '../generated/operations.ts';
import { asObject, type Resolved } from '../route.ts';
import { minor, whole } from './money.ts';

/** What the option mappers of every line share: instalment plans and offers, quoted figures, the server's figures. */

type Option = Resolved<MotorQuoteQuery>['motorQuote']['options'][number];

/** The instalment plans and premium-finance offers of an option, motor or any other line. */
export function instalmentsToRest(o: Pick<Option, 'instalments' | 'ipfOffers' | 'ipfReason'>) {
  return {
    instalments: o.instalments.map((i) => ({
      parts: i.parts,
      amounts: i.amounts.map((a) => a.amount),
      amounts_minor: i.amounts.map((a) => a.amountMinor),
    })),
    ipf_offers: o.ipfOffers.map((x) => ({
      tenor_months: x.tenorMonths,
      deposit: whole(x.deposit),
      deposit_minor: minor(x.deposit),
      instalment: whole(x.instalment),
      instalment_minor: minor(x.instalment),
      apr_bps: x.aprBps,
      lender_name: x.lenderName,
    })),
    ipf_reason: o.ipfReason,
  };
}

/**
 * premium_mismatch: `server` (PremiumMismatchFields, snake_cased by the executor: `{insurer_id, basic_premium: {amount,
 * amount_minor}, …}`) as the REST money pairs.
 */
export function serverFiguresToRest(extra: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(extra.server)) return extra;
  const pair = (name: string, v: unknown) => {
    const m = asObject(v);
    return { [name]: m.amount, [`${name}_minor`]: m.amount_minor };
  };
  return {
    ...extra,
    server: extra.server.map((raw: unknown) => {
      const s = asObject(raw);
      return {
        insurer_id: s.insurer_id,
        ...pair('basic_premium', s.basic_premium),
        ...pair('taxes', s.taxes),
        ...pair('total', s.total),
      };
    }),
  };
}
