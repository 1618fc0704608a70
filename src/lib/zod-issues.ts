import type { z } from 'zod';
import { FIELD_ERROR_MESSAGES } from './field-errors.ts';
import type { FieldError } from './problem.ts';

/**
 * Zod issues as field errors of the same kind the facade gives a refused variable (src/graphql/variable-errors.ts):
 * a stable `code` and plain words. A message a schema gives in its own words (`.refine(f, 'our words')`,
 * `.min(1, 'required')`) is kept; zod's own wording ("Invalid option: expected one of …", "Too big: …") never
 * reaches a caller. docs/api-conventions.md has the table of codes.
 */

/** Codes zod refusals carry beyond the variable-coercion ones (listed in the OpenAPI document with them). */
export const ZOD_FIELD_CODES = ['too_small', 'too_large'] as const;

type Issue = z.core.$ZodRawIssue;

/** "must be at least 3", "must be at most 2000 characters", "must have at least 1 item". */
function bound(origin: string, words: string, n: number | bigint): string {
  const unit = origin === 'string' ? 'character' : origin === 'array' || origin === 'set' ? 'item' : '';
  if (!unit) return `must be ${words} ${n}`;
  const verb = unit === 'item' ? 'have' : 'be';
  return `must ${verb} ${words} ${n} ${unit}${Number(n) === 1 ? '' : 's'}`;
}

/** Plain words for an issue a schema did not word itself (zod's per-parse error map: a schema's own message wins). */
export function plainIssueMessage(iss: Issue): string {
  if (iss.input === undefined || (iss.input === null && iss.code === 'invalid_type')) return 'required';
  switch (iss.code) {
    case 'invalid_type': {
      const code = TYPE_CODES[iss.expected];
      if (code) return FIELD_ERROR_MESSAGES[code];
      return iss.expected === 'array' ? 'must be a list' : FIELD_ERROR_MESSAGES.invalid_value;
    }
    case 'invalid_value':
      return `must be one of: ${iss.values.map(String).join(', ')}`;
    case 'too_small':
      if (iss.origin === 'string' && Number(iss.minimum) === 1) return 'must not be empty';
      return bound(iss.origin, iss.exact ? 'exactly' : iss.inclusive === false ? 'more than' : 'at least', iss.minimum);
    case 'too_big':
      return bound(iss.origin, iss.exact ? 'exactly' : iss.inclusive === false ? 'less than' : 'at most', iss.maximum);
    case 'unrecognized_keys':
      return 'is not a known field';
    case 'not_multiple_of':
      return `must be a multiple of ${iss.divisor}`;
    default:
      return 'is not a valid value';
  }
}

const TYPE_CODES: Record<string, keyof typeof FIELD_ERROR_MESSAGES> = {
  string: 'not_a_string',
  number: 'not_a_number',
  int: 'not_a_whole_number',
  boolean: 'not_a_boolean',
  object: 'not_an_object',
};

/** The stable code of a (final) issue; a schema's own words with no kind of their own (`custom`) carry none. */
function issueCode(i: z.core.$ZodIssue): string | undefined {
  if (i.message === 'required') return 'required';
  switch (i.code) {
    case 'invalid_type':
      return TYPE_CODES[i.expected] ?? 'invalid_value';
    case 'invalid_value':
      return 'not_one_of';
    case 'too_small':
      return 'too_small';
    case 'too_big':
      return 'too_large';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'custom':
      // A schema's own rule with a kind of its own says so (`.refine(f, { message, params: { code } })`: a date's
      // `invalid_value`); others carry none.
      return typeof i.params?.code === 'string' ? i.params.code : undefined;
    default:
      return 'invalid_value';
  }
}

/**
 * zod's `int()` bounds every whole number by ±(2^53 − 1) of its own: beside a field's own bound (`amount`, 1 to
 * 250,000 shillings) a huge value drew both, the first naming a bound the field does not have.
 */
function implicitIntBound(i: z.core.$ZodIssue): boolean {
  return (
    (i.code === 'too_big' && Number(i.maximum) === Number.MAX_SAFE_INTEGER) ||
    (i.code === 'too_small' && Number(i.minimum) === Number.MIN_SAFE_INTEGER)
  );
}

/**
 * One field error per issue (per unknown key), path dotted in the input's own spelling; `body` for the whole (as a
 * body that is not an object is named). zod's implicit whole-number bound is left out where the field has an issue of
 * its own (implicitIntBound).
 */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const key = (i: z.core.$ZodIssue) => i.path.map(String).join('.');
  const ownIssue = new Set(issues.filter((i) => !implicitIntBound(i)).map(key));
  return issues.flatMap((i) => {
    if (implicitIntBound(i) && ownIssue.has(key(i))) return [];
    const path = i.path.map(String);
    const field = path.join('.') || 'body';
    const code = issueCode(i);
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => ({ field: [...path, k].join('.'), code: 'unknown_field', message: i.message }));
    return [code ? { field, code, message: i.message } : { field, message: i.message }];
  });
}
