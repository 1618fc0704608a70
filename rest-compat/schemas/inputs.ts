import { z } from 'zod';
import { normalisePhone } from '../../src/lib/identifiers.ts';
import { DATE_TIME_MESSAGE, parseDateTime } from '../../src/lib/dates.ts';
import { visibleCharacters } from '../../src/lib/validate.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';

/**
 * Request fields as the services read them, shared by every area's definitions: the same bounds, normalisers and
 * words as the services' own zod schemas (src/modules/**), which the facade may not import
 * (.dependency-cruiser.cjs `facade-translates-only`; a module's vocabulary.ts excepted).
 */

/**
 * Length bounds measured on text only: zod measures a list's length too, which would refuse a wrong-typed value (a
 * list) twice on one field (`when` is a check option zod's parameter types leave out).
 */
export const onText = { when: (p: z.core.ParsePayload) => typeof p.value === 'string' } as { message?: string };
/** The same for a count of items: measured on a list only. */
export const onList = { when: (p: z.core.ParsePayload) => Array.isArray(p.value) } as { message?: string };

/**
 * A whole number as GraphQL's Int and the money scalars read one (the mapper passes it as is): anything but a number,
 * text included, is refused `not_a_whole_number` like a fraction (zod's own type check of an integer says "expected
 * number", read as `not_a_number`); `inner` gives the bounds. Documented as `doc` (default `inner`).
 */
export function whole<S extends z.ZodType<number>>(inner: S, doc: z.ZodType = inner) {
  return documentAs(
    z.preprocess((v, ctx) => {
      if (v == null || typeof v === 'number') return v;
      ctx.addIssue({ code: 'invalid_type', expected: 'int', input: v });
      return z.NEVER;
    }, inner),
    () => jsonSchemaOf(doc) as Record<string, unknown>,
  );
}
/** A person's or business's name as the CRM records read it (clients, prospects): trimmed, 2 to 200 characters. */
export const personName = () =>
  z
    .string()
    .trim()
    .min(2, { ...onText, message: 'at least 2 characters' })
    .max(200, onText)
    // Zero-width and other format characters are not whitespace to trim; at least 2 characters must show.
    .refine((s) => s.length < 2 || visibleCharacters(s) >= 2, {
      message: 'at least 2 characters',
      params: { code: 'too_small' },
    })
    .describe('2 to 200 characters, at least 2 of them visible (not whitespace or zero-width)');

/** A database id of a record the service looks up (an unknown one is the service's 422 naming the field). */
export const idIn = (description?: string) => {
  const s = whole(z.int().positive()).nullish();
  return description ? s.describe(description) : s;
};

/** The services' words for a phone they cannot read as a Kenyan mobile (src/modules/clients/client/input.ts). */
export const PHONE_MESSAGE = 'not a Kenyan mobile number (07…, 01…, +254…)';

/** An email as the CRM records read one (trimmed, lower case, up to 200 characters); null or absent: none. */
export const emailIn = (description?: string) => {
  const s = z.string().trim().toLowerCase().email('not an email address').max(200, onText).nullish();
  return description ? s.describe(description) : s;
};
/** A Kenyan mobile, any format, as normalisePhone reads it (checked, not rewritten: the service normalises it). */
export const phoneIn = (description: string, message = PHONE_MESSAGE) =>
  z
    .string()
    .refine((v) => normalisePhone(v) !== null, message)
    .describe(description);

/**
 * An optional identifier its normaliser must read (src/lib/validate.ts `normalised`; checked, not rewritten: the
 * service normalises it): absent, null or blank is none.
 */
export const identifierIn = (fn: (s: string) => string | null, message: string, description: string) =>
  z
    .string()
    .refine((v) => v.trim() === '' || fn(v) !== null, message)
    .nullish()
    .describe(description);

/**
 * A route's body as the mappers read it before (`asObject`): none, null or anything but a JSON object reads as `{}`,
 * so an optional body may be left out and a required field is named when missing; documented as `schema`.
 */
export const bodyObject = <S extends z.ZodType>(schema: S) =>
  documentAs(
    z.preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {}), schema),
    () => jsonSchemaOf(schema) as Record<string, unknown>,
  );

/**
 * An instant as GraphQL's DateTime reads it (parseDateTime, the one date-time rule): anything else, text or not, is
 * refused `invalid_value` in the scalar's words.
 */
export const dateTimeIn = (description: string) =>
  documentAs(
    z.unknown().superRefine((v, ctx) => {
      if (parseDateTime(v) === null)
        ctx.addIssue({
          code: 'invalid_format',
          format: 'datetime',
          message: `must be ${DATE_TIME_MESSAGE}`,
          input: String(v),
        });
    }) as unknown as z.ZodType<string>,
    () => ({ type: 'string', format: 'date-time', description: `${description}: ${DATE_TIME_MESSAGE}` }),
  );
