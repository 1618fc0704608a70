import { z } from 'zod';
import { DATE_TIME_MESSAGE, isYmd, parseDateTime, YMD_MESSAGE } from './dates.ts';
import { ValidationError } from './problem.ts';
import { issuesToFieldErrors, plainIssueMessage } from './zod-issues.ts';

/** Parses service input with a zod schema; failures become one 422 with a field error per issue (zod-issues.ts). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const r = schema.safeParse(input, { error: plainIssueMessage });
  if (r.success) return r.data;
  throw new ValidationError(issuesToFieldErrors(r.error.issues));
}

/** A date input under the one date rule (isYmd); later refinements see only real dates. */
export const ymd = () =>
  z.string().refine(isYmd, { message: YMD_MESSAGE, abort: true, params: { code: 'invalid_value' } });

/** A date-time input under the one date-time rule (parseDateTime), as the instant it names. */
export const dateTime = () =>
  z.string().transform((v, c) => {
    const d = parseDateTime(v);
    if (!d) c.addIssue({ code: 'custom', message: DATE_TIME_MESSAGE });
    return d ?? z.NEVER;
  });

/** Text that must be there: trimmed, at least one character, at most `max`. */
export const requiredText = (max: number) => z.string().trim().min(1, 'required').max(max);

/** Optional text: trimmed, at most `max`; absent, null or blank reads as null. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));

/**
 * An optional identifier put through its normaliser (phone, ID number, PIN, registration): absent or blank reads as
 * null; text the normaliser refuses is an issue with `message`.
 */
export const normalised = (fn: (s: string) => string | null, message: string) =>
  z
    .string()
    .nullish()
    .transform((v, c) => {
      if (v == null || v.trim() === '') return null;
      const n = fn(v);
      if (!n) c.addIssue({ code: 'custom', message });
      return n ?? null;
    });

/**
 * A name of a person or business: trimmed, 2 to 200 characters, at least 2 of them visible. Zero-width and other
 * format characters (U+200B, U+2060, the bidirectional marks) are not whitespace to `trim`: a name of nothing but
 * them showed as an empty name (outside check, 2026-12-03).
 */
export const personNameText = () =>
  z
    .string()
    .trim()
    .min(2, 'at least 2 characters')
    .max(200)
    .refine((s) => s.length < 2 || visibleCharacters(s) >= 2, {
      message: 'at least 2 characters',
      params: { code: 'too_small' },
    });

/** How many characters of `s` show: neither whitespace nor format characters (Unicode category Cf). */
export function visibleCharacters(s: string): number {
  return s.replace(/[\s\p{Cf}]/gu, '').length;
}
