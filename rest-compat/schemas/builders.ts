import type { ParameterObject, SchemaObject } from 'openapi3-ts/oas31';
import { MAX_MINOR, MAX_SHILLINGS } from '../../src/lib/money.ts';
import { DATE_TIME_MESSAGE, YMD_MESSAGE } from '../../src/lib/dates.ts';

/** Small builders for the OpenAPI response schemas of the legacy shapes. */
export const str = (description?: string): SchemaObject => ({
  type: 'string',
  ...(description ? { description } : {}),
});
export const int = (description?: string): SchemaObject => ({
  type: 'integer',
  ...(description ? { description } : {}),
});
export const num = (description?: string): SchemaObject => ({
  type: 'number',
  ...(description ? { description } : {}),
});
export const bool = (description?: string): SchemaObject => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});
/** The schema or null; an enum's values include null too, or a 2020-12 validator refuses every null answer. */
export const nullable = (s: SchemaObject): SchemaObject => ({
  ...s,
  type: [s.type as string, 'null'] as never,
  ...(s.enum && !s.enum.includes(null) ? { enum: [...(s.enum as unknown[]), null] } : {}),
});
export const date = (): SchemaObject => ({ type: 'string', format: 'date', description: 'Y-m-d' });
export const timestamp = (): SchemaObject => ({
  type: 'string',
  format: 'date-time',
  description: 'ISO 8601 with offset',
});
/** A date the caller sends (query or body): the one date rule (src/lib/dates.ts isYmd); else 422 naming it. */
export const dateInput = (description?: string): SchemaObject => ({
  type: 'string',
  format: 'date',
  description: `${description ? `${description}: ` : ''}${YMD_MESSAGE}`,
});
/** A date-time the caller sends (query or body): the one date-time rule (parseDateTime); else 422 naming it. */
export const dateTimeInput = (description?: string): SchemaObject => ({
  type: 'string',
  format: 'date-time',
  description: `${description ? `${description}: ` : ''}${DATE_TIME_MESSAGE}`,
});
export const arr = (items: SchemaObject): SchemaObject => ({ type: 'array', items });
export const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
export function obj(
  properties: Record<string, SchemaObject>,
  required: string[] = Object.keys(properties),
  description?: string,
): SchemaObject {
  return { type: 'object', properties, required, ...(description ? { description } : {}) };
}
/** `{data: …}` envelope of single records and reference lists. */
export const dataOf = (s: SchemaObject): SchemaObject => obj({ data: s });
/** Whole shillings plus the `_minor` cents companion (the spec's money convention). */
export function money(name: string, nullableToo = false): Record<string, SchemaObject> {
  const whole = int('Whole shillings, derived from the cents: rounded half away from zero');
  const minor = int('Integer cents (exact)');
  return { [name]: nullableToo ? nullable(whole) : whole, [`${name}_minor`]: nullableToo ? nullable(minor) : minor };
}

/**
 * A request amount in whole shillings: a JSON integer up to MAX_SHILLINGS (its cents a safe JSON integer; docs/
 * api-conventions.md, Money). Above it, or with a fraction, the request is 422 validation_failed naming the field.
 */
export const shillingsIn = (description: string, minimum = 0): SchemaObject => ({
  ...int(description),
  minimum,
  maximum: MAX_SHILLINGS,
});
/** A request amount in cents: a JSON integer up to MAX_MINOR (Number.MAX_SAFE_INTEGER). */
export const centsIn = (description: string, minimum = 0): SchemaObject => ({
  ...int(description),
  minimum,
  maximum: MAX_MINOR,
});

/** A query parameter of a route, as the OpenAPI document lists it. */
export const queryParam = (name: string, schema: SchemaObject, description?: string): ParameterObject => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
});
