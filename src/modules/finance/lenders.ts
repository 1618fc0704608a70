import type { Context } from '../../context.ts';
import type { IpfLenderTerms } from '../reference/ipf-terms.ts';
import { ratingData } from '../reference/rating-data.ts';
import { IPF_RULES } from './ipf-state.ts';
import { requireFinanceOffered } from './offered.ts';

/**
 * The organisation's lender panel (docs/premium-finance.md "Premium finance: quote, lenders and loans"): the active lenders of the
 * cached rating data (no read of its own), each with only the tenors premium finance offers at all (IPF_RULES: 3–10
 * months, whatever a lender's table says), in the panel's order. The quote prices against exactly this list.
 */
export async function offeredLenders(ctx: Context): Promise<IpfLenderTerms[]> {
  requireFinanceOffered(ctx.principal!);
  const { lenders } = await ratingData(ctx);
  const inRange = (months: number) => months >= IPF_RULES.minTenorMonths && months <= IPF_RULES.maxTenorMonths;
  return lenders.map((l) => ({ ...l, tenors: l.tenors.filter((t) => inRange(t.months)) }));
}
