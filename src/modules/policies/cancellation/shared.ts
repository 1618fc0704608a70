import { now as clockNow } from '../../../lib/clock.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { policyVisibility } from '../../access/policy.visibility.ts';
import type { Period } from '../proration.ts';

/**
 * What the cancellation operations in this folder share: the documented reasons and requesters, and how a policy or
 * a cancellation is found (visible to the caller) and locked.
 */

/** The documented reasons and the registry cancellation reason id each maps to (registry.ts CANCEL_REASONS). */
export const CANCELLATION_REASONS = {
  insured_request: { registryReasonId: 8, description: 'The insured asked to cancel' },
  vehicle_sold: { registryReasonId: 15, description: 'The vehicle was sold' },
  non_payment: { registryReasonId: 21, description: 'Premium not paid' },
  written_off: { registryReasonId: 29, description: 'The vehicle was written off' },
  stolen: { registryReasonId: 30, description: 'The vehicle was stolen' },
  insurer_request: { registryReasonId: 8, description: 'The insurer withdrew cover' },
  duplicate_cover: { registryReasonId: 8, description: 'The vehicle is insured elsewhere' },
} as const;
export type CancellationReason = keyof typeof CANCELLATION_REASONS;
/** Reasons that speak of a vehicle: a medical, travel or standard policy is not cancelled for them. */
export const VEHICLE_REASONS: ReadonlySet<CancellationReason> = new Set(['vehicle_sold', 'written_off', 'stolen']);
export const CANCELLATION_REQUESTERS = ['insured', 'intermediary', 'insurer', 'lender'] as const;

export interface CancellationInput {
  reason?: string | null;
  requestedBy?: string | null;
  effectiveDate?: string | null;
  note?: string | null;
}

export const MAX_NOTE = 500;

export type PolicyRow = NonNullable<Awaited<ReturnType<Tx['policy']['findFirst']>>>;

export const periodOf = (p: PolicyRow): Period => ({ start: fromDbDate(p.startDate), end: fromDbDate(p.endDate) });

/** The policy as the notes service addresses it. */
export const noteRef = (policy: PolicyRow) => ({
  id: policy.id,
  tenantId: policy.tenantId,
  policyNo: policy.policyNo,
  clientId: policy.clientId,
});

export async function findVisiblePolicy(
  ctx: Context,
  tx: Tx,
  where: { uuid: string } | { id: number },
): Promise<PolicyRow> {
  if ('uuid' in where && !isUuid(where.uuid)) throw notFound('Policy');
  const row = await tx.policy.findFirst({ where: { AND: [where, policyVisibility(ctx.principal)] } });
  if (!row) throw notFound('Policy');
  return row;
}

export async function lockPolicy(tx: Tx, policyId: number): Promise<PolicyRow> {
  await tx.$queryRaw`SELECT id FROM policies WHERE id = ${policyId} FOR UPDATE`;
  return tx.policy.findUniqueOrThrow({ where: { id: policyId } });
}

/** A cancellation by uuid whose policy the caller may see (and, when given, that belongs to `policyUuid`); else 404. */
export async function findVisibleCancellation(ctx: Context, tx: Tx, uuid: string, policyUuid?: string | null) {
  if (!isUuid(uuid)) throw notFound('Cancellation');
  const c = await tx.cancellation.findUnique({ where: { uuid } });
  if (!c) throw notFound('Cancellation');
  const policy = await tx.policy.findFirst({ where: { AND: [{ id: c.policyId }, policyVisibility(ctx.principal)] } });
  if (!policy || (policyUuid != null && policy.uuid !== policyUuid)) throw notFound('Cancellation');
  return { c, policy };
}

/** The client number events name the policy's client by. */
export async function clientNoOf(tx: Tx, clientId: number): Promise<string> {
  const client = await tx.client.findUniqueOrThrow({ where: { id: clientId }, select: { clientNo: true } });
  return client.clientNo;
}

/** Status as shown: a quoted preview past its expiry reads `expired`. */
export function displayStatus(c: { status: string; expiresAt: Date }): string {
  return c.status === 'quoted' && c.expiresAt.getTime() < clockNow().getTime() ? 'expired' : c.status;
}
