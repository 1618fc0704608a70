import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { nextNumber } from '../../../db/counters.ts';
import { toDbDate } from '../../../lib/dates.ts';
import { fromShillings } from '../../../lib/money.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit, snakeKeys } from '../../audit/audit.service.ts';
import { addTimeline } from '../prospect-state.ts';
import { assertAssignee, assertNoDuplicates } from './identity.ts';
import { createProspectSchema } from './input.ts';
import { type ProspectQuery, reread } from './read.ts';

/**
 * Numbers the prospect (P-NNNNNN, gap-free), normalises its identifiers like a client's, refuses a duplicate of a
 * client or prospect unless forced, and opens its timeline. An agent creating one is its assignee unless told.
 */
export async function createProspect(ctx: Context, input: unknown, query: ProspectQuery = {}) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'prospects.write');
  const d = parseInput(createProspectSchema, input);
  return ctx.tx(async (tx) => {
    await assertAssignee(tx, d.assigneeId);
    await assertNoDuplicates(ctx, tx, d, { force: d.force });
    const prospectNo = `P-${String(await nextNumber(tx, p.tenant.id, 'prospect_no')).padStart(6, '0')}`;
    const row = await tx.prospect.create({
      data: {
        tenantId: p.tenant.id,
        uuid: randomUUID(),
        prospectNo,
        type: d.type ?? 'individual',
        name: d.name,
        phone: d.phone ?? null,
        email: d.email ?? null,
        idNo: d.idNo,
        kraPin: d.kraPin,
        source: d.source ?? null,
        interests: d.interests ?? [],
        estimatedPremiumMinor: d.estimatedPremium == null ? null : fromShillings(d.estimatedPremium),
        assigneeUserId: d.assigneeId ?? (actor.role === 'agent' ? actor.userId : null),
        nextFollowUpOn: d.nextFollowUpOn ? toDbDate(d.nextFollowUpOn) : null,
        createdByUserId: actor.userId,
        createdByApiClientId: p.apiClient.id,
      },
    });
    const entry = { tenantId: p.tenant.id, prospectId: row.id, actorUserId: actor.userId };
    await addTimeline(tx, { ...entry, kind: 'created', toStatus: 'new' });
    if (d.note) await addTimeline(tx, { ...entry, kind: 'note', body: d.note });
    const { force, ...recorded } = d;
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'prospect.created',
      entityType: 'prospect',
      entityId: prospectNo,
      changes: { ...snakeKeys(recorded), ...(force ? { forced_despite_matches: true } : {}) },
    });
    return reread(tx, row.id, query);
  });
}
