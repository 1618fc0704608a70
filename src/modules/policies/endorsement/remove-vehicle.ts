import { DomainRuleError } from '../../../lib/problem.ts';
import { requestCertificateCancellation } from '../../certificates/issuance.ts';
import { priceTerms } from '../proration.ts';
import { endPricedItem, type EndorsementOperationRules, n, storedEffect, MOTOR } from './shared.ts';
import { liveItem, namedVehicle, regNoErrors, REMOVE_VEHICLE_CERT_REASON } from './vehicles.ts';

/** A vehicle leaves the policy: its unearned premium from the effective date is credited; its certificate is cancelled. */
export const removeVehicle: EndorsementOperationRules = {
  lines: MOTOR,
  validate: regNoErrors,

  price({ pol, input, e, period, table }) {
    const { regNo, vehicle } = namedVehicle(pol, input);
    if (pol.vehicles.filter((x) => x.status === 'active').length < 2) {
      throw new DomainRuleError('The last vehicle on a policy cannot be removed; cancel the policy instead');
    }
    const item = liveItem(pol, vehicle.id);
    if (!item) throw new DomainRuleError(`${regNo} has no premium on cover to remove`);
    const priced = priceTerms(period, [{ annualBasicMinor: item.annualBasicMinor, at: e, sign: -1 }], table);
    const effect = storedEffect(
      priced,
      period,
      e,
      [
        {
          regno: regNo,
          vehicle_id: vehicle.id,
          annual_basic_before_minor: n(item.annualBasicMinor),
          annual_basic_after_minor: null,
        },
      ],
      item.id,
    );
    return Promise.resolve({ changes: { regno: regNo, vehicle_id: vehicle.id }, effect, productVersion: null });
  },

  async apply(a) {
    const item = await endPricedItem(a, a.dayBefore);
    // Priced on the named vehicle's item (namedVehicle): a vehicle's item.
    const vehicleId = item.vehicleId!;
    await a.tx.policyVehicle.update({
      where: { id: vehicleId },
      data: { status: 'removed', removedOn: a.end.effectiveDate },
    });
    await requestCertificateCancellation(a.ctx.app, a.tx, { vehicleId }, REMOVE_VEHICLE_CERT_REASON);
    return {};
  },
};
