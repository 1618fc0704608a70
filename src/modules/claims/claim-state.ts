import { now as clockNow } from '../../lib/clock.ts';
import type { Tx } from '../../db/client.ts';
import type { ClaimStatus } from '../../generated/prisma/enums.ts';
import { InvalidStateError } from '../../lib/problem.ts';

/**
 * The claim state machine, in one place: every status change goes through `transitionClaim`, which refuses a move
 * this table does not list (409 invalid_state), guards it in SQL, writes the history row (who, when, why) and resets
 * the service-level clock. docs/claims.md "Claims" documents each move:
 *
 *   registered        → documents_pending   acknowledged; the checklist is open (api)
 *   documents_pending → with_underwriter    every required document received or waived (api)
 *   with_underwriter  → under_assessment    cover confirmed, assessor appointed (api)
 *   with_underwriter  → repudiated          the underwriter declines without assessment (api, repudiate)
 *   under_assessment  → approved            approved amount, excess and net payable recorded (api, approve)
 *   under_assessment  → repudiated          declined with a reason from CLAIM_RULES.repudiationReasons (api)
 *   approved          → settled             paid in full (payment confirmation)
 *   settled           → closed              (api)
 *   repudiated        → closed              (api)
 *   closed            → under_assessment    reopened within CLAIM_RULES.reopenDays of closing (api, reopen)
 *   any open state    → withdrawn           the claimant withdraws; not once money is instructed (api)
 */
export const CLAIM_TRANSITIONS: Record<ClaimStatus, readonly ClaimStatus[]> = {
  registered: ['documents_pending', 'withdrawn'],
  documents_pending: ['with_underwriter', 'withdrawn'],
  with_underwriter: ['under_assessment', 'repudiated', 'withdrawn'],
  under_assessment: ['approved', 'repudiated', 'withdrawn'],
  approved: ['settled', 'withdrawn'],
  settled: ['closed'],
  repudiated: ['closed'],
  closed: ['under_assessment'],
  withdrawn: [],
};

/** States in which the claim is still being handled (withdrawal is possible, service levels run). */
export const OPEN_CLAIM_STATES: readonly ClaimStatus[] = [
  'registered',
  'documents_pending',
  'with_underwriter',
  'under_assessment',
  'approved',
];

/**
 * Moves that need their own command (and its data): a plain move to these is refused with the command to use. Reopen
 * is `closed → under_assessment` through `reopen`.
 */
export const COMMAND_ONLY: Partial<Record<ClaimStatus, string>> = {
  approved: 'approve',
  repudiated: 'repudiate',
  settled: 'a payment that completes the net payable',
};

/** The documented rules of the claims lifecycle (docs/claims.md "Claims"). */
export const CLAIM_RULES = {
  /** A claim reported more than this many hours after the loss carries late_notification. */
  lateNotificationHours: 48,
  /** A closed claim can be reopened (to under_assessment) for this many days after closing. */
  reopenDays: 90,
  /**
   * Service levels: working days (Monday to Friday on the Nairobi calendar; public holidays are not yet counted) a
   * claim may stay in each open state. A claim past its due time is breached (claim.sla_breached, once per state).
   */
  slaWorkingDays: {
    registered: 1,
    documents_pending: 14,
    with_underwriter: 3,
    under_assessment: 7,
    approved: 5,
  } as Partial<Record<ClaimStatus, number>>,
  /** Reasons a claim may be repudiated for (codes on the wire). */
  repudiationReasons: [
    'not_covered',
    'policy_not_in_force',
    'exclusion_applies',
    'late_notification',
    'fraud_suspected',
    'non_disclosure',
    'unlicensed_driver',
    'documents_not_provided',
    'below_excess',
  ],
  /** How a claim may be reported. */
  channels: ['api', 'phone', 'email', 'walk_in', 'agent', 'client_area'],
} as const;

export type ClaimMoveSource = 'api' | 'payment' | 'schedule' | 'system';

export function canMoveClaim(from: ClaimStatus, to: ClaimStatus): boolean {
  return CLAIM_TRANSITIONS[from]?.includes(to) ?? false;
}

export function assertClaimMove(from: ClaimStatus, to: ClaimStatus): void {
  if (!canMoveClaim(from, to)) {
    throw new InvalidStateError(`A claim cannot go from ${from} to ${to}`, {
      claim_status: from,
      allowed: [...CLAIM_TRANSITIONS[from]],
    });
  }
}

const DAY_MS = 86_400_000;
const NAIROBI_OFFSET_MS = 3 * 3_600_000;

/**
 * `from` plus `days` working days, at the same Nairobi time of day: Saturdays and Sundays (Nairobi calendar) do not
 * count; a start at the weekend counts from the Monday.
 */
export function addWorkingDays(from: Date, days: number): Date {
  let t = from.getTime();
  const weekday = (ms: number) => new Date(ms + NAIROBI_OFFSET_MS).getUTCDay();
  while (weekday(t) === 6 || weekday(t) === 0) t += DAY_MS;
  let left = days;
  while (left > 0) {
    t += DAY_MS;
    if (weekday(t) !== 6 && weekday(t) !== 0) left -= 1;
  }
  return new Date(t);
}

/** When a claim entering `status` at `at` should leave it; null for states without a service level. */
export function slaDueAt(status: ClaimStatus, at: Date): Date | null {
  const days = CLAIM_RULES.slaWorkingDays[status];
  return days == null ? null : addWorkingDays(at, days);
}

export interface ClaimMoveMeta {
  tenantId: number;
  source: ClaimMoveSource;
  reason?: string | null;
  actorUserId?: number | null;
  actorApiClientId?: number | null;
  /** Who moved it, as shown in history and events: a user's name, an API client's name, or `system`. */
  actorName: string;
  at?: Date;
}

/**
 * Moves claim `claimId` from `from` to `to`, guarded in SQL (only while it is still `from`, so two writers cannot
 * both move it), with the history row and the new service-level clock in the same transaction. Returns the time of
 * the move, or null when the claim had already moved.
 */
export async function transitionClaim(
  tx: Tx,
  claimId: number,
  from: ClaimStatus,
  to: ClaimStatus,
  meta: ClaimMoveMeta,
): Promise<Date | null> {
  assertClaimMove(from, to);
  const at = meta.at ?? clockNow();
  const r = await tx.claim.updateMany({
    where: { id: claimId, status: from },
    data: {
      status: to,
      statusChangedAt: at,
      slaDueAt: slaDueAt(to, at),
      slaBreachNotifiedAt: null,
      ...(to === 'closed' ? { closedAt: at } : from === 'closed' ? { closedAt: null } : {}),
    },
  });
  if (r.count !== 1) return null;
  await recordClaimStatus(tx, claimId, from, to, { ...meta, at });
  return at;
}

/** One history row (also the first one, `from` null, at registration). */
export async function recordClaimStatus(
  tx: Tx,
  claimId: number,
  from: ClaimStatus | null,
  to: ClaimStatus,
  meta: ClaimMoveMeta,
): Promise<void> {
  await tx.claimStatusChange.create({
    data: {
      tenantId: meta.tenantId,
      claimId,
      fromStatus: from,
      toStatus: to,
      source: meta.source,
      reason: meta.reason ?? null,
      actorUserId: meta.actorUserId ?? null,
      actorApiClientId: meta.actorApiClientId ?? null,
      actorName: meta.actorName,
      at: meta.at ?? clockNow(),
    },
  });
}
