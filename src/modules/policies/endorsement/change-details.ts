import type { FieldError } from '../../../lib/problem.ts';
import { motorOnly } from '../../motor/motor-policy.ts';
import { priceTerms } from '../proration.ts';
import {
  cleanText,
  type EndorseInput,
  type EndorsementOperationRules,
  type PolicyRow,
  type StoredChanges,
  storedEffect,
  ALL_LINES,
} from './shared.ts';
import { DETAIL_FIELDS, namedVehicle, regNoErrors, SNAKE } from './vehicles.ts';

/** Vehicle particulars (chassis, engine, make, model, body) and the policy's limits of liability: no premium effect. */
export const changeDetails: EndorsementOperationRules = {
  lines: ALL_LINES,
  validate(input) {
    const d = input.details;
    const errors: FieldError[] = DETAIL_FIELDS.some((k) => d?.[k] != null) ? regNoErrors(input) : [];
    const any = d && (DETAIL_FIELDS.some((k) => cleanText(d[k]) != null) || d.limitsOfLiability != null);
    if (!any)
      errors.push({
        field: 'input.details',
        message: `at least one of ${DETAIL_FIELDS.map((k) => SNAKE[k]).join(', ')}, limits_of_liability`,
      });
    if (d?.limitsOfLiability != null && typeof d.limitsOfLiability !== 'object') {
      errors.push({ field: 'input.details.limitsOfLiability', message: 'an object or a list' });
    }
    return errors;
  },

  price({ pol, input, e, period, table }) {
    const d = input.details!;
    const vehicle = DETAIL_FIELDS.some((k) => cleanText(d[k]) != null) ? vehicleDetails(pol, input) : null;
    const changes: StoredChanges = {
      ...(vehicle
        ? {
            regno: vehicle.regNo,
            vehicle_id: vehicle.vehicleId,
            details: vehicle.set,
            previous_details: vehicle.before,
          }
        : {}),
      ...(d.limitsOfLiability != null
        ? { limits_of_liability: d.limitsOfLiability, previous_limits_of_liability: pol.limitsOfLiability ?? null }
        : {}),
    };
    const zero = priceTerms(period, [], table);
    const items = vehicle
      ? [
          {
            regno: vehicle.regNo,
            vehicle_id: vehicle.vehicleId,
            annual_basic_before_minor: null,
            annual_basic_after_minor: null,
          },
        ]
      : [];
    return Promise.resolve({ changes, effect: storedEffect(zero, period, e, items), productVersion: null });
  },

  async apply({ tx, pol, changes }) {
    if (changes.vehicle_id != null) {
      const d = changes.details as Record<string, string>;
      await tx.policyVehicle.update({
        where: { id: changes.vehicle_id as number },
        data: {
          ...(d.chassis_no != null ? { chassisNo: d.chassis_no } : {}),
          ...(d.engine_no != null ? { engineNo: d.engine_no } : {}),
          ...(d.make != null ? { make: d.make } : {}),
          ...(d.model != null ? { model: d.model } : {}),
          ...(d.body_type != null ? { bodyType: d.body_type } : {}),
        },
      });
    }
    if (changes.limits_of_liability !== undefined) {
      await tx.policy.update({
        where: { id: pol.id },
        data: { limitsOfLiability: changes.limits_of_liability as never },
      });
    }
    return {};
  },
};

/** The new particulars of the named vehicle and what they replace (snake_case, as stored). */
function vehicleDetails(pol: PolicyRow, input: EndorseInput) {
  motorOnly(pol, "A vehicle's particulars");
  const d = input.details!;
  const { regNo, vehicle } = namedVehicle(pol, input);
  const set: Record<string, string> = {};
  const before: Record<string, string | null> = {};
  for (const k of DETAIL_FIELDS) {
    const val = cleanText(d[k]);
    if (val == null) continue;
    set[SNAKE[k]] = k === 'chassisNo' || k === 'engineNo' ? val.toUpperCase() : val;
    before[SNAKE[k]] = (vehicle as unknown as Record<string, unknown>)[k] as string | null;
  }
  return { regNo, vehicleId: vehicle.id, set, before };
}
