/**
 * The cover lines' vocabulary and request bounds, as plain data. The services read requests with it and the REST
 * facade builds its definitions from it (rest-compat/schemas/covers.ts), so the two cannot disagree. Constants
 * only: no rules, no I/O.
 */
import type { MedicalMember, MedicalRiderCode } from './medical/types.ts';
import type { TravelRegion } from './travel/types.ts';

/** Region spellings accepted, in any case, spaces ignored (the REST definition of `region` is built from it). */
export const REGIONS = new Map<string, TravelRegion>([
  ['africa', 'africa'],
  ['schengen', 'schengen'],
  ['europe', 'schengen'],
  ['europe/schengen', 'schengen'],
  ['worldwide', 'worldwide'],
]);

/** Limits on what a request may carry (its shape; what an insurer accepts is its terms). */
export const STANDARD_LIMITS = {
  items: 500,
  headcount: 100_000,
  extensions: 20,
  insurers: 50,
  /** Whole shillings: KES 10 billion an item. */
  sumInsured: 10_000_000_000,
  text: 200,
  idNo: 40,
  code: 40,
} as const;

export type MedicalCoverType = 'family' | 'group';
/** The relationships each cover type takes. */
export const RELATIONSHIPS: Record<MedicalCoverType, readonly MedicalMember['relationship'][]> = {
  family: ['principal', 'spouse', 'child'],
  group: ['employee', 'spouse', 'child'],
};

/** The riders the line knows (each insurer's rate tables say which limits it offers). */
export const RIDER_CODES: readonly MedicalRiderCode[] = ['outpatient', 'maternity', 'dental', 'optical'];
