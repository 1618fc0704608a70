import { DomainRuleError } from '../../../lib/problem.ts';
import { priceTerms } from '../proration.ts';
import { activeRisks, insuredIdErrors, liveRiskItem, namedInsured } from './insured.ts';
import { endPricedItem, type EndorsementOperationRules, n, storedEffect } from './shared.ts';

/**
 * A member leaves a medical policy from the effective date: their premium item's unearned part is credited, −U(B, e).
 * The last member, or a family's principal while others stay, cannot be removed (cancel the policy instead).
 */
export const removeMember: EndorsementOperationRules = {
  lines: ['medical'],
  validate: insuredIdErrors,

  price({ pol, input, e, period, table }) {
    const risk = namedInsured(pol, input);
    const others = activeRisks(pol).filter((r) => r.id !== risk.id);
    if (!others.length) throw new DomainRuleError('The last member cannot be removed; cancel the policy instead');
    if (risk.relationship === 'principal')
      throw new DomainRuleError('The principal cannot be removed while other members are covered; cancel the policy');
    const item = liveRiskItem(pol, risk.id);
    if (!item) throw new DomainRuleError(`${risk.name} has no premium on cover to remove`);
    const priced = priceTerms(period, [{ annualBasicMinor: item.annualBasicMinor, at: e, sign: -1 }], table);
    const effect = storedEffect(
      priced,
      period,
      e,
      [
        {
          regno: null,
          vehicle_id: null,
          insured: risk.name,
          risk_id: risk.id,
          annual_basic_before_minor: n(item.annualBasicMinor),
          annual_basic_after_minor: null,
        },
      ],
      item.id,
    );
    const changes = { insured_id: risk.id, name: risk.name, relationship: risk.relationship };
    return Promise.resolve({ changes, effect, productVersion: null });
  },

  async apply(a) {
    const item = await endPricedItem(a, a.dayBefore);
    await a.tx.policyRisk.update({
      where: { id: item.riskId! },
      data: { status: 'removed', removedOn: a.end.effectiveDate },
    });
    return {};
  },
};
