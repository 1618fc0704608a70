import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Prospect } from '../../../generated/prisma/client.ts';
import { fromDbDate, toDbDate } from '../../../lib/dates.ts';
import { fromShillings } from '../../../lib/money.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { diffFields, recordAudit } from '../../audit/audit.service.ts';
import { addTimeline, transitionProspect } from '../prospect-state.ts';
import { assertAssignee, assertNoDuplicates } from './identity.ts';
import { CLEARABLE, type ProspectPatchInput, sent, updateProspectSchema } from './input.ts';
import { findVisibleProspect, type ProspectQuery, reread } from './read.ts';

/**
 * Changes what was sent: fields (an identifier changed to one a client or another prospect holds is refused unless
 * forced), a status move through the state machine (lost with a reason; `note` says why), or a note alone.
 */
export async function updateProspect(ctx: Context, uuid: string, input: unknown, query: ProspectQuery = {}) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'prospects.write');
  const d = parseInput(updateProspectSchema, input);
  return ctx.tx(async (tx) => {
    const before = await findVisibleProspect(tx, p, uuid);
    const to = d.status && d.status !== before.status ? d.status : null;
    assertLostReason(d, to);
    const patch = patchOf(d, input);
    if (typeof patch.assigneeUserId === 'number') await assertAssignee(tx, patch.assigneeUserId);
    const changedIds = {
      phone: patch.phone && patch.phone !== before.phone ? patch.phone : null,
      idNo: patch.idNo && patch.idNo !== before.idNo ? patch.idNo : null,
      kraPin: patch.kraPin && patch.kraPin !== before.kraPin ? patch.kraPin : null,
    };
    if (Object.values(changedIds).some(Boolean))
      await assertNoDuplicates(ctx, tx, changedIds, {
        force: d.force,
        excludeProspectId: before.id,
        excludeClientId: before.clientId,
      });
    const changes = diffFields(comparable(before), comparable(patch));
    if (Object.keys(changes).length) await tx.prospect.update({ where: { id: before.id }, data: patch });
    if (to) {
      await transitionProspect(tx, before, to, {
        source: 'manual',
        kind: 'status_changed',
        actorUserId: actor.userId,
        body: to === 'lost' ? [d.lostReason, d.note].filter(Boolean).join(': ') : d.note,
        lostReason: d.lostReason,
      });
      changes.status = { from: before.status, to };
      if (to === 'lost') changes.lost_reason = { from: before.lostReason, to: d.lostReason };
    } else if (d.note) {
      await addTimeline(tx, {
        tenantId: before.tenantId,
        prospectId: before.id,
        kind: 'note',
        body: d.note,
        actorUserId: actor.userId,
      });
    }
    if (Object.keys(changes).length || d.note)
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'prospect.updated',
        entityType: 'prospect',
        entityId: before.prospectNo,
        changes: {
          ...changes,
          ...(d.note ? { note: d.note } : {}),
          ...(d.force ? { forced_despite_matches: true } : {}),
        },
      });
    return reread(tx, before.id, query);
  });
}

/** Lost needs a reason from the list; a reason without a move to lost is a mistake, not something to ignore. */
function assertLostReason(d: ProspectPatchInput, to: string | null): void {
  if (to === 'lost' && !d.lostReason)
    throw new ValidationError([
      { field: 'lostReason', code: 'required', message: 'required when the status becomes lost' },
    ]);
  if (d.lostReason && to !== 'lost')
    throw new ValidationError([{ field: 'lostReason', message: 'only with a move to status lost' }]);
}

/** Only what was sent: absent or null keeps a value, except that an explicit null clears a CLEARABLE field. */
function patchOf(d: ProspectPatchInput, raw: unknown) {
  const val = <T>(key: (typeof CLEARABLE)[number], v: T | null | undefined): T | null | undefined =>
    v != null ? v : sent(raw, key) ? null : undefined;
  return {
    type: d.type ?? undefined,
    name: d.name ?? undefined,
    phone: val('phone', d.phone),
    email: val('email', d.email),
    idNo: val('idNo', d.idNo),
    kraPin: val('kraPin', d.kraPin),
    source: val('source', d.source),
    interests: d.interests ?? undefined,
    estimatedPremiumMinor: val(
      'estimatedPremium',
      d.estimatedPremium == null ? null : fromShillings(d.estimatedPremium),
    ),
    assigneeUserId: val('assigneeId', d.assigneeId),
    nextFollowUpOn: val('nextFollowUpOn', d.nextFollowUpOn ? toDbDate(d.nextFollowUpOn) : null),
  };
}

/** Values as the audit trail compares and records them: cents as numbers, dates as Y-m-d. */
function comparable(o: Partial<Prospect> | ReturnType<typeof patchOf>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v instanceof Date ? fromDbDate(v) : v]),
  );
}
