import type { Tx } from '../../../db/client.ts';
import type { PolicyStatus } from '../../../generated/prisma/enums.ts';
import { fromDbDate, toDbDate } from '../../../lib/dates.ts';
import { DomainRuleError, validationFailed } from '../../../lib/problem.ts';

/** Statuses in which a policy's cover ran (renewed and expired: its period still covers its own days). */
const ON_COVER: readonly PolicyStatus[] = ['active', 'renewed', 'expired'];

/**
 * Whether the policy was in force on the loss date: the date inside its cover period, and the policy on cover (active,
 * or since renewed or expired), or cancelled with effect only after the loss. A policy never paid (pending_payment,
 * not_taken_up) or lapsed is not. Whether cover had attached by the hour of the loss (payment before the loss) is
 * the underwriter's check (with_underwriter), repudiated as policy_not_in_force. Refused with domain_rule, saying why.
 */
export async function assertInForce(
  tx: Tx,
  policy: { id: number; policyNo: string; status: PolicyStatus; startDate: Date; endDate: Date },
  lossDate: string,
): Promise<void> {
  const start = fromDbDate(policy.startDate);
  const end = fromDbDate(policy.endDate);
  if (lossDate < start || lossDate > end) {
    throw new DomainRuleError(
      `Policy ${policy.policyNo} covers ${start} to ${end}; the loss date ${lossDate} is outside it`,
    );
  }
  if (ON_COVER.includes(policy.status)) return;
  if (policy.status === 'cancelled') {
    const c = await tx.cancellation.findFirst({
      where: { policyId: policy.id, status: 'confirmed', reinstatedAt: null },
      orderBy: { id: 'desc' },
      select: { effectiveDate: true },
    });
    if (c && lossDate < fromDbDate(c.effectiveDate)) return;
    throw new DomainRuleError(
      `Policy ${policy.policyNo} was cancelled with effect from ${c ? fromDbDate(c.effectiveDate) : 'before the loss'}`,
    );
  }
  throw new DomainRuleError(`Policy ${policy.policyNo} was not in force on ${lossDate} (it is ${policy.status})`);
}

/**
 * The vehicle of a motor claim: on the policy on the loss date (added on or before it, not removed by then). A
 * registration is required for motor; refused with domain_rule when the vehicle was not on the policy that day.
 */
export async function vehicleOnCover(
  tx: Tx,
  policy: { id: number; policyNo: string; productLine: string },
  regNo: string | null,
  lossDate: string,
) {
  if (policy.productLine !== 'motor') return null;
  if (!regNo)
    throw validationFailed([{ field: 'input.registration', code: 'required', message: 'required for a motor claim' }]);
  const v = await tx.policyVehicle.findFirst({ where: { policyId: policy.id, regNo } });
  const day = toDbDate(lossDate);
  if (!v) throw new DomainRuleError(`Vehicle ${regNo} is not on policy ${policy.policyNo}`);
  if ((v.addedOn && v.addedOn > day) || (v.removedOn && v.removedOn <= day)) {
    throw new DomainRuleError(`Vehicle ${regNo} was not on policy ${policy.policyNo} on ${lossDate}`);
  }
  return v;
}

/**
 * The insured of a medical, travel or standard claim (a member, a traveller or an item: the policy record's
 * insured[].id), on cover under the policy on the loss date (added on or before it, not removed by then). Required
 * for those lines; a motor claim names its vehicle instead. Refused with domain_rule when not on cover that day.
 */
export async function insuredOnCover(
  tx: Tx,
  policy: { id: number; policyNo: string; productLine: string },
  insuredId: number | null | undefined,
  lossDate: string,
) {
  if (policy.productLine === 'motor') {
    if (insuredId != null)
      throw validationFailed([{ field: 'input.insuredId', message: 'a motor claim names its vehicle (registration)' }]);
    return null;
  }
  if (insuredId == null)
    throw validationFailed([
      { field: 'input.insuredId', message: `required for a ${policy.productLine} claim: an insured of the policy` },
    ]);
  const r = await tx.policyRisk.findFirst({ where: { policyId: policy.id, id: insuredId } });
  if (!r) throw new DomainRuleError(`Insured ${insuredId} is not on policy ${policy.policyNo}`);
  const day = toDbDate(lossDate);
  if ((r.addedOn && r.addedOn > day) || (r.removedOn && r.removedOn <= day)) {
    throw new DomainRuleError(`${r.name} was not on cover under policy ${policy.policyNo} on ${lossDate}`);
  }
  return r;
}
