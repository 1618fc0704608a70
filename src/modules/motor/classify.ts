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

export function parseKind(raw: unknown): MotorKind | null {
  if (typeof raw !== 'string') return null;
  const v = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
  if (v === 'motor' || v === 'motorvehicle' || v === 'car') return 'motor';
  if (v === 'tuktuk') return 'tuktuk';
  if (v === 'motorcycle' || v === 'motorbike' || v === 'bodaboda') return 'motorcycle';
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
  const v = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_,-]+/g, ' ');
  if (v === 'comprehensive' || v === 'comp') return 'comprehensive';
  if (v === 'tpo' || v === 'third party only' || v === 'third party') return 'tpo';
  if (v === 'tpft' || v === 'third party fire and theft' || v === 'third party fire theft') return 'tpft';
  return null;
}
