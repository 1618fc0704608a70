import type { CoverInsured, CoverLine } from '../line.ts';
import { normaliseTravel } from './normalise.ts';
import { priceTravel, REGION_TRIPS } from './rating.ts';
import type { TravelQuoteInput, TravelRisk } from './types.ts';

export type { Traveller, TravellerInput, TravelQuoteInput, TravelRegion, TravelRisk } from './types.ts';

/**
 * Single-trip travel: one product per insurer (code TRAVEL), cover from departure to return inclusive, priced per
 * traveller by plan, region and trip length with an age loading (rating.ts documents the tables and terms).
 */
export const travelLine: CoverLine<TravelQuoteInput, TravelRisk> = {
  line: 'travel',
  label: 'Travel',
  normalise: normaliseTravel,
  price: priceTravel,
  insured: (risk): CoverInsured[] =>
    risk.travellers.map((t, i) => ({
      kind: 'traveller',
      name: t.name ?? `Traveller ${i + 1}`,
      dateOfBirth: t.dateOfBirth,
      ageYears: t.ageYears,
      idNo: t.passportNo,
    })),
  coverDetails: (risk) => ({
    plan: risk.plan,
    region: risk.region,
    destination: risk.destination,
    departure_date: risk.startDate,
    return_date: risk.endDate,
    days: risk.days,
    travellers: risk.travellers.map((t) => ({
      name: t.name,
      date_of_birth: t.dateOfBirth,
      age: t.ageYears,
      passport_no: t.passportNo,
    })),
  }),
  describe: (risk) => `a ${REGION_TRIPS[risk.region]} (${risk.days} day${risk.days === 1 ? '' : 's'})`,
};
