import { fromShillings } from '../../../lib/money.ts';
import { DomainRuleError, type FieldError } from '../../../lib/problem.ts';
import { priceTerms, type Term } from '../proration.ts';
import { annualBasic } from './annual-basic.ts';
import { endPricedItem, type EndorsementOperationRules, n, storedEffect, MOTOR } from './shared.ts';
import { liveItem, namedVehicle, regNoErrors, startItem } from './vehicles.ts';

/** A new sum insured (comprehensive cover): the old premium item ends the day before, a re-priced one starts. */
export const changeValue: EndorsementOperationRules = {
  lines: MOTOR,
  validate(input) {
    const errors: FieldError[] = regNoErrors(input);
    if (input.value == null || !Number.isFinite(input.value) || input.value <= 0 || input.value > 1_000_000_000) {
      errors.push({ field: 'input.value', message: 'the new sum insured, a positive amount in whole shillings' });
    }
    return errors;
  },

  async price({ ctx, tx, pol, input, e, period, table }) {
    const { regNo, vehicle } = namedVehicle(pol, input);
    if (pol.coverType !== 'comprehensive')
      throw new DomainRuleError('The sum insured can be changed on comprehensive cover only');
    const item = liveItem(pol, vehicle.id);
    if (!item) throw new DomainRuleError(`${regNo} has no premium on cover to change`);
    const { basicMinor, productVersion } = await annualBasic(
      ctx,
      tx,
      pol,
      {
        year: vehicle.yearOfManufacture,
        value: input.value,
        tonnage: vehicle.tonnesMilli == null ? null : vehicle.tonnesMilli / 1000,
        pll: vehicle.pll,
        coverage: vehicle.coverage,
      },
      { 'vehicle.value': 'value' },
    );
    const terms: Term[] = [
      { annualBasicMinor: basicMinor, at: e, sign: 1 },
      { annualBasicMinor: item.annualBasicMinor, at: e, sign: -1 },
    ];
    const priced = priceTerms(period, terms, table);
    const changes = {
      regno: regNo,
      vehicle_id: vehicle.id,
      value_minor: n(fromShillings(input.value!)),
      previous_value_minor: vehicle.valueMinor == null ? null : n(vehicle.valueMinor),
    };
    const effect = storedEffect(
      priced,
      period,
      e,
      [
        {
          regno: regNo,
          vehicle_id: vehicle.id,
          annual_basic_before_minor: n(item.annualBasicMinor),
          annual_basic_after_minor: n(basicMinor),
        },
      ],
      item.id,
    );
    return { changes, effect, productVersion };
  },

  async apply(a) {
    const item = await endPricedItem(a, a.dayBefore);
    // Priced on the named vehicle's item (namedVehicle): a vehicle's item.
    const vehicleId = item.vehicleId!;
    await startItem(a, vehicleId);
    await a.tx.policyVehicle.update({
      where: { id: vehicleId },
      data: { valueMinor: BigInt(a.changes.value_minor as number) },
    });
    return {};
  },
};
