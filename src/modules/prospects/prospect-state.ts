import type { Tx } from '../../db/client.ts';
import type { ProspectStatus } from '../../generated/prisma/enums.ts';
import { InvalidStateError } from '../../lib/problem.ts';

/**
 * The prospect state machine, in one place (docs/motor-and-clients.md "Prospects"):
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

/**
 * What a saved quote or a bind may do on its own beyond the table: the sale itself is the proof that the earlier
 * steps happened, so a quote may skip straight to quoted, and a bind passes through quoted to won.
 */
const AUTOMATIC_MOVES: Record<'quote' | 'bind', Partial<Record<ProspectStatus, readonly ProspectStatus[]>>> = {
  quote: { new: ['quoted'], contacted: ['quoted'], qualified: ['quoted'] },
  bind: { new: ['quoted'], contacted: ['quoted'], qualified: ['quoted'], quoted: ['won'] },
};

/** Who moves a prospect: a person (the table alone), or a quote or a bind (the table and AUTOMATIC_MOVES). */
export type ProspectMoveSource = 'manual' | 'quote' | 'bind';

/** Open prospects: the follow-up list and the daily job consider only these. */
export const OPEN_PROSPECT_STATES: readonly ProspectStatus[] = ['new', 'contacted', 'qualified', 'quoted'];

export const PROSPECT_RULES = {
  lostReasons: ['price', 'competitor', 'no_need', 'unreachable', 'not_eligible', 'duplicate', 'other'],
  sources: ['walk_in', 'referral', 'website', 'social_media', 'event', 'cold_call', 'bancassurance', 'other'],
  interests: ['motor', 'medical', 'travel', 'standard', 'ipf'],
  types: ['individual', 'business'],
} as const;

export function canMoveProspect(from: ProspectStatus, to: ProspectStatus, source: ProspectMoveSource = 'manual') {
  if (PROSPECT_TRANSITIONS[from]?.includes(to)) return true;
  return source !== 'manual' && (AUTOMATIC_MOVES[source][from]?.includes(to) ?? false);
}

/** The statuses a quote or a bind walks a prospect through from `from` (empty: it stays where it is). */
export function automaticPath(source: 'quote' | 'bind', from: ProspectStatus): ProspectStatus[] {
  if (source === 'quote') return canMoveProspect(from, 'quoted', source) ? ['quoted'] : [];
  if (from === 'quoted') return ['won'];
  return canMoveProspect(from, 'quoted', source) ? ['quoted', 'won'] : [];
}

export function assertProspectMove(from: ProspectStatus, to: ProspectStatus, source: ProspectMoveSource = 'manual') {
  if (!canMoveProspect(from, to, source)) {
    throw new InvalidStateError(`A prospect cannot go from ${from} to ${to}`, {
      status: from,
      allowed: [...PROSPECT_TRANSITIONS[from]],
    });
  }
}

/** One timeline row: a note, or a status move with who and why. */
export interface TimelineEntry {
  tenantId: number;
  prospectId: number;
  kind: 'note' | 'created' | 'status_changed' | 'converted' | 'quote_saved' | 'policy_bound';
  body?: string | null;
  fromStatus?: ProspectStatus | null;
  toStatus?: ProspectStatus | null;
  actorUserId: number | null;
}

export async function addTimeline(tx: Tx, e: TimelineEntry): Promise<void> {
  await tx.prospectNote.create({
    data: {
      tenantId: e.tenantId,
      prospectId: e.prospectId,
      kind: e.kind,
      body: e.body ?? null,
      fromStatus: e.fromStatus ?? null,
      toStatus: e.toStatus ?? null,
      actorUserId: e.actorUserId,
    },
  });
}

/**
 * The only writer of a prospect's status: a guarded move (the row must still be in `from`, else 409: it moved
 * meanwhile) that stamps statusChangedAt, clears the lost reason on leaving lost, and writes the timeline row.
 */
export async function transitionProspect(
  tx: Tx,
  prospect: { id: number; tenantId: number; status: ProspectStatus },
  to: ProspectStatus,
  meta: {
    source: ProspectMoveSource;
    kind: TimelineEntry['kind'];
    actorUserId: number | null;
    body?: string | null;
    lostReason?: string | null;
  },
): Promise<void> {
  const from = prospect.status;
  assertProspectMove(from, to, meta.source);
  const r = await tx.prospect.updateMany({
    where: { id: prospect.id, status: from },
    data: { status: to, statusChangedAt: new Date(), lostReason: to === 'lost' ? (meta.lostReason ?? null) : null },
  });
  if (r.count !== 1) throw new InvalidStateError('The prospect changed meanwhile; read it again', { status: from });
  await addTimeline(tx, {
    tenantId: prospect.tenantId,
    prospectId: prospect.id,
    kind: meta.kind,
    body: meta.body,
    fromStatus: from,
    toStatus: to,
    actorUserId: meta.actorUserId,
  });
}
