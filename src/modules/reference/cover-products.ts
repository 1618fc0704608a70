/** Non-motor cover products as rating reads them (the rating cache holds them; covers/line.ts prices them). */
export type CoverLineCode = 'medical' | 'travel' | 'standard';

export const COVER_LINES: readonly CoverLineCode[] = ['medical', 'travel', 'standard'];

/** One row of a cover product's rate table (cover_rates), as rating reads it. */
export interface RatingCoverRate {
  table: string;
  key: string;
  /** Inclusive band bounds (ages, days, cents, headcount: the table's documentation says which). */
  from: bigint;
  /** Inclusive upper bound; null: and above. */
  to: bigint | null;
  rateBps: number | null;
  amountMinor: bigint | null;
}

/** A cover product with its insurer and rate rows, as the rating cache holds it (never mutate: shared). */
export interface RatingCoverProduct {
  id: number;
  insurerId: number;
  insurer: { id: number; name: string; monogram: string; commissionRateBps: number; status: string };
  productLine: CoverLineCode;
  code: string;
  name: string;
  version: number;
  minPremiumMinor: bigint;
  maxInstalments: number;
  ipfEligible: boolean;
  renewable: boolean;
  excessText: string;
  /** Line-specific terms; each line parses (and validates) its own shape. */
  terms: unknown;
  rates: readonly RatingCoverRate[];
}
