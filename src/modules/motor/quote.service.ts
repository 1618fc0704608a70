import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { CoverType, VehicleClass } from '../../generated/prisma/enums.ts';
import { addDays, annualEnd, isYmd, todayNairobi, YMD_MESSAGE } from '../../lib/dates.ts';
import { boundsCode } from '../../lib/field-errors.ts';
import { fromShillings } from '../../lib/money.ts';
import { AppError, type FieldError, ValidationError } from '../../lib/problem.ts';
import { type MotorKind, parseKind, parseScope, ratingClass } from './classify.ts';
import { VEHICLE_VALUE_RULE } from './vocabulary.ts';
import { type PricedOption, priceOption } from './rating.ts';
import { assertKnownInsurers } from '../reference/insurer-filter.ts';
import { ratingData, type RatingProductRow } from '../reference/rating-data.ts';

/** The quote request as the caller spelled it (GraphQL input; REST maps its legacy names onto this). */
export interface MotorQuoteInput {
  class?: string | null;
  coverage?: string | null;
  scope?: string | null;
  coverPeriod?: string | null;
  days?: number | null;
  year?: number | null;
  value?: number | null;
  tonnage?: number | null;
  pll?: number | null;
  insurerIds?: number[] | null;
  startDate?: string | null;
}

export interface MotorRisk {
  kind: MotorKind;
  classLabel: string;
  coverage: string;
  scopeLabel: string;
  vehicleClass: VehicleClass;
  coverType: CoverType;
  coverPeriod: 'annual' | 'tor';
  days: number;
  startDate: string;
  endDate: string;
  year: number;
  valueMinor: bigint | null;
  tonnage: number | null;
  pll: number;
  insurerIds: number[] | null;
}

export interface QuotedOption extends PricedOption {
  insurer: { id: number; name: string; monogram: string; commissionRateBps: number };
  vehicleClass: VehicleClass;
  coverType: CoverType;
  valueMinor: bigint | null;
  tonnage: number | null;
  pll: number;
  excess: string;
  benefits: { id: string; name: string }[];
  limitsOfLiability: { benefitId: string; item: string; limitMinor: bigint | null }[];
}

export interface MotorQuote {
  risk: MotorRisk;
  options: QuotedOption[];
}

export class NoQuoteError extends AppError {
  constructor(detail: string) {
    super('no_quote', { detail });
  }
}

/** Validates and normalises a quote request (field errors in the caller's spelling, prefixed when nested). */
export function normaliseRisk(input: MotorQuoteInput, opts: { prefix?: string; today?: string } = {}): MotorRisk {
  const f = (name: string) => (opts.prefix ? `${opts.prefix}.${name}` : name);
  const errors: FieldError[] = [];
  const kind = parseKind(input.class);
  if (!kind)
    errors.push({
      field: f('class'),
      code: input.class == null ? 'required' : 'invalid_value',
      message: 'one of Motor, Tuktuk, Motorcycle',
    });
  const coverage = input.coverage?.trim() || 'Private';
  const vehicleClass = kind ? ratingClass(kind, coverage) : null;
  if (kind && !vehicleClass)
    errors.push({
      field: f('coverage'),
      message: 'Private, a commercial class (e.g. own goods) or a PSV class (e.g. matatu, taxi)',
    });
  const coverType = parseScope(input.scope);
  if (!coverType)
    errors.push({
      field: f('scope'),
      code: input.scope == null ? 'required' : 'invalid_value',
      message: 'Comprehensive or TPO (third party only)',
    });
  const period = (input.coverPeriod ?? 'annual').toString().trim().toLowerCase();
  if (period !== 'annual' && period !== 'tor')
    errors.push({ field: f('cover_period'), code: 'invalid_value', message: 'annual or tor' });
  if (period === 'tor') {
    const code = input.days == null ? 'required' : boundsCode(input.days, { whole: true, min: 1, max: 364 });
    if (code) errors.push({ field: f('days'), code, message: 'time-on-risk cover needs days, 1–364' });
  }
  const today = opts.today ?? todayNairobi();
  const thisYear = Number(today.slice(0, 4));
  const yearCode =
    input.year == null ? 'required' : boundsCode(input.year, { whole: true, min: 1950, max: thisYear + 1 });
  if (yearCode) errors.push({ field: f('year'), code: yearCode, message: `year of manufacture, 1950–${thisYear + 1}` });
  const valueCode = input.value == null ? null : boundsCode(input.value, { min: 0.01, max: 1_000_000_000 });
  if (valueCode) errors.push({ field: f('value'), code: valueCode, message: VEHICLE_VALUE_RULE });
  if (coverType && coverType !== 'tpo' && input.value == null)
    errors.push({ field: f('value'), code: 'required', message: 'required for comprehensive cover' });
  const tonnageCode = input.tonnage == null ? null : boundsCode(input.tonnage, { min: 0, max: 200 });
  if (tonnageCode) errors.push({ field: f('tonnage'), code: tonnageCode, message: 'tonnes, 0–200' });
  const pllCode = input.pll == null ? null : boundsCode(input.pll, { whole: true, min: 0, max: 200 });
  if (pllCode) errors.push({ field: f('pll'), code: pllCode, message: 'number of passengers, 0–200' });
  let startDate = today;
  if (input.startDate != null) {
    if (!isYmd(input.startDate)) errors.push({ field: f('start_date'), code: 'invalid_value', message: YMD_MESSAGE });
    else if (input.startDate > today) startDate = input.startDate;
  }
  if (errors.length) throw new ValidationError(errors);
  const coverPeriod = period as 'annual' | 'tor';
  const days = coverPeriod === 'tor' ? input.days! : 0;
  const endDate = coverPeriod === 'tor' ? addDays(startDate, days) : annualEnd(startDate);
  return {
    kind: kind!,
    classLabel: input.class!.trim(),
    coverage,
    scopeLabel: input.scope!.trim(),
    vehicleClass: vehicleClass!,
    coverType: coverType!,
    coverPeriod,
    days:
      coverPeriod === 'tor'
        ? days
        : Math.round((Date.parse(`${endDate}T00:00:00Z`) - Date.parse(`${startDate}T00:00:00Z`)) / 86_400_000) + 1,
    startDate,
    endDate,
    year: input.year!,
    valueMinor: input.value != null ? fromShillings(input.value) : null,
    tonnage: input.tonnage ?? null,
    pll: input.pll ?? 0,
    insurerIds: input.insurerIds?.length ? [...new Set(input.insurerIds)] : null,
  };
}

