/**
 * Motor rating: pure arithmetic over the tenant's rating data, in integer cents. No I/O, so it is property-tested
 * directly (test/rating.property.test.ts) and shared by quote, save-quote and bind.
 *
 * Rules (figures are data: see the motor_products, motor_rate_bands, motor_tonnage_bands, levies, ipf_* tables):
 * - Comprehensive: basic = max(value × band rate, minimum premium). The band is the first whose inclusive upper bound
 *   covers the value.
 * - TPO/TPFT: the flat premium, or for commercial vehicles with tonnage bands the band covering the tonnage (the
 *   lowest band when no tonnage is given).
 * - Passenger legal liability: seats × the per-seat premium, added to the basic premium.
 * - Levies: each percent levy is basis points of the basic premium, each flat levy its amount; rounded half away
 *   from zero to the cent.
 * - The premium is the annual premium whatever the cover period.
 * - Instalments: for each allowed number of parts, parts 2..n are the total divided evenly and rounded DOWN to a whole
 *   shilling; part 1 takes the rest. So the parts sum exactly to the total in cents, and their whole-shilling
 *   figures sum to the whole-shilling total.
 * - Premium finance: reference/ipf-terms.ts (one arithmetic for the quote's offers, /ipf/quote and loans).
 */
import type { CoverType, TenantType, VehicleClass } from '../../generated/prisma/enums.ts';
import { applyBps } from '../../lib/money.ts';
import { type IpfLenderTerms, ipfOffersFor, splitEvenly } from '../reference/ipf-terms.ts';
import type { RatingLevy } from '../reference/reference.service.ts';

export interface RatingProduct {
  id: number;
  insurerId: number;
  version: number;
  vehicleClass: VehicleClass;
  coverType: CoverType;
  minPremiumMinor: bigint | null;
  flatPremiumMinor: bigint | null;
  pllPerSeatMinor: bigint;
  maxInstalments: number;
  ipfEligible: boolean;
  maxVehicleAgeYears: number | null;
  rateBands: { upToValueMinor: bigint | null; rateBps: number }[];
  tonnageBands: { upToTonnesMilli: number | null; premiumMinor: bigint }[];
}

export type { RatingLevy };

/** A lender's terms as rating reads them (reference/ipf-terms.ts holds the arithmetic). */
export type RatingLender = IpfLenderTerms;

export interface RatingRisk {
  valueMinor: bigint | null;
  tonnesMilli: number | null;
  pll: number;
  yearOfManufacture: number;
  /** Calendar year of the cover start, for the vehicle-age rule. */
  startYear: number;
}

export interface PricedOption {
  productId: number;
  productVersion: number;
  rateBps: number | null;
  basicMinor: bigint;
  pllMinor: bigint;
  taxes: { code: string; name: string; amountMinor: bigint }[];
  taxesMinor: bigint;
  totalMinor: bigint;
  instalments: { parts: number; amountsMinor: bigint[] }[];
  ipfOffers: {
    lenderName: string;
    tenorMonths: number;
    depositMinor: bigint;
    instalmentMinor: bigint;
    aprBps: number;
    chargeMinor: bigint;
  }[];
  ipfReason: string | null;
}

export type Ineligible = { ineligible: string };

const WHOLE = 100n;

function bandFor<T extends { up: bigint | number | null }>(bands: T[], x: bigint | number): T | undefined {
  const sorted = [...bands].sort((a, b) =>
    a.up === null ? 1 : b.up === null ? -1 : a.up < b.up ? -1 : a.up > b.up ? 1 : 0,
  );
  return sorted.find((b) => b.up === null || x <= b.up);
}

export function basicPremium(
  p: RatingProduct,
  risk: RatingRisk,
): { basicMinor: bigint; rateBps: number | null } | Ineligible {
  if (p.coverType === 'comprehensive') {
    if (risk.valueMinor == null || risk.valueMinor <= 0n)
      return { ineligible: 'a vehicle value is needed for comprehensive cover' };
    if (p.maxVehicleAgeYears != null && risk.startYear - risk.yearOfManufacture > p.maxVehicleAgeYears) {
      return { ineligible: `vehicles older than ${p.maxVehicleAgeYears} years are not rated comprehensive` };
    }
    const band = bandFor(
      p.rateBands.map((b) => ({ up: b.upToValueMinor, rateBps: b.rateBps })),
      risk.valueMinor,
    );
    if (!band) return { ineligible: 'no rate band covers this value' };
    const rated = applyBps(risk.valueMinor, band.rateBps);
    const min = p.minPremiumMinor ?? 0n;
    return { basicMinor: rated > min ? rated : min, rateBps: band.rateBps };
  }
  if (p.vehicleClass === 'commercial' && p.tonnageBands.length) {
    const bands = p.tonnageBands.map((b) => ({ up: b.upToTonnesMilli, premiumMinor: b.premiumMinor }));
    const band =
      risk.tonnesMilli == null
        ? [...bands].sort((a, b) => (a.up ?? Infinity) - (b.up ?? Infinity))[0]
        : bandFor(bands, risk.tonnesMilli);
    if (!band) return { ineligible: 'no tonnage band covers this vehicle' };
    return { basicMinor: band.premiumMinor, rateBps: null };
  }
  if (p.flatPremiumMinor == null) return { ineligible: 'no flat premium for this cover' };
  return { basicMinor: p.flatPremiumMinor, rateBps: null };
}

