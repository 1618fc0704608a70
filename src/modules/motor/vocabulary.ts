import type { CoverType } from '../../generated/prisma/enums.ts';

/**
 * The motor line's vocabulary: the words a request may use, as plain data. The service reads requests with it
 * (classify.ts) and the REST facade builds its definitions of `class` and `scope` from it
 * (rest-compat/schemas/motor.ts), so the two cannot disagree. Constants only: no rules, no I/O.
 */
export type MotorKind = 'motor' | 'tuktuk' | 'motorcycle';

/**
 * The words of each kind, as read: without regard to case, with spaces, underscores and hyphens anywhere in them
 * ignored (`Motor Vehicle`, `boda-boda`, `TUK_TUK`). The REST facade's definition of `class` is built from this table.
 */
export const KIND_WORDS: Readonly<Record<MotorKind, readonly string[]>> = {
  motor: ['motor', 'motorvehicle', 'car'],
  tuktuk: ['tuktuk'],
  motorcycle: ['motorcycle', 'motorbike', 'bodaboda'],
};
/** What parseKind ignores anywhere in a kind (after trimming). */
export const KIND_IGNORED = /[\s_-]+/g;

/**
 * The words of each cover type, as read: without regard to case, words separated by any run of spaces, underscores,
 * commas or hyphens (`third-party, only`). The REST facade's definition of `scope` is built from this table.
 */
export const SCOPE_WORDS: Readonly<Record<CoverType, readonly (readonly string[])[]>> = {
  comprehensive: [['comprehensive'], ['comp']],
  tpo: [['tpo'], ['third', 'party', 'only'], ['third', 'party']],
  tpft: [['tpft'], ['third', 'party', 'fire', 'and', 'theft'], ['third', 'party', 'fire', 'theft']],
};
/** What parseScope reads as one space between the words of a scope (after trimming). */
export const SCOPE_SEPARATORS = /[\s_,-]+/g;

/** A vehicle's value in shillings, which may carry cents (docs/api-conventions.md "Money"): at least KES 0.01. */
export const VEHICLE_VALUE_RULE = 'an amount in shillings from 0.01 to 1,000,000,000';
