import { type FieldError, ValidationError } from '../../../lib/problem.ts';
import type { ApplyArgs, EndorseInput, PolicyRow } from './shared.ts';

/**
 * What the operations on a non-motor policy's insured share (add_member, remove_member, change_sum_insured): the
 * insured an operation names (by its id on the policy record, insured[].id), their live premium items, and starting
 * and ending those items as the vehicle operations do.
 */

/** The insured an operation names: required, a positive whole number. */
export function insuredIdErrors(input: EndorseInput): FieldError[] {
  const id = input.insuredId;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0
    ? []
    : [
        {
          field: 'input.insuredId',
          message: "required: the id of an insured on this policy (the record's insured[].id)",
        },
      ];
}

/** The insured on cover `input.insuredId` names, or 422 on insured_id. */
export function namedInsured(pol: PolicyRow, input: EndorseInput) {
  const risk = pol.risks.find((r) => r.id === input.insuredId && r.status === 'active');
  if (!risk)
    throw new ValidationError([
      { field: 'input.insuredId', message: `${input.insuredId} is not on cover under this policy` },
    ]);
  return risk;
}

/** The insured on cover, in the order they were added. */
export const activeRisks = (pol: PolicyRow) => pol.risks.filter((r) => r.status === 'active');

/** The live premium item of an insured (riskId), or of the policy as a whole (null). */
export function liveRiskItem(pol: PolicyRow, riskId: number | null) {
  return pol.premiumItems.find((i) => i.vehicleId === null && i.riskId === riskId) ?? null;
}

/** A new premium item of an insured (or the policy as a whole), from the effective date to the end of the period. */
export function startRiskItem(a: ApplyArgs, riskId: number | null, annualBasicMinor: bigint) {
  return a.tx.policyPremiumItem.create({
    data: {
      tenantId: a.pol.tenantId,
      policyId: a.pol.id,
      riskId,
      annualBasicMinor,
      fromDate: a.end.effectiveDate,
      toDate: a.pol.endDate,
      endorsementId: a.end.id,
    },
  });
}
