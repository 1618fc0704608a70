import type { Principal } from '../../auth/principal.ts';
import type { Tx } from '../../db/client.ts';
import { claimVisibility } from './claim.visibility.ts';
import { clientVisibility } from './client.visibility.ts';
import { prospectVisibility } from './prospect.visibility.ts';
import { policyVisibility } from './policy.visibility.ts';

/**
 * Whether the caller may hear of an event: staff hear every event of the tenant; an agent only those about a policy
 * (by `policy_uuid`) or a client (by `client_no`) they may see, and of a claim (`claim_uuid`) or prospect
 * (`prospect_uuid`) they may see, which decides alone when named. Events naming none of these are staff-only.
 */
export async function eventVisibleTo(tx: Tx, p: Principal, data: Record<string, unknown>): Promise<boolean> {
  if (!p.actor?.ownRecordsOnly) return true;
  if (typeof data.claim_uuid === 'string') {
    return !!(await tx.claim.findFirst({
      where: { uuid: data.claim_uuid, ...claimVisibility(p) },
      select: { id: true },
    }));
  }
  if (typeof data.prospect_uuid === 'string') {
    return !!(await tx.prospect.findFirst({
      where: { uuid: data.prospect_uuid, ...prospectVisibility(p) },
      select: { id: true },
    }));
  }
  if (typeof data.policy_uuid === 'string') {
    return !!(await tx.policy.findFirst({
      where: { uuid: data.policy_uuid, ...policyVisibility(p) },
      select: { id: true },
    }));
  }
  if (typeof data.client_no === 'string') {
    return !!(await tx.client.findFirst({
      where: { clientNo: data.client_no, ...clientVisibility(p) },
      select: { id: true },
    }));
  }
  return false;
}
