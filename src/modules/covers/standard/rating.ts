/**
 * Standard products rating (PA, DOMESTIC, WIBA, FIRE, GOLFER, or any code an organisation's catalogue adds): pure
 * arithmetic over one insurer's product, in integer cents. Figures are data (src/seed/cover-standard.ts for the demo).
 *
 * Terms (cover_products.terms):
 * - basis: 'sum_insured' (the premium is a rate of the total sum insured of the items) or 'headcount' (an amount per
 *   person covered: the listed items, or the request's headcount when none are listed).
 * - per_insured (boolean, default false): each listed item or person gets its own share of the premium
 *   (perInsuredMinor), in proportion to its sum insured (sum_insured basis) or equally (headcount basis); otherwise
 *   the policy is priced as a whole.
 * - head_label (text, default 'persons'): what a head is called in the breakdown ('employees').
 * - max_items (optional): the most items or persons one policy may hold; more is refused.
 * - max_item_sum_insured_minor (optional, cents): the highest sum insured of one item or person; more is refused.
 * - extensions: [{code, name, per, limit_minor?}] the optional extensions offered. `per` says what the extension's
 *   rate rows price: 'sum_insured' (rate_bps of the total sum insured, tiered like `base`), 'head' (amount_minor
 *   per head, tiered like `per_head`), 'policy' (amount_minor once, from the row whose band covers the product's
 *   rated quantity). limit_minor (optional) is shown as the extension's benefit limit.
 * - benefits: [{name, limit_minor?}] shown with the option (null limit: as stated).
 *
 * Rate tables (cover_rates), bands inclusive and contiguous from 0 or 1, the last open or closed:
 * - base (key ''), sum_insured basis: bands on the total sum insured in cents, rate_bps each.
 * - per_head (key ''), headcount basis: bands on the number of heads, amount_minor per head.
 * - extension (key = the extension's code): as its `per` says (bands in cents, or heads).
 *
 * Rules:
 * - Tiered (marginal) rating: the quantity is priced slice by slice, each slice at its band's rate (cents of sum
 *   insured × rate_bps, rounded half away from zero to the cent per slice) or amount (heads × amount). So the premium
 *   never falls as the sum insured or the headcount grows, whatever the band figures. A quantity above a closed last
 *   band is refused (the insurer's limit).
 * - basic = max(base + extensions, the product's minimum premium); the difference is the "Minimum premium
 *   adjustment" line. Extensions only ever add.
 * - Refused: a sum_insured product with no items or an item without a sum insured; an extension the product does
 *   not offer; more items than max_items; an item above max_item_sum_insured_minor; a quantity above the last band;
 *   malformed terms or rate rows.
 * - rate_bps shown is the effective rate of the base premium over the total sum insured, to the nearest basis point.
 */
import type { BreakdownLine, Ineligible, LinePriced, RatingCoverProduct } from '../line.ts';
import { rows } from '../rate-table.ts';
import type { StandardRisk } from './types.ts';
import { type ExtensionTerms, isMalformed, parseTerms, type StandardTerms } from './terms.ts';
import { kes, splitByWeight } from '../arith.ts';
import { percent, type RowKind, type Tiering, tier } from './tiers.ts';

const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);

/** What the product rates: cents of total sum insured or heads. */
const headsOf = (risk: StandardRisk) => BigInt(risk.headcount ?? risk.items.length);

/** Why a risk is refused before any figure is read, or null. */
function refusal(t: StandardTerms, risk: StandardRisk): string | null {
  const count = risk.items.length || (risk.headcount ?? 0);
  if (t.maxItems !== null && count > t.maxItems) return `at most ${t.maxItems} ${t.headLabel} a policy`;
  if (t.basis === 'sum_insured') {
    if (!risk.items.length) return 'rated on the sum insured: list the items with their sums insured';
    const missing = risk.items.findIndex((it) => it.sumInsuredMinor === null);
    if (missing >= 0) return `rated on the sum insured: item ${missing + 1} has none`;
  } else if (headsOf(risk) < 1n) return 'rated per head: send the headcount or list the persons';
  const cap = t.maxItemSumInsuredMinor;
  const over = cap === null ? -1 : risk.items.findIndex((it) => (it.sumInsuredMinor ?? 0n) > cap);
  if (over >= 0) return `a sum insured above ${kes(cap!)} an item is not offered (item ${over + 1})`;
  const offered = new Set(t.extensions.map((e) => e.code));
  const unknown = risk.extensions.find((code) => !offered.has(code));
  return unknown ? `the extension "${unknown}" is not offered` : null;
}

/** A tiering's outcome as a refusal, or its slices. */
function sliced(t: Tiering, what: string, unit: (n: bigint) => string) {
  if ('malformed' in t) return { ineligible: `malformed rating data (${what}: ${t.malformed})` };
  if ('above' in t) return { ineligible: `${what} is not offered above ${unit(t.above)}` };
  return t.slices;
}

