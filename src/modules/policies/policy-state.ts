import { now as clockNow } from '../../lib/clock.ts';
import type { Tx } from '../../db/client.ts';
import type { PolicyStatus } from '../../generated/prisma/enums.ts';
import { AppError } from '../../lib/problem.ts';
import { Prisma } from '../../generated/prisma/client.ts';

/**
 * The policy state machine, in one place: every status change goes through `transitionPolicy`, which refuses a move
 * this table does not list and writes the policy's status history.
 *
 *   pending_payment → active          first instalment paid in full (payment)
 *   pending_payment → not_taken_up    never paid within POLICY_RULES.notTakenUpDays (schedule)
 *   active          → cancelled       cancellation confirmed (api)
 *   active          → expired         the day after the end date (schedule)
 *   active          → lapsed          an instalment unpaid POLICY_RULES.lapseGraceDays after its due date (schedule)
 *   active          → renewed         its renewal policy became active (payment)
 *   expired         → renewed         its renewal policy became active after the old one expired (payment)
 *   cancelled       → active          reinstatement within POLICY_RULES.reinstatementDays of the cancellation (api)
 *   lapsed          → active          the arrears paid within POLICY_RULES.reinstatementDays of the lapse (payment)
 */
export const POLICY_TRANSITIONS: Record<PolicyStatus, readonly PolicyStatus[]> = {
  pending_payment: ['active', 'not_taken_up'],
  active: ['cancelled', 'expired', 'lapsed', 'renewed'],
  expired: ['renewed'],
  cancelled: ['active'],
  lapsed: ['active'],
  renewed: [],
  not_taken_up: [],
};

/** The documented time rules of the lifecycle (docs/policy-lifecycle.md "Policy lifecycle"). */
export const POLICY_RULES = {
  /** pending_payment → not_taken_up when the first instalment is unpaid this many days after the later of start and bind. */
  notTakenUpDays: 30,
  /** active → lapsed when an instalment is still unpaid this many days after its due date. */
  lapseGraceDays: 14,
  /** A cancellation (or a lapse) can be reversed within this many days. */
  reinstatementDays: 30,
  /** Renewal notices (policy.renewal_due) go out this many days before expiry. */
  renewalNoticeDays: 30,
  /** Endorsement and cancellation previews, and renewal quotes, can be confirmed for this long. */
  previewValidHours: 72,
} as const;

export type TransitionSource = 'bind' | 'payment' | 'schedule' | 'api' | 'renewal' | 'reinstatement';

export function canTransition(from: PolicyStatus, to: PolicyStatus): boolean {
  return POLICY_TRANSITIONS[from]?.includes(to) ?? false;
}

export class IllegalTransitionError extends AppError {
  constructor(from: PolicyStatus, to: PolicyStatus) {
    super('invalid_state', { detail: `A policy cannot go from ${from} to ${to}` });
  }
}

export function assertTransition(from: PolicyStatus, to: PolicyStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

export interface TransitionMeta {
  tenantId: number;
  source: TransitionSource;
  reason?: string | null;
  actorUserId?: number | null;
}

/**
 * Moves a policy from `from` to `to`, guarded in SQL as well: the update only applies while the row still has
 * status `from`, so two concurrent writers cannot both move it. Writes the history row in the same transaction.
 * Returns false when the policy had already moved.
 */
export async function transitionPolicy(
  tx: Tx,
  policyId: number,
  from: PolicyStatus,
  to: PolicyStatus,
  meta: TransitionMeta,
): Promise<boolean> {
  assertTransition(from, to);
  const now = clockNow();
  const r = await tx.policy.updateMany({
    where: { id: policyId, status: from },
    data: { status: to, statusChangedAt: now },
  });
  if (r.count !== 1) return false;
  await tx.policyStatusChange.create({
    data: {
      tenantId: meta.tenantId,
      policyId,
      fromStatus: from,
      toStatus: to,
      source: meta.source,
      reason: meta.reason ?? null,
      actorUserId: meta.actorUserId ?? null,
      at: now,
    },
  });
  return true;
}

/** The status every new policy (bind or renewal bind) starts in. */
export const INITIAL_POLICY_STATUS: PolicyStatus = 'pending_payment';

/**
 * The first history row of a new policy, as the body of a CTE that reads the new policy's id from the CTE named
 * `policyCte` (createPolicy writes a policy and the rows it starts with in one statement), at the bind instant.
 */
export function initialStatusSql(policyCte: string, meta: TransitionMeta, at: Date): Prisma.Sql {
  const from = Prisma.raw(policyCte);
  return Prisma.sql`INSERT INTO policy_status_changes (tenant_id, policy_id, from_status, to_status, source, reason,
      actor_user_id, at)
    SELECT ${meta.tenantId}::int, ${from}.id, NULL, ${INITIAL_POLICY_STATUS}::"PolicyStatus", ${meta.source},
      ${meta.reason ?? null}, ${meta.actorUserId ?? null}::int, ${at}::timestamptz
    FROM ${from}`;
}
