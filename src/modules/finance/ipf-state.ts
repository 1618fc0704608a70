import type { Tx } from '../../db/client.ts';
import { InvalidStateError } from '../../lib/problem.ts';

/**
 * The premium-finance state machines, in one place (docs/premium-finance.md "Premium finance"): every status change of an
 * application or a loan goes through `transitionIpf`, which refuses a move these tables do not list (409
 * invalid_state with `allowed`), guards it in SQL (only while the row is still in `from`, so two writers cannot both
 * move it) and writes the history row (who, when, why) in the caller's transaction.
 *
 * Applications:
 *   draft     → submitted   the broker submits it (KYC and consent complete); the lender's decision is queued
 *   submitted → approved    the lender approves (ipf.decided)
 *   submitted → declined    the lender declines, with reasons (ipf.decided)
 *   approved  → signed      the client signs the agreement with the one-time code; the loan is created
 *   signed    → funded      the deposit is paid and the lender has paid the insurer (ipf.funded)
 *   draft | submitted | approved | signed → cancelled   withdrawn by the broker (signed: only before any deposit)
 *   draft | approved | signed → expired                 not completed in time (IPF_RULES; the daily job)
 *
 * Loans:
 *   awaiting_deposit → active     funded: the lender paid the insurer, the policy is active (ipf.funded)
 *   awaiting_deposit → cancelled  the application was cancelled or expired before the deposit
 *   active           → settled    paid in full, or settled early (ipf.settled)
 *   active           → defaulted  an instalment unpaid past the lender's grace days (ipf.defaulted)
 */
export const APPLICATION_TRANSITIONS = {
  draft: ['submitted', 'cancelled', 'expired'],
  submitted: ['approved', 'declined', 'cancelled'],
  approved: ['signed', 'cancelled', 'expired'],
  declined: [],
  signed: ['funded', 'cancelled', 'expired'],
  funded: [],
  cancelled: [],
  expired: [],
} as const satisfies Record<string, readonly string[]>;

export type ApplicationStatus = keyof typeof APPLICATION_TRANSITIONS;
export const APPLICATION_STATUSES = Object.keys(APPLICATION_TRANSITIONS) as ApplicationStatus[];

export const LOAN_TRANSITIONS = {
  awaiting_deposit: ['active', 'cancelled'],
  active: ['settled', 'defaulted'],
  settled: [],
  defaulted: [],
  cancelled: [],
} as const satisfies Record<string, readonly string[]>;

export type LoanStatus = keyof typeof LOAN_TRANSITIONS;
export const LOAN_STATUSES = Object.keys(LOAN_TRANSITIONS) as LoanStatus[];

/** The documented rules of premium finance (docs/premium-finance.md "Premium finance"). */
export const IPF_RULES = {
  /** A draft or an approved application not signed within this many days expires. */
  applicationValidDays: 14,
  /** A signed agreement whose deposit is not paid within this many days expires (the loan is cancelled). */
  depositDays: 7,
  /** Instalment reminders by SMS this many days before a due date. */
  reminderDaysBefore: 3,
  /** An early-settlement figure, once confirmed, holds for this many days. */
  settlementValidDays: 7,
  /** Tenors offered at all, whatever a lender's table says. */
  minTenorMonths: 3,
  maxTenorMonths: 10,
  /** Income bands an applicant declares, and the monthly floor (cents) affordability is judged on. */
  incomeBands: {
    below_20k: 1_000_000n,
    '20k_50k': 2_000_000n,
    '50k_100k': 5_000_000n,
    '100k_250k': 10_000_000n,
    above_250k: 25_000_000n,
  } as Record<string, bigint>,
} as const;

type Entity = 'application' | 'loan';
const TABLES = { application: 'ipf_applications', loan: 'ipf_loans' } as const;
const MACHINES: Record<Entity, Record<string, readonly string[]>> = {
  application: APPLICATION_TRANSITIONS,
  loan: LOAN_TRANSITIONS,
};

export function canMoveIpf(entity: Entity, from: string, to: string): boolean {
  return MACHINES[entity][from]?.includes(to) ?? false;
}

export function assertIpfMove(entity: Entity, from: string, to: string): void {
  if (!canMoveIpf(entity, from, to)) {
    throw new InvalidStateError(`A premium-finance ${entity} cannot go from ${from} to ${to}`, {
      [`${entity}_status`]: from,
      allowed: [...(MACHINES[entity][from] ?? [])],
    });
  }
}

export interface IpfMoveMeta {
  tenantId: number;
  reason: string;
  /** Who moved it, as history shows: a user's or API client's name, `lender`, `client` or `system`. */
  actor: string;
}

/**
 * Moves an application or a loan from `from` to `to` (refused with 409 when the tables do not list it), guarded in
 * SQL, with its history row. Returns false when the row had already left `from` (another writer moved it first).
 */
export async function transitionIpf(
  tx: Tx,
  entity: Entity,
  id: number,
  from: string,
  to: string,
  meta: IpfMoveMeta,
): Promise<boolean> {
  assertIpfMove(entity, from, to);
  const moved = await tx.$executeRawUnsafe(
    `UPDATE ${TABLES[entity]} SET status = $1, updated_at = now() WHERE id = $2 AND status = $3`,
    to,
    id,
    from,
  );
  if (!moved) return false;
  await tx.ipfStateHistory.create({
    data: {
      tenantId: meta.tenantId,
      entity,
      entityId: id,
      fromStatus: from,
      toStatus: to,
      reason: meta.reason,
      actor: meta.actor,
    },
  });
  return true;
}
