import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { DomainRuleError, ValidationError } from '../../../lib/problem.ts';
import { type MotorRisk, normaliseRisk, priceRisk } from '../../motor/quote.service.ts';
import { type MotorPolicy, motorOnly } from '../../motor/motor-policy.ts';
import type { PolicyRow } from './shared.ts';

const scopeLabel = (c: string) => (c === 'tpo' ? 'TPO' : c === 'tpft' ? 'TPFT' : 'Comprehensive');
const kindLabel = (vc: string) => (vc === 'motorcycle' ? 'Motorcycle' : 'Motor');

export interface VehicleToPrice {
  year: number | null | undefined;
  value: number | null | undefined;
  tonnage: number | null | undefined;
  pll: number | null | undefined;
  coverage: string | null | undefined;
  coverageGiven?: boolean;
}

/**
 * One vehicle's annual basic premium (PLL included) on the CURRENT rates of the policy's insurer, class and cover.
 * The vehicle's age is taken at the policy start, as at bind. `fields` renames the rating's field errors into the
 * endorsement's spelling.
 */
export async function annualBasic(
  ctx: Context,
  tx: Tx,
  row: PolicyRow,
  v: VehicleToPrice,
  fields: Record<string, string>,
): Promise<{ basicMinor: bigint; productVersion: number; risk: MotorRisk }> {
  const pol = motorOnly(row, 'Pricing a vehicle');
  const start = fromDbDate(pol.startDate);
  let risk = vehicleRisk(pol, v, fields, start);
  if (v.coverageGiven && risk.vehicleClass !== pol.vehicleClass) {
    throw new ValidationError([
      {
        field: 'input.vehicle.coverage',
        message: `this policy covers ${pol.vehicleClass} vehicles; ${risk.coverage} rates as ${risk.vehicleClass}`,
      },
    ]);
  }
  risk = {
    ...risk,
    vehicleClass: pol.vehicleClass,
    coverType: pol.coverType,
    startDate: start,
    endDate: fromDbDate(pol.endDate),
    insurerIds: [pol.insurerId],
  };
  const { options, refusals } = await priceRisk(ctx, tx, risk);
  const option = options.find((o) => o.productId === pol.motorProductId) ?? options[0];
  if (!option) {
    throw new DomainRuleError(
      refusals.length
        ? refusals.join('; ')
        : `${pol.insurer.name} no longer rates ${pol.vehicleClass} ${pol.coverType} cover`,
    );
  }
  return { basicMinor: option.basicMinor, productVersion: option.productVersion, risk };
}

function vehicleRisk(
  pol: MotorPolicy<PolicyRow>,
  v: VehicleToPrice,
  fields: Record<string, string>,
  start: string,
): MotorRisk {
  try {
    return normaliseRisk(
      {
        class: kindLabel(pol.vehicleClass),
        coverage: v.coverage,
        scope: scopeLabel(pol.coverType),
        year: v.year,
        value: v.value,
        tonnage: v.tonnage,
        pll: v.pll,
        insurerIds: [pol.insurerId],
      },
      { prefix: 'vehicle', today: start },
    );
  } catch (e) {
    if (e instanceof ValidationError) {
      throw new ValidationError((e.errors ?? []).map((f) => ({ ...f, field: fields[f.field] ?? f.field })));
    }
    throw e;
  }
}
