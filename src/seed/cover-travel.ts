// Data, not logic: exempt from the ~300-line size rule for source files.
import type { DemoCoverProduct } from './cover-types.ts';

/** The travel cover products of the insurer at `insurerIndex` on the panel (figures: covers/travel/rating.ts). */
export function travelProducts(_insurerIndex: number): DemoCoverProduct[] {
  return [];
}
