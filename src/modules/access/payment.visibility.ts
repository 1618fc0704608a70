import type { Principal } from '../../auth/principal.ts';
import type { Prisma } from '../../db/client.ts';
import { clientVisibility, ownTenant } from './client.visibility.ts';
import { policyVisibility } from './policy.visibility.ts';

/**
 * Payment requests and receipts an agent limited to their own records may see: their own, or those of the policies and
 * clients they may see.
 */

export function paymentRequestVisibility(p: Principal): Prisma.PaymentRequestWhereInput {
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return { ...ownTenant(p), OR: [{ requestedByUserId: a.userId }, { policy: policyVisibility(p) }] };
}

export function receiptVisibility(p: Principal): Prisma.ReceiptWhereInput {
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return { ...ownTenant(p), OR: [{ policy: policyVisibility(p) }, { client: clientVisibility(p) }] };
}