function basePremium(product: RatingCoverProduct, t: StandardTerms, risk: StandardRisk) {
  const heads = t.basis === 'headcount';
  const quantity = heads ? headsOf(risk) : risk.totalSumInsuredMinor;
  const unit = heads ? (n: bigint) => `${n} ${t.headLabel}` : kes;
  const tiering = tier(rows(product, heads ? 'per_head' : 'base', ''), quantity, heads ? 'amount' : 'rate');
  const slices = sliced(tiering, heads ? 'the headcount' : 'the total sum insured', unit);
  if ('ineligible' in slices) return slices;
  const lines: BreakdownLine[] = slices.map((s) => ({
    item: heads
      ? `Basic premium: ${unit(s.units)} at ${kes(s.row.amountMinor!)} each`
      : `Basic premium: ${kes(s.units)} at ${percent(s.row.rateBps!)}`,
    amountMinor: s.amountMinor,
  }));
  return { lines, amountMinor: sum(lines.map((l) => l.amountMinor)) };
}

function extensionPremium(
  product: RatingCoverProduct,
  t: StandardTerms,
  risk: StandardRisk,
  ext: ExtensionTerms,
): bigint | Ineligible {
  const bands = rows(product, 'extension', ext.code);
  const what = `the extension ${ext.name}`;
  if (ext.per === 'policy') {
    const quantity = t.basis === 'headcount' ? headsOf(risk) : risk.totalSumInsuredMinor;
    const row = bands.find((r) => quantity >= r.from && (r.to === null || quantity <= r.to));
    if (!row || row.amountMinor === null || row.amountMinor < 0n) return { ineligible: `${what} is not offered here` };
    return row.amountMinor;
  }
  const kind: RowKind = ext.per === 'head' ? 'amount' : 'rate';
  const quantity = ext.per === 'head' ? headsOf(risk) : risk.totalSumInsuredMinor;
  const unit = ext.per === 'head' ? (n: bigint) => `${n} ${t.headLabel}` : kes;
  const slices = sliced(tier(bands, quantity, kind), what, unit);
  return 'ineligible' in slices ? slices : sum(slices.map((s) => s.amountMinor));
}

function pricedTerms(product: RatingCoverProduct, t: StandardTerms, risk: StandardRisk) {
  return {
    product: product.code,
    product_name: product.name,
    basis: t.basis,
    total_sum_insured_minor: Number(risk.totalSumInsuredMinor),
    headcount: risk.headcount,
  };
}

function benefitsOf(t: StandardTerms, risk: StandardRisk, chosen: ExtensionTerms[]): LinePriced['benefits'] {
  return [
    ...(t.basis === 'sum_insured' ? [{ name: 'Total sum insured', limitMinor: risk.totalSumInsuredMinor }] : []),
    ...t.benefits,
    ...chosen.map((e) => ({ name: e.name, limitMinor: e.limitMinor })),
  ];
}

/** Prices a standard-product risk on one insurer's product, or says why the insurer refuses it. */
export function priceStandard(product: RatingCoverProduct, risk: StandardRisk): LinePriced | Ineligible {
  const t = parseTerms(product.terms);
  if (isMalformed(t)) return { ineligible: `malformed product terms (${t.malformed})` };
  const refused = refusal(t, risk);
  if (refused) return { ineligible: refused };
  const base = basePremium(product, t, risk);
  if ('ineligible' in base) return base;
  const chosen = t.extensions.filter((e) => risk.extensions.includes(e.code));
  const extensions: { code: string; name: string; amount_minor: number }[] = [];
  const breakdown = [...base.lines];
  for (const ext of chosen) {
    const amount = extensionPremium(product, t, risk, ext);
    if (typeof amount !== 'bigint') return amount;
    extensions.push({ code: ext.code, name: ext.name, amount_minor: Number(amount) });
    breakdown.push({ item: `Extension: ${ext.name}`, amountMinor: amount });
  }
  const subtotal = sum(breakdown.map((l) => l.amountMinor));
  const minimumApplied = subtotal < product.minPremiumMinor;
  if (minimumApplied)
    breakdown.push({ item: 'Minimum premium adjustment', amountMinor: product.minPremiumMinor - subtotal });
  const basicMinor = minimumApplied ? product.minPremiumMinor : subtotal;
  const si = risk.totalSumInsuredMinor;
  const rateBps =
    t.basis === 'sum_insured' && si > 0n ? Number((base.amountMinor * 10_000n * 2n + si) / (2n * si)) : null;
  const weights = risk.items.map((it) => (t.basis === 'sum_insured' ? it.sumInsuredMinor! : 1n));
  return {
    basicMinor,
    rateBps,
    breakdown,
    perInsuredMinor: t.perInsured && weights.length ? splitByWeight(basicMinor, weights) : null,
    terms: { ...pricedTerms(product, t, risk), rate_bps: rateBps, extensions, minimum_applied: minimumApplied },
    benefits: benefitsOf(t, risk, chosen),
  };
}
