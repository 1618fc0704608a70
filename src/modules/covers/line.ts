/**
 * The contract every non-motor product line implements (medical, travel, standard products). A line is pure: it
 * validates and normalises its request, and prices one insurer's cover product from that product's rate rows
 * (cover_rates) and terms (cover_products.terms). Everything the lines share — the panel, levies from the tenant's
 * table, instalments, premium finance, saving a quote, binding, the policy record — is written once, around it
 * (covers/quote.service.ts, covers/save-quote.service.ts, policies/bind/cover-bind.ts).
 */
import type { CoverLineCode, RatingCoverProduct } from '../reference/cover-products.ts';

export type { CoverLineCode, RatingCoverProduct, RatingCoverRate } from '../reference/cover-products.ts';
export { COVER_LINES } from '../reference/cover-products.ts';

/** What every line's normalised risk carries. */
export interface CoverRiskBase {
  line: CoverLineCode;
  /** The cover product code to price: medical MEDICAL, travel TRAVEL, standard the product's code (PA, DOMESTIC, …). */
  productCode: string;
  /** annual (medical, standard) or trip (travel: departure to return). */
  coverPeriod: 'annual' | 'trip';
  /** Y-m-d */
  startDate: string;
  /** Y-m-d, inclusive */
  endDate: string;
  /** Days on cover, start to end inclusive. */
  days: number;
  /** Limit to these insurers; null: the whole panel. */
  insurerIds: number[] | null;
}

/** An insured person, traveller or item as the policy stores it (policy_risks). */
export interface CoverInsured {
  kind: 'member' | 'traveller' | 'item';
  name: string;
  relationship?: string | null;
  /** Y-m-d */
  dateOfBirth?: string | null;
  ageYears?: number | null;
  inSchool?: boolean | null;
  idNo?: string | null;
  sumInsuredMinor?: bigint | null;
  details?: Record<string, unknown> | null;
}

/** One line of what makes up a basic premium. */
export interface BreakdownLine {
  item: string;
  amountMinor: bigint;
}

/** A line's price of one product, before levies (the shared code adds levies, instalments and premium finance). */
export interface LinePriced {
  /** The annual (or trip) basic premium in cents, minimum premium applied. */
  basicMinor: bigint;
  /** The rate applied when the premium is a rate of a sum insured; null otherwise. */
  rateBps: number | null;
  /** Itemised basic premium; the amounts sum to basicMinor exactly. */
  breakdown: BreakdownLine[];
  /**
   * Each insured's share of the basic premium, index-aligned with insured(risk), summing to basicMinor exactly (each
   * becomes that person's premium item, what adding or removing them pro-rates); null when the cover is priced as a
   * whole (one premium item for the policy).
   */
  perInsuredMinor: bigint[] | null;
  /** Line-specific terms shown with the option (JSON: numbers, strings, booleans, arrays, objects; no bigint). */
  terms: Record<string, unknown>;
  /** Benefits and their limits (cents; null: unlimited or as stated). */
  benefits: { name: string; limitMinor: bigint | null }[];
}

export type Ineligible = { ineligible: string };

export interface NormaliseOptions {
  /** Prefix of field names in errors (e.g. `medical` gives `medical.members.0.age`). */
  prefix?: string;
  /** Today in Nairobi, Y-m-d (tests pin it). */
  today: string;
  /** A bind: names of insured persons and items are required. */
  forBind?: boolean;
}

export interface CoverLine<I, R extends CoverRiskBase> {
  line: CoverLineCode;
  /** "Medical", "Travel", "Standard products" */
  label: string;
  /** Validates and normalises the request: ValidationError with every field error, in the caller's spelling. */
  normalise(input: I, opts: NormaliseOptions): R;
  /** Prices the risk on one product of the line (already matched on productCode), or says why that insurer refuses it. */
  price(product: RatingCoverProduct, risk: R): LinePriced | Ineligible;
  /** The insured persons, travellers or items the policy will hold, in the request's order. */
  insured(risk: R): CoverInsured[];
  /** The cover as stored on the policy (cover_details) and the saved quote (request): JSON only, no bigint. */
  coverDetails(risk: R): Record<string, unknown>;
  /** A few words for messages: "family medical cover", "a Schengen trip", "a domestic package". */
  describe(risk: R): string;
}

/** Field name with the caller's prefix. */
export const fieldOf = (prefix: string | undefined) => (name: string) => (prefix ? `${prefix}.${name}` : name);
