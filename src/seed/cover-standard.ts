// Data, not logic: exempt from the ~300-line size rule for source files.
import type { DemoCoverProduct } from './cover-types.ts';

/** The standard cover products of the insurer at `insurerIndex` on the panel (figures: covers/standard/rating.ts). */
export function standardProducts(_insurerIndex: number): DemoCoverProduct[] {
  return [];
}
