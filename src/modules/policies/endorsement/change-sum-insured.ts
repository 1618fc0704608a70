import { fromShillings } from '../../../lib/money.ts';
import { DomainRuleError, type FieldError } from '../../../lib/problem.ts';
import { standardLine } from '../../covers/standard/standard.ts';
import { policyCoverProduct, priceOrRefuse, standardRiskOf } from '../cover-risk.ts';
import { priceTerms, type Term } from '../proration.ts';
import { activeRisks, insuredIdErrors, liveRiskItem, namedInsured, startRiskItem } from './insured.ts';
import { endItem, type EndorsementOperationRules, n, type PolicyRow, storedEffect } from './shared.ts';

/** Whole shillings: the largest sum insured of one item. */
const MAX_SUM_INSURED = 10_000_000_000;

/**
 * A new sum insured of an item of a standard cover: the whole cover priced again by the standard line on the
 * policy's cover product at the insurer's current rates, and each premium item whose annual basic moves (the
 * policy's one item, or each insured's share) replaced from the effective date: Σ +U(B′, e) − U(B, e), as
 * change_value does for a vehicle; negative when the sum insured falls.
 */
export const changeSumInsured: EndorsementOperationRules = {
  lines: ['standard'],

  validate(input) {
    const errors: FieldError[] = insuredIdErrors(input);
    const si = input.sumInsured;
    if (si == null || !Number.isSafeInteger(si) || si <= 0 || si > MAX_SUM_INSURED)
      errors.push({ field: 'input.sumInsured', message: 'the new sum insured, a positive amount in whole shillings' });
    return errors;
  },

  async price({ ctx, tx, pol, input, e, period, table }) {
    const risk = namedInsured(pol, input);
    if (risk.sumInsuredMinor == null) throw new DomainRuleError(`${risk.name} is not insured for a sum`);
    const si = fromShillings(input.sumInsured!);
    const product = await policyCoverProduct(ctx, tx, pol);
    const items = activeRisks(pol).map((r) => (r.id === risk.id ? { ...r, sumInsuredMinor: si } : r));
    const priced = priceOrRefuse(standardLine, product, standardRiskOf(pol, product, items, period));
    const per = priced.perInsuredMinor;
    const targets: Target[] = per
      ? items.map((r, i) => ({ riskId: r.id, insured: r.name, after: per[i] }))
      : [{ riskId: null, insured: null, after: priced.basicMinor }];
    const lines = targets.map((t) => itemLine(pol, t));
    const terms: Term[] = lines.flatMap((l) => [
      { annualBasicMinor: BigInt(l.annual_basic_after_minor), at: e, sign: 1 as const },
      { annualBasicMinor: BigInt(l.annual_basic_before_minor), at: e, sign: -1 as const },
    ]);
    const changes = {
      insured_id: risk.id,
      name: risk.name,
      sum_insured_minor: n(si),
      previous_sum_insured_minor: n(risk.sumInsuredMinor),
    };
    const effect = storedEffect(priceTerms(period, terms, table), period, e, lines);
    return { changes, effect, productVersion: product.version };
  },

  async apply(a) {
    for (const it of a.effect.items) {
      if (it.annual_basic_after_minor === it.annual_basic_before_minor) continue;
      await endItem(a, it.premium_item_id);
      await startRiskItem(a, it.risk_id ?? null, BigInt(it.annual_basic_after_minor!));
    }
    await a.tx.policyRisk.update({
      where: { id: a.changes.insured_id as number },
      data: { sumInsuredMinor: BigInt(a.changes.sum_insured_minor as number) },
    });
    return {};
  },
};

/** A premium item's new annual basic: an insured's (per-insured products) or the policy's as a whole (riskId null). */
type Target = { riskId: number | null; insured: string | null; after: bigint };

/** One premium item the new price touches (the policy's, or an insured's), with its annual basic before and after. */
function itemLine(pol: PolicyRow, t: Target) {
  const item = liveRiskItem(pol, t.riskId);
  if (!item) throw new DomainRuleError("The cover's premium items no longer match how its product is priced");
  return {
    regno: null,
    vehicle_id: null,
    insured: t.insured,
    risk_id: t.riskId,
    premium_item_id: item.id,
    annual_basic_before_minor: n(item.annualBasicMinor),
    annual_basic_after_minor: n(t.after),
  };
}
