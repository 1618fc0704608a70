/**
 * Single-trip travel rating: pure arithmetic over one insurer's travel product (code TRAVEL: its terms and rate
 * rows), in integer cents. No I/O: property-tested directly (test/covers-travel-rating.test.ts) and shared by quote,
 * save-quote and bind through travelLine. Demo figures: src/seed/cover-travel.ts.
 *
 * Rate tables (cover_rates):
 * - `trip`: key `<PLAN>:<region>` (plan code in upper case, region africa | schengen | worldwide); from..to = the
 *   trip's length in days, departure to return inclusive; amountMinor = the premium per traveller, cents. A plan and
 *   region without rows, or a trip in no band, is not rated (the insurer refuses).
 * - `age_loading`: key '' (none); from..to = age in whole months at departure; rateBps = the loading on that
 *   traveller's premium (0: base rate). A traveller in no band (the demo: under 6 months, over 80 years) makes the
 *   insurer refuse the trip: "travellers aged 6 months to 80 years only".
 *
 * Terms (cover_products.terms; parsed by terms.ts, malformed terms are a refusal):
 * - `plans`: [{code, name, medical_limit_eur, benefits?: [text]}]: the plans offered, code matched in any case;
 *   medical_limit_eur is the emergency medical limit in whole euros, benefits are shown as stated.
 * - `schengen_min_medical_eur`: the medical limit a Schengen visa asks (EUR 30,000). A plan below it is refused for
 *   region schengen; terms without it rate no Schengen trip. Limits are in euros so the check compares like with
 *   like (no exchange rate in rating).
 *
 * Rules: each traveller's premium = the trip band's amount + its age loading (applyBps: half away from zero to the
 * cent). basic = the sum, at least the product's minimum premium; a lift to the minimum is shared over the
 * travellers in proportion to their premiums (rounded down, the remainder to the first; evenly when all are zero).
 */
import { applyBps } from '../../../lib/money.ts';
import { kes, liftToMinimum } from '../arith.ts';
import type { BreakdownLine, Ineligible, LinePriced, RatingCoverProduct, RatingCoverRate } from '../line.ts';
import { bandOf, rows } from '../rate-table.ts';
import { parseTravelTerms, type TravelPlan } from './terms.ts';
import type { Traveller, TravelRegion, TravelRisk } from './types.ts';

const TRIP = 'trip';
const AGE_LOADING = 'age_loading';

/** How messages and describe() name a trip to a region. */
export const REGION_TRIPS: Record<TravelRegion, string> = {
  africa: 'trip within Africa',
  schengen: 'Schengen trip',
  worldwide: 'worldwide trip',
};

const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const euros = (n: number) => `EUR ${n.toLocaleString('en-US')}`;

/** A plan's medical limit against the Schengen minimum: the refusal, or null when the trip may be rated. */
function schengenRefusal(plan: TravelPlan, min: number | null, region: TravelRegion): string | null {
  if (region !== 'schengen') return null;
  if (min === null) return 'its terms state no Schengen minimum medical limit (schengen_min_medical_eur)';
  if (plan.medicalLimitEur >= min) return null;
  return (
    `the ${plan.name} plan's medical limit (${euros(plan.medicalLimitEur)}) is below the Schengen visa minimum ` +
    `of ${euros(min)}`
  );
}

/** The trip's band of the plan and region, or why there is none. */
function tripBand(product: RatingCoverProduct, plan: TravelPlan, risk: TravelRisk): RatingCoverRate | string {
  const key = `${plan.code}:${risk.region}`;
  const band = bandOf(product, TRIP, key, risk.days);
  if (band) {
    if (band.amountMinor !== null && band.amountMinor >= 0n) return band;
    return `its ${key} band of ${band.from}–${band.to ?? ''} days has no premium`;
  }
  const table = rows(product, TRIP, key);
  if (!table.length) return `does not rate the ${plan.name} plan for a ${REGION_TRIPS[risk.region]}`;
  return `does not rate a trip of ${plural(risk.days, 'day')} on the ${plan.name} plan`;
}

/** An age band's bound in words: "6 months", "70 years", "1 year 3 months". */
function ageWords(months: bigint): string {
  const [y, m] = [Number(months / 12n), Number(months % 12n)];
  return [y ? plural(y, 'year') : '', m || !y ? plural(m, 'month') : ''].filter(Boolean).join(' ');
}

/** An upper bound in words: 971 months (80 years 11 months) reads "80 years", i.e. up to the 81st birthday. */
const upperWords = (hi: bigint) =>
  (hi + 1n) % 12n === 0n ? plural(Number((hi + 1n) / 12n) - 1, 'year') : ageWords(hi);

