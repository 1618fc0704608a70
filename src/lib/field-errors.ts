/**
 * Why a value was refused, as data: a stable code per kind of refusal and a plain message that names no GraphQL type.
 * One table for both ways a value is refused for its shape: a GraphQL variable (src/graphql/variable-errors.ts, where a
 * custom scalar may say what it wants through `extensions.invalidValue`) and a module's zod schema (zod-issues.ts).
 */
export const FIELD_ERROR_MESSAGES = {
  required: 'required',
  not_an_object: 'must be an object',
  unknown_field: 'is not a known field',
  not_a_string: 'must be a string',
  not_a_whole_number: 'must be a whole number',
  out_of_range: 'must be a whole number within its range',
  not_a_number: 'must be a number',
  not_a_boolean: 'must be true or false',
  not_an_id: 'must be a string or a whole number',
  invalid_value: 'is not a valid value',
  invalid_text: 'must not contain the NUL character (U+0000) or an unpaired UTF-16 surrogate',
} as const;

/**
 * The stable code for a number refused against a field's own bounds (docs/api-conventions.md "Errors"), or null when
 * it is within them: `not_a_number` (NaN, ±Infinity), `not_a_whole_number` (a fraction where counts are asked),
 * `too_small` (below `min`), `too_large` (above `max`).
 */
export function boundsCode(
  v: number,
  bounds: { min?: number; max?: number; whole?: boolean },
): 'not_a_number' | 'not_a_whole_number' | 'too_small' | 'too_large' | null {
  if (!Number.isFinite(v)) return 'not_a_number';
  if (bounds.whole && !Number.isInteger(v)) return 'not_a_whole_number';
  if (bounds.min != null && v < bounds.min) return 'too_small';
  if (bounds.max != null && v > bounds.max) return 'too_large';
  return null;
}
