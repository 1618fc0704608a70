import { ValidationError } from '../../lib/problem.ts';
import type { RatingData } from './rating-data.ts';

/**
 * A quote's `insurer_ids` filter names insurers of the caller's organisation (GET /insurers). An id it does not know —
 * never one, or another organisation's: the same answer, so nothing leaks — is 422 `validation_failed` on the field,
 * never silently dropped (a caller would get every insurer, or no_quote, without learning why). A known insurer that
 * does not rate the risk simply gives no option, as any refusal.
 */
export function assertKnownInsurers(
  rating: Pick<RatingData, 'insurers'>,
  ids: readonly number[] | null,
  field: string,
) {
  if (!ids) return;
  const known = new Set(rating.insurers.map((i) => i.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length)
    throw new ValidationError([
      { field, message: `no insurer of this organisation has id ${unknown.join(', ')} (GET /insurers lists them)` },
    ]);
}
