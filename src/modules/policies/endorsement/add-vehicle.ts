import type { FieldError } from '../../../lib/problem.ts';
import { DomainRuleError } from '../../../lib/problem.ts';
import { normaliseRegNo } from '../../../lib/identifiers.ts';
import { priceTerms } from '../proration.ts';
import { annualBasic } from './annual-basic.ts';
import { cleanText, type EndorsementOperationRules, type EndorseInput, n, storedEffect, MOTOR } from './shared.ts';
import { registrationClash, startItem } from './vehicles.ts';

/** A vehicle joins the policy from the effective date, priced on the insurer's current rates for the rest of the period. */
export const addVehicle: EndorsementOperationRules = {
  lines: MOTOR,
  validate(input: EndorseInput): FieldError[] {
    const errors: FieldError[] = [];
    const v = input.vehicle;
    if (!v)
      errors.push({
        field: 'input.vehicle',
        code: 'required',
        message: 'required: regno, chassis_no, make, model, yom, value',
      });
    else {
      if (!(v.regNo && normaliseRegNo(v.regNo)))
        errors.push({ field: 'input.vehicle.regNo', message: 'a registration such as KAA 123A' });
      if (!cleanText(v.chassisNo))
        errors.push({
          field: 'input.vehicle.chassisNo',
          code: 'required',
          message: 'required (the registry certificate needs it)',
        });
      if (!cleanText(v.make)) errors.push({ field: 'input.vehicle.make', code: 'required', message: 'required' });
      if (!cleanText(v.model)) errors.push({ field: 'input.vehicle.model', code: 'required', message: 'required' });
      if (v.yom == null) errors.push({ field: 'input.vehicle.yom', message: 'year of manufacture required' });
    }
    return errors;
  },

  async price({ ctx, tx, pol, input, e, period, table }) {
    const v = input.vehicle!;
    const regNo = normaliseRegNo(v.regNo!)!;
    const { basicMinor, productVersion, risk } = await annualBasic(
      ctx,
      tx,
      pol,
      {
        year: v.yom,
        value: v.value,
        tonnage: v.tonnage,
        pll: v.pll,
        coverage: v.coverage ?? pol.vehicles[0]?.coverage,
        coverageGiven: v.coverage != null,
      },
      { 'vehicle.year': 'vehicle.yom' },
    );
    const clash = await registrationClash(tx, ctx.principal!, pol, regNo, e);
    if (clash) throw new DomainRuleError(clash);
    const priced = priceTerms(period, [{ annualBasicMinor: basicMinor, at: e, sign: 1 }], table);
    const changes = {
      vehicle: {
        regno: regNo,
        chassis_no: cleanText(v.chassisNo)!.toUpperCase(),
        engine_no: cleanText(v.engineNo)?.toUpperCase() ?? null,
        make: cleanText(v.make),
        model: cleanText(v.model),
        yom: risk.year,
        value_minor: risk.valueMinor == null ? null : n(risk.valueMinor),
        body_type: cleanText(v.bodyType),
        tonnage: risk.tonnage,
        pll: risk.pll || null,
        coverage: risk.coverage,
      },
    };
    const effect = storedEffect(priced, period, e, [
      { regno: regNo, vehicle_id: null, annual_basic_before_minor: null, annual_basic_after_minor: n(basicMinor) },
    ]);
    return { changes, effect, productVersion };
  },

  async apply(a) {
    const { ctx, tx, pol, end, e } = a;
    const v = a.changes.vehicle as StoredVehicle;
    const clash = await registrationClash(tx, ctx.principal!, pol, v.regno, e);
    if (clash) throw new DomainRuleError(clash);
    const vehicle = await tx.policyVehicle.create({
      data: {
        tenantId: pol.tenantId,
        policyId: pol.id,
        regNo: v.regno,
        chassisNo: v.chassis_no,
        engineNo: v.engine_no,
        make: v.make,
        model: v.model,
        yearOfManufacture: v.yom,
        valueMinor: v.value_minor == null ? null : BigInt(v.value_minor),
        bodyType: v.body_type,
        tonnesMilli: v.tonnage == null ? null : Math.round(v.tonnage * 1000),
        pll: v.pll,
        coverage: v.coverage,
        addedOn: end.effectiveDate,
        addedByEndorsementId: end.id,
      },
    });
    await startItem(a, vehicle.id);
    a.effect.items[0].vehicle_id = vehicle.id;
    return { addedVehicle: true };
  },
};

/** `changes.vehicle` as price stored it. */
interface StoredVehicle {
  regno: string;
  chassis_no: string;
  engine_no: string | null;
  make: string | null;
  model: string | null;
  yom: number;
  value_minor: number | null;
  body_type: string | null;
  tonnage: number | null;
  pll: number | null;
  coverage: string;
}
