import type { CoverType, VehicleClass } from '../../generated/prisma/enums.ts';

/**
 * The spec's class and coverage vocabulary → rating class. Motorcycles always rate as motorcycle; a tuktuk rates on
 * the PSV schedule when its coverage names PSV or hire use, otherwise as commercial.
 */
export type MotorKind = 'motor' | 'tuktuk' | 'motorcycle';

const PSV = /\b(psv|matatu|taxi|bus|hire|uber|bolt|tour|school|boda)\b/i;
const COMMERCIAL =
  /\b(commercial|own goods|general cartage|cartage|institutional|special|tanker|motor trade|pick-?up|lorry|truck)\b/i;
const PRIVATE = /\bprivate\b/i;

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

export function parseKind(raw: unknown): MotorKind | null {
  if (typeof raw !== 'string') return null;
  const v = raw.trim().toLowerCase().replace(KIND_IGNORED, '');
  for (const kind of Object.keys(KIND_WORDS) as MotorKind[]) if (KIND_WORDS[kind].includes(v)) return kind;
  return null;
}

/** null when the coverage names nothing we rate. */
export function ratingClass(kind: MotorKind, coverage: string | null | undefined): VehicleClass | null {
  const c = (coverage ?? 'Private').trim() || 'Private';
  if (kind === 'motorcycle') return 'motorcycle';
  if (kind === 'tuktuk') return PSV.test(c) ? 'psv' : 'commercial';
  if (PSV.test(c)) return 'psv';
  if (COMMERCIAL.test(c)) return 'commercial';
  if (PRIVATE.test(c)) return 'private';
  return null;
}

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

export function parseScope(raw: unknown): CoverType | null {
  if (typeof raw !== 'string') return null;
  const v = raw.trim().toLowerCase().replace(SCOPE_SEPARATORS, ' ');
  for (const type of Object.keys(SCOPE_WORDS) as CoverType[])
    if (SCOPE_WORDS[type].some((words) => words.join(' ') === v)) return type;
  return null;
}