export function levies(
  basicMinor: bigint,
  table: readonly RatingLevy[],
): { code: string; name: string; amountMinor: bigint }[] {
  return itemLevies([basicMinor], table);
}

/**
 * The levies of a premium made of items (each insured's or vehicle's annual basic premium): each percent levy taken
 * item by item, as every later change is priced (policies/proration.ts), and each flat levy once. A levy of the sum
 * can differ by a cent from the sum of the items' levies, and a cancellation, which credits each item's levy, would
 * then not reconcile.
 */
export function itemLevies(
  basics: readonly bigint[],
  table: readonly RatingLevy[],
): { code: string; name: string; amountMinor: bigint }[] {
  return table.map((l) => ({
    code: l.code,
    name: l.name,
    amountMinor:
      l.basis === 'percent' ? basics.reduce((sum, b) => sum + applyBps(b, l.rateBps ?? 0), 0n) : (l.amountMinor ?? 0n),
  }));
}

/** Splits `total` into `parts`: parts 2..n whole shillings, part 1 the remainder (never negative for total ≥ 0). */
export function splitInstalments(totalMinor: bigint, parts: number): bigint[] {
  if (parts < 1) throw new RangeError('parts must be ≥ 1');
  return splitEvenly(totalMinor, parts);
}

export const NOT_OFFERED_TYPES: readonly TenantType[] = ['sacco', 'microfinance'];

export function ipfOffers(
  totalMinor: bigint,
  product: Pick<RatingProduct, 'ipfEligible'>,
  tenantType: TenantType,
  lenders: readonly RatingLender[],
): { offers: PricedOption['ipfOffers']; reason: string | null } {
  if (NOT_OFFERED_TYPES.includes(tenantType)) {
    return { offers: [], reason: 'Premium finance is offered to brokerage and agency organisations only' };
  }
  if (!product.ipfEligible)
    return { offers: [], reason: 'This insurer does not accept premium finance for this cover' };
  if (!lenders.length) return { offers: [], reason: 'No premium-finance lender is on the panel' };
  const offers = ipfOffersFor(totalMinor, lenders).map((o) => ({
    lenderName: o.lenderName,
    tenorMonths: o.tenorMonths,
    depositMinor: o.depositMinor,
    instalmentMinor: o.instalmentMinor,
    aprBps: o.aprBps,
    chargeMinor: o.chargeMinor,
  }));
  if (offers.length) return { offers, reason: null };
  const min = lenders.reduce((m, l) => (l.minPremiumMinor < m ? l.minPremiumMinor : m), lenders[0].minPremiumMinor);
  if (totalMinor < min)
    return {
      offers: [],
      reason: `Premium is below the lenders' minimum of KES ${(min / WHOLE).toLocaleString('en-KE')}`,
    };
  return { offers: [], reason: 'No lender on the panel finances this premium' };
}

export function priceOption(
  product: RatingProduct,
  risk: RatingRisk,
  levyTable: readonly RatingLevy[],
  ctx: { tenantType: TenantType; lenders: readonly RatingLender[] },
): PricedOption | Ineligible {
  const basic = basicPremium(product, risk);
  if ('ineligible' in basic) return basic;
  const pllMinor = BigInt(Math.max(0, risk.pll)) * product.pllPerSeatMinor;
  const basicMinor = basic.basicMinor + pllMinor;
  const taxes = levies(basicMinor, levyTable);
  const taxesMinor = taxes.reduce((s, t) => s + t.amountMinor, 0n);
  const totalMinor = basicMinor + taxesMinor;
  const maxParts = Math.min(4, Math.max(1, product.maxInstalments));
  const instalments = Array.from({ length: maxParts }, (_, i) => ({
    parts: i + 1,
    amountsMinor: splitInstalments(totalMinor, i + 1),
  }));
  const ipf = ipfOffers(totalMinor, product, ctx.tenantType, ctx.lenders);
  return {
    productId: product.id,
    productVersion: product.version,
    rateBps: basic.rateBps,
    basicMinor,
    pllMinor,
    taxes,
    taxesMinor,
    totalMinor,
    instalments,
    ipfOffers: ipf.offers,
    ipfReason: ipf.reason,
  };
}
