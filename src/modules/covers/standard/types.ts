import type { CoverRiskBase } from '../line.ts';

/** An insured item (or, for person-based products, an insured person) as sent. */
export interface StandardItemInput {
  /** What is insured: "Household contents", "Golf equipment", a person's name. */
  description?: string | null;
  /** Whole shillings. */
  sumInsured?: number | null;
  idNo?: string | null;
}

export interface StandardQuoteInput {
  /** The standard product's code (GET /products standard_products[].code): PA, DOMESTIC, WIBA, FIRE, GOLFER. */
  product?: string | null;
  items?: StandardItemInput[] | null;
  /** Headcount-driven products (WIBA): employees covered, when not listed as items. */
  headcount?: number | null;
  /** Optional extensions by code (the product's terms list them). */
  extensions?: string[] | null;
  startDate?: string | null;
  insurerIds?: number[] | null;
}

export interface StandardItem {
  description: string | null;
  sumInsuredMinor: bigint | null;
  idNo: string | null;
}

export interface StandardRisk extends CoverRiskBase {
  line: 'standard';
  items: StandardItem[];
  headcount: number | null;
  totalSumInsuredMinor: bigint;
  extensions: string[];
}
