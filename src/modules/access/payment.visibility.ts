import type { Principal } from '../../auth/principal.ts';
import type { Prisma } from '../../db/client.ts';
import { clientOwnership, ownTenant } from './client.visibility.ts';
import { policyVisibility } from './policy.visibility.ts';

/**
 * Payment requests and receipts an agent limited to their own records may see: their own, those of the policies they
 * may see, and (receipts) those of the clients they own. Not of every client they may see: a client reached only
 * through a policy they sold may hold policies of other agents, whose receipts would name them (an outside check,
 * 2026-12-03); the policies rule is the same (policy.visibility.ts).
 */

export function paymentRequestVisibility(p: Principal): Prisma.PaymentRequestWhereInput {
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return { ...ownTenant(p), OR: [{ requestedByUserId: a.userId }, { policy: policyVisibility(p) }] };
}

export function receiptVisibility(p: Principal): Prisma.ReceiptWhereInput {
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return { ...ownTenant(p), OR: [{ policy: policyVisibility(p) }, { client: clientOwnership(p) }] };
}
