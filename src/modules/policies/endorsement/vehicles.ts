import type { Principal } from '../../../auth/principal.ts';
import type { Tx } from '../../../db/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { normaliseRegNo } from '../../../lib/identifiers.ts';
import { type FieldError, ValidationError } from '../../../lib/problem.ts';
import { findCoverClash } from '../policy.service.ts';
import type { ApplyArgs, EndorseInput, PolicyRow } from './shared.ts';

/** What the vehicle operations (add_vehicle, remove_vehicle, change_value, change_details) share. */

/** Registry reason id used when a vehicle's certificate is cancelled because the vehicle left the policy. */
export const REMOVE_VEHICLE_CERT_REASON = 8;

export const DETAIL_FIELDS = ['chassisNo', 'engineNo', 'make', 'model', 'bodyType'] as const;
export const SNAKE: Record<string, string> = {
  chassisNo: 'chassis_no',
  engineNo: 'engine_no',
  make: 'make',
  model: 'model',
  bodyType: 'body_type',
};

/** The registration an operation on an existing vehicle names: required, and a well-formed one. */
export function regNoErrors(input: EndorseInput): FieldError[] {
  return input.regNo && normaliseRegNo(input.regNo)
    ? []
    : [{ field: 'input.regNo', message: 'the registration of a vehicle on this policy' }];
}

/** The active vehicle `input.regNo` names, or 422 naming the registration. */
export function namedVehicle(pol: PolicyRow, input: EndorseInput) {
  const regNo = normaliseRegNo(input.regNo!)!;
  const vehicle = activeVehicle(pol, regNo);
  if (!vehicle)
    throw new ValidationError([{ field: 'input.regNo', message: `${regNo} is not on cover under this policy` }]);
  return { regNo, vehicle };
}

/** The live premium item of a vehicle: not ended by an endorsement or a cancellation, the latest to start. */
export function liveItem(pol: PolicyRow, vehicleId: number) {
  return pol.premiumItems.find((i) => i.vehicleId === vehicleId) ?? null;
}

export function activeVehicle(pol: PolicyRow, regNo: string) {
  return pol.vehicles.find((v) => v.regNo === regNo && v.status === 'active') ?? null;
}

/** Another pending or active policy (or this one) already covers the registration on or after `from`. */
export async function registrationClash(
  tx: Tx,
  viewer: Principal,
  pol: { id: number; endDate: Date },
  regNo: string,
  from: string,
): Promise<string | null> {
  const clash = await findCoverClash(tx, { regNos: [regNo], from, to: fromDbDate(pol.endDate) }, viewer);
  if (!clash) return null;
  return clash.policyId === pol.id
    ? `${regNo} is already on this policy`
    : `${regNo} already has cover for these dates (${clash.policyRef})`;
}

/** The vehicle's new premium item: its priced annual basic, from the effective date to the end of the period. */
export function startItem(a: ApplyArgs, vehicleId: number) {
  return a.tx.policyPremiumItem.create({
    data: {
      tenantId: a.pol.tenantId,
      policyId: a.pol.id,
      vehicleId,
      annualBasicMinor: BigInt(a.effect.items[0].annual_basic_after_minor!),
      fromDate: a.end.effectiveDate,
      toDate: a.pol.endDate,
      endorsementId: a.end.id,
    },
  });
}
