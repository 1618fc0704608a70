import type { CoverType, VehicleClass } from '../../generated/prisma/enums.ts';
import { KIND_IGNORED, KIND_WORDS, type MotorKind, SCOPE_SEPARATORS, SCOPE_WORDS } from './vocabulary.ts';

export type { MotorKind } from './vocabulary.ts';

/**
 * The spec's class and coverage vocabulary → rating class. Motorcycles always rate as motorcycle; a tuktuk rates on
 * the PSV schedule when its coverage names PSV or hire use, otherwise as commercial.
 */

const PSV = /\b(psv|matatu|taxi|bus|hire|uber|bolt|tour|school|boda)\b/i;
const COMMERCIAL =
  /\b(commercial|own goods|general cartage|cartage|institutional|special|tanker|motor trade|pick-?up|lorry|truck)\b/i;
const PRIVATE = /\bprivate\b/i;

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

export function parseScope(raw: unknown): CoverType | null {
  if (typeof raw !== 'string') return null;
  const v = raw.trim().toLowerCase().replace(SCOPE_SEPARATORS, ' ');
  for (const type of Object.keys(SCOPE_WORDS) as CoverType[])
    if (SCOPE_WORDS[type].some((words) => words.join(' ') === v)) return type;
  return null;
}
