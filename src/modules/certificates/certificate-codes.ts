import type { CoverType, VehicleClass } from '../../generated/prisma/enums.ts';
import type { CertificateClass, CoverCode } from '../../ports/certificate-registry.ts';
import type { MotorKind } from '../motor/classify.ts';

/** Our cover types and vehicle classes in the registry's codes. */
export const COVER_CODES: Record<CoverType, CoverCode> = { comprehensive: 100, tpo: 200, tpft: 300 };

export function coverCode(cover: CoverType): CoverCode {
  return COVER_CODES[cover];
}

/**
 * Our rating class (+ kind) → certificate class. The kind decides first: a tuktuk rates as PSV or commercial, but
 * the registry files every three-wheeler under D with the motorcycles.
 */
export function certificateClass(vehicleClass: VehicleClass, kind: MotorKind = 'motor'): CertificateClass {
  if (kind === 'motorcycle' || kind === 'tuktuk' || vehicleClass === 'motorcycle') return 'D';
  if (vehicleClass === 'psv') return 'A';
  if (vehicleClass === 'commercial') return 'B';
  return 'C';
}
