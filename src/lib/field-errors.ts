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
