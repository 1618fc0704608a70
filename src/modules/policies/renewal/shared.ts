import type { Prisma } from '../../../db/client.ts';
import { addDays, fromDbDate } from '../../../lib/dates.ts';
import { InvalidStateError, PreviewExpiredError, PreviewStaleError } from '../../../lib/problem.ts';
import { POLICY_RULES } from '../policy-state.ts';

/** What the renewal operations in this folder share: their rules, errors, the stored figures and who may renew. */

export const RENEWAL_RULES = {
  /** A renewal quote can be bound until the end of the day this many days after it was given (72 hours). */
  quoteValidDays: POLICY_RULES.previewValidHours / 24,
  /** renewals-due: the largest window a caller may ask for. */
  maxDueWithinDays: 120,
} as const;

export class RenewalStateError extends InvalidStateError {}
export class RenewalQuoteExpiredError extends PreviewExpiredError {}
export class RenewalQuoteStaleError extends PreviewStaleError {}

export interface RenewalVehicleInput {
  regNo?: string | null;
  value?: number | null;
}

export interface RenewPolicyInput {
  renewalQuoteUuid?: string | null;
  premium?: number | null;
  premiumInstalments?: number | null;
}

/** An insured person or item of a medical or standard policy, priced for the renewal period (cents as strings). */
export interface RenewalInsured {
  riskId: number;
  kind: string;
  name: string;
  /** Medical: the member's age at the start of the renewal period. */
  ageYears: number | null;
  sumInsuredMinor: string | null;
  /** Their own annual basic premium (null: the cover is priced as a whole, policyPremium). */
  previousAnnualBasicMinor: string | null;
  renewalAnnualBasicMinor: string | null;
}

/** What a renewal quote stores in `figures` (cents as decimal strings). */
export interface RenewalFigures {
  /** The motor product, or (productKind cover) the cover product. */
  productId: number;
  /** Absent on quotes of motor policies made before other lines renewed: motor. */
  productKind?: 'motor' | 'cover';
  /** Medical and standard policies: the insured priced, and the premium of a cover priced as a whole. */
  insured?: RenewalInsured[];
  policyPremium?: { previousMinor: string | null; renewalMinor: string } | null;
  basedOnRevision: number;
  rateBps: number | null;
  vehicles: {
    vehicleId: number;
    regNo: string;
    valueMinor: string | null;
    previousAnnualBasicMinor: string;
    renewalAnnualBasicMinor: string;
  }[];
  levies: { code: string; name: string; amountMinor: string }[];
  instalments: { parts: number; amountsMinor: string[] }[];
  previous: { basicMinor: string; taxesMinor: string; totalMinor: string };
}

export const figuresOf = (q: { figures: unknown }) => q.figures as RenewalFigures;

type PolicyRow = Prisma.PolicyGetPayload<{ include: { renewal: true } }>;

/** Active, or expired within the reinstatement window, and not renewed yet. */
export function assertRenewable(policy: PolicyRow, today: string): void {
  if (policy.renewal)
    throw new RenewalStateError(`Policy ${policy.policyNo} is already renewed by ${policy.renewal.policyNo}`);
  if (policy.status === 'active') return;
  if (policy.status === 'expired' && addDays(fromDbDate(policy.endDate), POLICY_RULES.reinstatementDays) >= today)
    return;
  throw new RenewalStateError(
    policy.status === 'expired'
      ? `Policy ${policy.policyNo} expired more than ${POLICY_RULES.reinstatementDays} days ago; bind a new policy`
      : `A ${policy.status} policy cannot be renewed`,
  );
}
