import type { Tx } from '../../db/client.ts';
import type { PolicyStatus } from '../../generated/prisma/enums.ts';
import { AppError } from '../../lib/problem.ts';

/**
 * The policy state machine of the spec's States table, in one place: every status change goes through
 * `transitionPolicy`, which refuses a move the table does not list. Later issues add their rows here.
 */
export const POLICY_TRANSITIONS: Record<PolicyStatus, readonly PolicyStatus[]> = {
  // First instalment paid in full (a receipt allocated to the first debit note).
  pending_payment: ['active'],
  active: [],
  cancelled: [],
  expired: [],
  lapsed: [],
  renewed: [],
  not_taken_up: [],
};

export function canTransition(from: PolicyStatus, to: PolicyStatus): boolean {
  return POLICY_TRANSITIONS[from]?.includes(to) ?? false;
}

export class IllegalTransitionError extends AppError {
  constructor(from: PolicyStatus, to: PolicyStatus) {
    super('domain_rule', { detail: `A policy cannot go from ${from} to ${to}` });
  }
}

export function assertTransition(from: PolicyStatus, to: PolicyStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

/**
 * Moves a policy from `from` to `to`, guarded in SQL as well: the update only applies while the row still has
 * status `from`, so two concurrent settlements cannot both activate it. Returns false when it had already moved.
 */
export async function transitionPolicy(tx: Tx, policyId: number, from: PolicyStatus, to: PolicyStatus): Promise<boolean> {
  assertTransition(from, to);
  const r = await tx.policy.updateMany({ where: { id: policyId, status: from }, data: { status: to } });
  return r.count === 1;
}
