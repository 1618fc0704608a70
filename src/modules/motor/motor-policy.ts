import type { CoverType, VehicleClass } from '../../generated/prisma/enums.ts';
import { DomainRuleError } from '../../lib/problem.ts';

/** A policy row as the motor-only operations read it (vehicles, certificates, motor rating). */
type MotorFields = { motorProductId: number | null; vehicleClass: VehicleClass | null; coverType: CoverType | null };
export type MotorPolicy<T extends MotorFields> = T & {
  motorProductId: number;
  vehicleClass: VehicleClass;
  coverType: CoverType;
};

export const isMotor = <T extends MotorFields>(p: T): p is MotorPolicy<T> =>
  p.motorProductId != null && p.vehicleClass != null && p.coverType != null;

/**
 * The policy as a motor policy, or a domain_rule refusal naming the operation: vehicles, registry certificates and
 * motor rating exist only on motor policies (the database holds every motor policy to its product and class).
 */
export function motorOnly<T extends MotorFields & { productLine?: string }>(p: T, what: string): MotorPolicy<T> {
  if (!isMotor(p))
    throw new DomainRuleError(
      `${what} applies to motor policies only (this is ${p.productLine ?? 'a non-motor'} cover)`,
    );
  return p;
}