/**
 * Prices every product of the caller's organisation that rates the risk, cheapest first. The rating data comes from
 * ratingData(): from memory for a quote (`tx` null), checked against the transaction's rating version otherwise.
 * `insurerField` names a quote's insurer filter: an id the organisation does not have is refused on it (a bind's
 * insurer is the policy's, and an unknown one is no_quote).
 */
export async function priceRisk(
  ctx: Context,
  tx: Tx | null,
  risk: MotorRisk,
  insurerField?: string,
): Promise<{ options: QuotedOption[]; refusals: string[] }> {
  const p = ctx.principal!;
  const rating = await ratingData(ctx, tx ?? undefined);
  if (insurerField) assertKnownInsurers(rating, risk.insurerIds, insurerField);
  const wanted = risk.insurerIds ? new Set(risk.insurerIds) : null;
  const products = rating.products.filter(
    (product) =>
      product.vehicleClass === risk.vehicleClass &&
      product.coverType === risk.coverType &&
      product.insurer.status === 'active' &&
      (!wanted || wanted.has(product.insurer.id)),
  );
  const tonnesMilli = risk.tonnage == null ? null : Math.round(risk.tonnage * 1000);
  const options: QuotedOption[] = [];
  const refusals: string[] = [];
  for (const product of products) {
    const priced = priceOption(
      product,
      {
        valueMinor: risk.valueMinor,
        tonnesMilli,
        pll: risk.pll,
        yearOfManufacture: risk.year,
        startYear: Number(risk.startDate.slice(0, 4)),
      },
      rating.levies,
      { tenantType: p.tenant.type, lenders: rating.lenders },
    );
    if ('ineligible' in priced) {
      refusals.push(`${product.insurer.name}: ${priced.ineligible}`);
      continue;
    }
    options.push(quotedOption(product, priced, risk));
  }
  options.sort((a, b) =>
    a.totalMinor < b.totalMinor ? -1 : a.totalMinor > b.totalMinor ? 1 : a.insurer.name.localeCompare(b.insurer.name),
  );
  return { options, refusals };
}

function quotedOption(product: RatingProductRow, priced: PricedOption, risk: MotorRisk): QuotedOption {
  // Spelled out rather than spread: five options per quote, and the spread was the costliest line of the quote path.
  return {
    productId: priced.productId,
    productVersion: priced.productVersion,
    rateBps: priced.rateBps,
    basicMinor: priced.basicMinor,
    pllMinor: priced.pllMinor,
    taxes: priced.taxes,
    taxesMinor: priced.taxesMinor,
    totalMinor: priced.totalMinor,
    instalments: priced.instalments,
    ipfOffers: priced.ipfOffers,
    ipfReason: priced.ipfReason,
    insurer: {
      id: product.insurer.id,
      name: product.insurer.name,
      monogram: product.insurer.monogram,
      commissionRateBps: product.insurer.commissionRateBps,
    },
    vehicleClass: product.vehicleClass,
    coverType: product.coverType,
    valueMinor: risk.valueMinor,
    tonnage: risk.tonnage,
    pll: risk.pll,
    excess: product.excessText,
    benefits: product.benefits.map((b, i) => ({ id: product.benefitIds[i], name: b.name })),
    limitsOfLiability: product.benefits.map((b, i) => ({
      benefitId: product.benefitIds[i],
      item: b.name,
      limitMinor: b.limitMinor,
    })),
  };
}

export function noQuote(risk: MotorRisk, refusals: string[]): NoQuoteError {
  const what = `${risk.vehicleClass} ${risk.coverType === 'tpo' ? 'third party only' : risk.coverType}`;
  return new NoQuoteError(
    refusals.length
      ? `No insurer rates this ${what} risk (${refusals.join('; ')})`
      : `No insurer on the panel rates ${what} cover`,
  );
}

export const motorQuoteService = {
  /** Prices only; nothing is stored. */
  async quote(ctx: Context, input: MotorQuoteInput): Promise<MotorQuote> {
    const risk = normaliseRisk(input);
    // No transaction: a quote stores nothing, and the rating data is served from memory.
    const { options, refusals } = await priceRisk(ctx, null, risk, 'insurer_ids');
    if (!options.length) throw noQuote(risk, refusals);
    return { risk, options };
  },
};
