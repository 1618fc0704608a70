import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { addTimeline } from '../prospect-state.ts';
import { noteSchema } from './input.ts';
import { findVisibleProspect, type ProspectQuery, reread } from './read.ts';

/** A note on the timeline (a call made, a visit): it changes nothing else. */
export async function addProspectNote(ctx: Context, uuid: string, input: unknown, query: ProspectQuery = {}) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'prospects.write');
  const d = parseInput(noteSchema, input);
  return ctx.tx(async (tx) => {
    const prospect = await findVisibleProspect(tx, p, uuid);
    await addTimeline(tx, {
      tenantId: prospect.tenantId,
      prospectId: prospect.id,
      kind: 'note',
      body: d.body,
      actorUserId: actor.userId,
    });
    // Touch the record so lists ordered or filtered by change see the activity.
    await tx.prospect.update({ where: { id: prospect.id }, data: { updatedAt: new Date() } });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'prospect.noted',
      entityType: 'prospect',
      entityId: prospect.prospectNo,
      changes: { note: d.body },
    });
    return reread(tx, prospect.id, query);
  });
}
