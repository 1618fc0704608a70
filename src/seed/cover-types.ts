/** The shape of the demo cover products' data (cover-medical.ts, cover-travel.ts, cover-standard.ts). */
/** One rate row: the band from..to inclusive (in the table's unit: years, months, days, cents or heads). */
export interface DemoCoverRate {
  table: string;
  key?: string;
  from: bigint | number;
  to: bigint | number | null;
  rateBps?: number;
  amountMinor?: bigint;
}

export interface DemoCoverProduct {
  productLine: 'medical' | 'travel' | 'standard';
  code: string;
  name: string;
  minPremiumMinor: bigint;
  maxInstalments: number;
  ipfEligible: boolean;
  renewable: boolean;
  excessText: string;
  terms: Record<string, unknown>;
  rates: DemoCoverRate[];
}
