import type { ParameterObject, SchemaObject } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { MAX_MINOR, MAX_SHILLINGS } from '../../src/lib/money.ts';
import { DATE_TIME_MESSAGE, isYmd, YMD_MESSAGE } from '../../src/lib/dates.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';

/**
 * The builders of the REST payloads: each makes a zod schema, the ONE definition of a payload. The OpenAPI document
 * is generated from it (zod's JSON Schema output, rest-compat/schemas/json-schema.ts), the facade validates and
 * coerces a request body with it (rest-compat/executor.ts), and a mapper's answer is typed by it (`z.input` of the
 * route's response schema, route.ts). docs/api-conventions.md "Where the contract is defined".
 */
export type Schema = z.ZodType;
/** What goes over the wire for a definition: a mapper's answer is typed `Wire<typeof SavedPolicy>`. */
export type Wire<S extends z.ZodType> = z.input<S>;

/** A plain OpenAPI schema object not yet written as zod: documented as it is, checked by nothing (transitional). */
export const json = (s: SchemaObject): z.ZodUnknown => z.unknown().meta(s as Record<string, unknown>);

const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType;
/** A zod schema as it is; a plain schema object wrapped (see `json`). */
type AsZod<S> = S extends z.ZodType ? S : z.ZodUnknown;
export const asZod = <S extends Schema | SchemaObject>(s: S): AsZod<S> => (isZod(s) ? s : json(s)) as AsZod<S>;

const described = <S extends z.ZodType>(s: S, description?: string): S => (description ? s.describe(description) : s);
/** `s` with a description (a `$ref`'d component keeps its own and gains this one where it is used). */
export const describe = <S extends z.ZodType>(s: S, description: string): S => s.describe(description);

export const str = (description?: string) => described(z.string(), description);
export const int = (description?: string) => described(z.int(), description);
export const num = (description?: string) => described(z.number(), description);
export const bool = (description?: string) => described(z.boolean(), description);
/** One of these strings. */
export const oneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  described(z.enum(values as unknown as readonly [T[number], ...T[number][]]), description);
/** Any of these (a body that may match several, e.g. a specialised problem and the common one). */
export const anyOf = <const T extends readonly [Schema, Schema, ...Schema[]]>(schemas: T, description?: string) =>
  described(z.union(schemas), description);
/** All of these at once (a component with members added). */
export const allOf = <A extends Schema, B extends Schema>(a: A, b: B, description?: string) =>
  described(z.intersection(a, b), description);
/** The schema or null (an enum's null is a branch of its own: `anyOf [{enum}, {type: null}]`). */
export const nullable = <S extends Schema | SchemaObject>(s: S) => asZod(s).nullable();
export const date = () => z.iso.date().describe('Y-m-d');
export const timestamp = () => z.iso.datetime({ offset: true }).describe('ISO 8601 with offset');
/** A date the caller sends (query or body): the one date rule (src/lib/dates.ts isYmd); else 422 naming it. */
export const dateInput = (description?: string) =>
  z.iso.date().describe(`${description ? `${description}: ` : ''}${YMD_MESSAGE}`);
/**
 * A date a route reads as text and checks by the one date rule (isYmd) itself, as its service does: refused with
 * `invalid_value` and the rule's words (YMD_MESSAGE), documented as `format: date`.
 */
export const ymdText = (description: string) =>
  z
    .string()
    .refine(isYmd, { message: YMD_MESSAGE, params: { code: 'invalid_value' } })
    .meta({ format: 'date' })
    .describe(description);
/** A date-time the caller sends (query or body): the one date-time rule (parseDateTime); else 422 naming it. */
export const dateTimeInput = (description?: string) =>
  z.iso.datetime({ offset: true }).describe(`${description ? `${description}: ` : ''}${DATE_TIME_MESSAGE}`);
/** A number as legacy clients send it, as text ("2019", " 12.5 "): read as that number. */
export const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;
/** `v` read as a number when it is the text of one (NUMERIC_TEXT); anything else as it is. */
export const readNumericText = (v: unknown): unknown => (typeof v === 'string' && NUMERIC_TEXT.test(v) ? Number(v) : v);
/**
 * A number a legacy client may send as its text ("2019"): `inner` (z.int()/z.number() with its bounds) checks the
 * value either way, so a refusal names the same rule. The document shows `inner` only, with its bounds (JSON Schema
 * cannot bound a number written as text): the text is a leniency for legacy clients, said in the description, never
 * something a client built from the document needs.
 */
export function numeric<S extends z.ZodType<number>>(inner: S, description?: string) {
  return documentAs(z.preprocess(readNumericText, inner), () => {
    const json = jsonSchemaOf(inner) as Record<string, unknown>;
    const said = description ?? json.description;
    const words = typeof said === 'string' ? `${said} ` : '';
    return { ...json, description: `${words}(a legacy client's text of the number, e.g. "2019", is read as it)` };
  });
}

