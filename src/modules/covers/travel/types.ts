import type { CoverRiskBase } from '../line.ts';

/** The request and the normalised risk of single-trip travel (travel.ts re-exports these names). */
export interface TravellerInput {
  name?: string | null;
  /** Y-m-d; or `age` in whole years. */
  dateOfBirth?: string | null;
  age?: number | null;
  passportNo?: string | null;
}

export interface TravelQuoteInput {
  /** A plan code of the insurers' travel products (e.g. BASIC, STANDARD, PREMIER). */
  plan?: string | null;
  /** africa, schengen (Europe/Schengen) or worldwide */
  region?: string | null;
  /** Countries visited, free text (echoed and stored). */
  destination?: string | null;
  /** Y-m-d: first day of cover. */
  departureDate?: string | null;
  /** Y-m-d: last day of cover. */
  returnDate?: string | null;
  travellers?: TravellerInput[] | null;
  insurerIds?: number[] | null;
}

export interface Traveller {
  name: string | null;
  dateOfBirth: string | null;
  ageYears: number;
  /** Age in whole months at departure (the 6-month minimum). */
  ageMonths: number;
  passportNo: string | null;
}

export type TravelRegion = 'africa' | 'schengen' | 'worldwide';

export interface TravelRisk extends CoverRiskBase {
  line: 'travel';
  coverPeriod: 'trip';
  plan: string;
  region: TravelRegion;
  destination: string | null;
  travellers: Traveller[];
}