function ageRefusal(bands: readonly RatingCoverRate[], t: Traveller, i: number): string {
  const lo = bands[0].from;
  const hi = bands.some((b) => b.to === null) ? null : bands.reduce((x, b) => (b.to! > x ? b.to! : x), 0n);
  const months = BigInt(t.ageMonths);
  if (months >= lo && (hi === null || months <= hi)) return `does not rate the age of traveller ${i + 1}`;
  const range = hi === null ? `${ageWords(lo)} and over` : `${ageWords(lo)} to ${upperWords(hi)}`;
  const age = t.ageYears ? String(t.ageYears) : `${plural(t.ageMonths, 'month')} old`;
  return `travellers aged ${range} only (traveller ${i + 1} is ${age})`;
}

/** Each traveller's age loading in basis points, or why the insurer refuses one of them. */
function loadings(product: RatingCoverProduct, travellers: readonly Traveller[]): number[] | string {
  const bands = rows(product, AGE_LOADING, '');
  if (!bands.length) return 'its rates have no age bands (age_loading)';
  const out: number[] = [];
  for (const [i, t] of travellers.entries()) {
    const band = bandOf(product, AGE_LOADING, '', t.ageMonths);
    if (!band) return ageRefusal(bands, t, i);
    const bps = band.rateBps;
    if (bps === null || !Number.isSafeInteger(bps) || bps < -10_000)
      return `its age band of ${band.from}–${band.to ?? ''} months has no valid loading`;
    out.push(bps);
  }
  return out;
}

function breakdownOf(base: bigint, loads: { bps: number; amountMinor: bigint }[], lift: bigint): BreakdownLine[] {
  const lines: BreakdownLine[] = [
    {
      item: `Base premium (${plural(loads.length, 'traveller')} × ${kes(base)})`,
      amountMinor: base * BigInt(loads.length),
    },
  ];
  for (const bps of [...new Set(loads.map((l) => l.bps))].filter((b) => b !== 0).sort((a, b) => a - b)) {
    const loaded = loads.filter((l) => l.bps === bps);
    lines.push({
      item: `Age loading ${bps > 0 ? '+' : '−'}${Math.abs(bps) / 100} % (${plural(loaded.length, 'traveller')})`,
      amountMinor: sum(loaded.map((l) => l.amountMinor)),
    });
  }
  if (lift > 0n) lines.push({ item: 'Minimum premium adjustment', amountMinor: lift });
  return lines;
}

/** Prices a trip on one insurer's travel product, or says why that insurer refuses it. */
export function priceTravel(product: RatingCoverProduct, risk: TravelRisk): LinePriced | Ineligible {
  const terms = parseTravelTerms(product.terms);
  if ('malformed' in terms) return { ineligible: `its travel terms are malformed: ${terms.malformed}` };
  const plan = terms.plans.find((p) => p.code === risk.plan);
  if (!plan) return { ineligible: `does not offer a ${risk.plan} plan (${terms.plans.map((p) => p.code).join(', ')})` };
  const schengen = schengenRefusal(plan, terms.schengenMinMedicalEur, risk.region);
  if (schengen) return { ineligible: schengen };
  const band = tripBand(product, plan, risk);
  if (typeof band === 'string') return { ineligible: band };
  const bps = loadings(product, risk.travellers);
  if (typeof bps === 'string') return { ineligible: bps };
  const base = band.amountMinor!;
  const loads = bps.map((b) => ({ bps: b, amountMinor: applyBps(base, b) }));
  const { shares, liftMinor } = liftToMinimum(
    loads.map((l) => base + l.amountMinor),
    product.minPremiumMinor,
  );
  return {
    basicMinor: sum(shares),
    rateBps: null,
    breakdown: breakdownOf(base, loads, liftMinor),
    perInsuredMinor: shares,
    terms: {
      plan: plan.code,
      plan_name: plan.name,
      region: risk.region,
      destination: risk.destination,
      medical_limit: plan.medicalLimitEur,
      medical_limit_currency: 'EUR',
      days: risk.days,
      day_band: { from: Number(band.from), to: band.to === null ? null : Number(band.to) },
      premium_per_traveller_minor: Number(base),
      travellers: risk.travellers.map((t, i) => ({ name: t.name, age: t.ageYears, loading_bps: bps[i] })),
    },
    benefits: [
      { name: `Emergency medical expenses, ${euros(plan.medicalLimitEur)}`, limitMinor: null },
      ...plan.benefits.map((name) => ({ name, limitMinor: null })),
    ],
  };
}
