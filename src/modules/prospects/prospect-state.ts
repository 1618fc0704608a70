import type { ProspectStatus } from '../../generated/prisma/enums.ts';
import { AppError } from '../../lib/problem.ts';

/**
 * The prospect state machine, in one place (README "Prospects"):
 *
 *   new       → contacted, qualified, lost
 *   contacted → qualified, lost
 *   qualified → quoted (a quote saved for it, or by hand), lost
 *   quoted    → won (a policy bound for it, or by hand), lost, qualified (the quote lapsed; re-qualify)
 *   lost      → contacted (revived)
 *   won       → (end)
 *
 * A quote saved for a prospect in new, contacted or qualified moves it to quoted; a bind moves any open prospect
 * (not lost) through quoted to won. Lost needs a reason from PROSPECT_RULES.lostReasons.
 */
export const PROSPECT_TRANSITIONS: Record<ProspectStatus, readonly ProspectStatus[]> = {
  new: ['contacted', 'qualified', 'lost'],
  contacted: ['qualified', 'lost'],
  qualified: ['quoted', 'lost'],
  quoted: ['won', 'lost', 'qualified'],
  lost: ['contacted'],
  won: [],
};

export const PROSPECT_RULES = {
  lostReasons: ['price', 'competitor', 'no_need', 'unreachable', 'not_eligible', 'duplicate', 'other'],
  sources: ['walk_in', 'referral', 'website', 'social_media', 'event', 'cold_call', 'bancassurance', 'other'],
  interests: ['motor', 'medical', 'travel', 'standard', 'ipf'],
} as const;

export function canMoveProspect(from: ProspectStatus, to: ProspectStatus): boolean {
  return PROSPECT_TRANSITIONS[from]?.includes(to) ?? false;
}

export function assertProspectMove(from: ProspectStatus, to: ProspectStatus): void {
  if (!canMoveProspect(from, to)) {
    throw new AppError('invalid_state', {
      detail: `A prospect cannot go from ${from} to ${to}`,
      extra: { status: from, allowed: [...PROSPECT_TRANSITIONS[from]] },
    });
  }
}
