// Data, not logic: exempt from the ~300-line size rule for source files.
import type { DemoCoverProduct } from './cover-types.ts';

/** The medical cover products of the insurer at `insurerIndex` on the panel (figures: covers/medical/rating.ts). */
export function medicalProducts(_insurerIndex: number): DemoCoverProduct[] {
  return [];
}
