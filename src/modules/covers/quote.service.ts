import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { todayNairobi } from '../../lib/dates.ts';
import { ipfOffers, itemLevies, type levies, type PricedOption, splitInstalments } from '../motor/rating.ts';
import { NoQuoteError } from '../motor/quote.service.ts';
import { assertKnownInsurers } from '../reference/insurer-filter.ts';
import { ratingData } from '../reference/rating-data.ts';
import type { CoverLineCode, CoverRiskBase, LinePriced, RatingCoverProduct } from './line.ts';
import { type AnyCoverLine, lineOf } from './lines.ts';

/**
 * One option of a non-motor quote: the line's basic premium on one insurer's product, with the levies of the
 * tenant's table, the instalment plans the product allows and premium finance where offered: the same arithmetic
 * as a motor option (motor/rating.ts levies, splitInstalments, ipfOffers).
 */
export interface CoverOption extends LinePriced {
  productId: number;
  productVersion: number;
  productCode: string;
  productName: string;
  productLine: CoverLineCode;
  insurer: { id: number; name: string; monogram: string; commissionRateBps: number };
  excess: string;
  taxes: PricedOption['taxes'];
  taxesMinor: bigint;
  totalMinor: bigint;
  instalments: PricedOption['instalments'];
  ipfOffers: PricedOption['ipfOffers'];
  ipfReason: string | null;
}

export interface CoverQuote<R extends CoverRiskBase = CoverRiskBase> {
  line: CoverLineCode;
  risk: R;
  options: CoverOption[];
}

const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);

/** A line's price must add up: its breakdown and per-insured shares each sum to its basic premium, to the cent. */
function assertConsistent(line: CoverLineCode, product: RatingCoverProduct, priced: LinePriced): void {
  const bad =
    priced.basicMinor < 0n ||
    sum(priced.breakdown.map((b) => b.amountMinor)) !== priced.basicMinor ||
    (priced.perInsuredMinor !== null && sum(priced.perInsuredMinor) !== priced.basicMinor);
  if (bad) throw new Error(`${line} rating of product ${product.id} does not add up to its basic premium`);
}

function coverOption(
  product: RatingCoverProduct,
  priced: LinePriced,
  table: Parameters<typeof levies>[1],
  fin: { tenantType: Parameters<typeof ipfOffers>[2]; lenders: Parameters<typeof ipfOffers>[3] },
): CoverOption {
  // Levied premium item by premium item (each insured's share, or the cover as a whole): motor/rating.ts itemLevies.
  const taxes = itemLevies(priced.perInsuredMinor ?? [priced.basicMinor], table);
  const taxesMinor = sum(taxes.map((t) => t.amountMinor));
  const totalMinor = priced.basicMinor + taxesMinor;
  const maxParts = Math.min(4, Math.max(1, product.maxInstalments));
  const ipf = ipfOffers(totalMinor, product, fin.tenantType, fin.lenders);
  return {
    ...priced,
    productId: product.id,
    productVersion: product.version,
    productCode: product.code,
    productName: product.name,
    productLine: product.productLine,
    insurer: {
      id: product.insurer.id,
      name: product.insurer.name,
      monogram: product.insurer.monogram,
      commissionRateBps: product.insurer.commissionRateBps,
    },
    excess: product.excessText,
    taxes,
    taxesMinor,
    totalMinor,
    instalments: Array.from({ length: maxParts }, (_, i) => ({
      parts: i + 1,
      amountsMinor: splitInstalments(totalMinor, i + 1),
    })),
    ipfOffers: ipf.offers,
    ipfReason: ipf.reason,
  };
}

/**
 * Prices the risk on every active product of the line (and the risk's product code) of the caller's organisation,
 * cheapest first (ties by insurer name). Rating data as motor reads it: from memory for a quote (`tx` null), checked
 * against the transaction's rating version for a save or a bind. `insurerField` names the caller's insurer filter
 * (a quote's or save quote's `insurer_ids`): an id it does not know is refused on it. A bind passes none: its insurer
 * is the policy's, and an unknown one is no_quote as motor's.
 */
export async function priceCover(
  ctx: Context,
  tx: Tx | null,
  line: AnyCoverLine,
  risk: CoverRiskBase,
  insurerField?: string,
): Promise<{ options: CoverOption[]; refusals: string[] }> {
  const p = ctx.principal!;
  const rating = await ratingData(ctx, tx ?? undefined);
  if (insurerField) assertKnownInsurers(rating, risk.insurerIds, insurerField);
  const wanted = risk.insurerIds ? new Set(risk.insurerIds) : null;
  const options: CoverOption[] = [];
  const refusals: string[] = [];
  for (const product of rating.coverProducts) {
    if (product.productLine !== line.line || product.code !== risk.productCode) continue;
    if (product.insurer.status !== 'active' || (wanted && !wanted.has(product.insurer.id))) continue;
    const priced = line.price(product, risk);
    if ('ineligible' in priced) {
      refusals.push(`${product.insurer.name}: ${priced.ineligible}`);
      continue;
    }
    assertConsistent(line.line, product, priced);
    options.push(coverOption(product, priced, rating.levies, { tenantType: p.tenant.type, lenders: rating.lenders }));
  }
  options.sort((a, b) =>
    a.totalMinor < b.totalMinor ? -1 : a.totalMinor > b.totalMinor ? 1 : a.insurer.name.localeCompare(b.insurer.name),
  );
  return { options, refusals };
}

export function coverNoQuote(line: AnyCoverLine, risk: CoverRiskBase, refusals: string[]): NoQuoteError {
  const what = line.describe(risk);
  return new NoQuoteError(
    refusals.length ? `No insurer rates ${what} (${refusals.join('; ')})` : `No insurer on the panel rates ${what}`,
  );
}

export const coverQuoteService = {
  /** Prices only; nothing is stored. */
  async quote(ctx: Context, code: CoverLineCode, input: unknown): Promise<CoverQuote> {
    const line = lineOf(code);
    const risk = line.normalise(input ?? {}, { today: todayNairobi() });
    const { options, refusals } = await priceCover(ctx, null, line, risk, 'insurer_ids');
    if (!options.length) throw coverNoQuote(line, risk, refusals);
    return { line: code, risk, options };
  },
};