/**
 * An ECMAScript pattern source made case-insensitive without flags (JSON Schema patterns have none): each ASCII
 * letter outside an escape becomes `[xX]` (inside a class, both cases).
 */
export function caseless(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      out += c + (source[i + 1] ?? '');
      i++;
    } else if (c === '[' && !inClass) {
      inClass = true;
      out += c;
    } else if (c === ']' && inClass) {
      inClass = false;
      out += c;
    } else if (/[a-z]/i.test(c)) {
      const pair = c.toLowerCase() + c.toUpperCase();
      out += inClass ? pair : `[${pair}]`;
    } else out += c;
  }
  return out;
}

/**
 * Words the server reads without regard to case or the spaces around them (` motor `): `spellings` are ECMAScript
 * pattern sources, an alternative each. The document carries the pattern; a refusal says `message` (the canonical
 * values, in the service's own words).
 */
export const spelled = (spellings: readonly string[], message: string, description?: string) =>
  described(z.string().regex(new RegExp(`^\\s*(?:${caseless(spellings.join('|'))})\\s*$`), message), description);

export const arr = <S extends Schema | SchemaObject>(items: S) => z.array(asZod(items));

/** The components by name, for `ref` (filled by schemas/index.ts; a `$ref` in the document). */
const COMPONENTS = new Map<string, z.ZodType>();
/** Names each schema as a component of the document (its `$ref` wherever it is used). */
export function registerComponents(schemas: Record<string, Schema | SchemaObject>): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const [name, s] of Object.entries(schemas)) {
    const schema = asZod(s);
    z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), id: name });
    COMPONENTS.set(name, schema);
    out[name] = schema;
  }
  return out;
}
/** A component by name, as a `$ref` (untyped: import the component itself where its type should check a mapper). */
export const ref = (name: string): z.ZodType =>
  z.lazy(() => {
    const s = COMPONENTS.get(name);
    if (!s) throw new Error(`no component schema named ${name}`);
    return s;
  });

type Props = Record<string, Schema | SchemaObject>;
type Shape<P extends Props, R extends keyof P> = {
  [K in keyof P]: K extends R ? AsZod<P[K]> : z.ZodOptional<AsZod<P[K]>>;
};
/** An object of `properties`, the `required` ones (all by default) required, the others optional. */
export function obj<P extends Props, R extends keyof P = keyof P>(
  properties: P,
  required?: readonly R[],
  description?: string,
): z.ZodObject<Shape<P, R>>;
/** Required names computed at run time (`Object.keys(…)`): typed as if all were optional. */
export function obj<P extends Props>(
  properties: P,
  required: readonly string[],
  description?: string,
): z.ZodObject<Shape<P, never>>;
export function obj<P extends Props>(
  properties: P,
  required?: readonly string[],
  description?: string,
): z.ZodObject<Shape<P, keyof P>> {
  const req = new Set<string>(required ?? Object.keys(properties));
  const shape = Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, req.has(k) ? asZod(v) : asZod(v).optional()]),
  ) as Shape<P, keyof P>;
  return described(z.object(shape), description);
}
/** `{data: …}` envelope of single records and reference lists. */
export const dataOf = <S extends Schema | SchemaObject>(s: S) => obj({ data: s });

const WHOLE = 'Whole shillings, derived from the cents: rounded half away from zero';
const MINOR = 'Integer cents (exact)';
/** Whole shillings plus the `_minor` cents companion (the spec's money convention). */
export function money<N extends string>(name: N): Record<N | `${N}_minor`, z.ZodInt>;
export function money<N extends string>(name: N, nullableToo: true): Record<N | `${N}_minor`, z.ZodNullable<z.ZodInt>>;
export function money(name: string, nullableToo = false): Record<string, z.ZodType> {
  const whole = int(WHOLE);
  const minor = int(MINOR);
  return { [name]: nullableToo ? whole.nullable() : whole, [`${name}_minor`]: nullableToo ? minor.nullable() : minor };
}

/**
 * A request amount in whole shillings: a JSON integer up to MAX_SHILLINGS (its cents a safe JSON integer; docs/
 * api-conventions.md, Money). Above it, or with a fraction, the request is 422 validation_failed naming the field.
 */
export const shillingsIn = (description: string, minimum = 0) =>
  z.int().min(minimum).max(MAX_SHILLINGS).describe(description);
/** A request amount in cents: a JSON integer up to MAX_MINOR (Number.MAX_SAFE_INTEGER). */
export const centsIn = (description: string, minimum = 0) => z.int().min(minimum).max(MAX_MINOR).describe(description);

/** A query parameter of a route, as the OpenAPI document lists it. */
export const queryParam = (name: string, schema: Schema | SchemaObject, description?: string): ParameterObject => ({
  name,
  in: 'query',
  schema: jsonSchemaOf(asZod(schema)),
  ...(description ? { description } : {}),
});
