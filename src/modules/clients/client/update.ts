import type { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { DuplicateClientError, notFound } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { diffFields, recordAudit } from '../../audit/audit.service.ts';
import { clientVisibility } from '../../access/client.visibility.ts';
import { emitEvent } from '../../events/event.service.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { nairobiIso } from '../../../lib/dates.ts';
import type { Tx } from '../../../db/client.ts';
import { describeMatches, findIdentityMatches, lockIdentifiers } from './identity.ts';
import { toDate, updateSchema } from './input.ts';
import { holdAfterChange, phoneChangedBy, type PhoneHoldFields } from './phone-hold.ts';
import { assertRefs } from './references.ts';

/**
 * Changes what was sent; an identifier changed to one another client holds is refused unless forced. A changed phone
 * is held for one-time codes unless the client made the change (phone-hold.ts), and announced (client.phone_changed,
 * whose notice tells the previous phone); the audit row says who changed it.
 */
export async function updateClient(ctx: Context, clientNo: string, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'clients.write');
  const d = parseInput(updateSchema, input);
  return ctx.tx(async (tx) => {
    const before = await tx.client.findFirst({ where: { AND: [{ clientNo }, clientVisibility(p)] } });
    if (!before) throw notFound('Client');
    await assertRefs(tx, d);
    const changedIds = {
      phone: d.phone && d.phone !== before.phone ? d.phone : null,
      idNo: d.idNo && d.idNo !== before.idNo ? d.idNo : null,
      kraPin: d.kraPin && d.kraPin !== before.kraPin ? d.kraPin : null,
    };
    await lockIdentifiers(tx, p.tenant.id, Object.values(changedIds));
    if (!d.force) {
      const matches = await findIdentityMatches(tx, changedIds, before.id);
      if (matches.length) throw new DuplicateClientError(describeMatches(p, matches));
    }
    const patch = patchOf(d);
    const changes = diffFields(before as unknown as Record<string, unknown>, patch);
    if (!Object.keys(changes).length) return before;
    const phoneChange = changedIds.phone ? phoneHoldPatch(ctx, before, changedIds.phone) : null;
    const after = await tx.client.update({ where: { id: before.id }, data: { ...patch, ...phoneChange?.hold } });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'client.updated',
      entityType: 'client',
      entityId: clientNo,
      changes: { ...changes, ...phoneChange?.audit },
    });
    if (phoneChange) await announcePhoneChange(ctx, tx, before, phoneChange);
    return after;
  });
}

type PhoneChange = ReturnType<typeof phoneHoldPatch>;

function phoneHoldPatch(ctx: Context, before: PhoneHoldFields & { id: number }, phone: string) {
  const at = clockNow();
  const by = phoneChangedBy(ctx, before.id);
  const hold = holdAfterChange(before, phone, by, at);
  const heldUntil = hold.phoneHeldUntil ? nairobiIso(hold.phoneHeldUntil) : null;
  return { at, by, hold, audit: { phone_changed_by: by, codes_held_until: heldUntil }, heldUntil };
}

async function announcePhoneChange(
  ctx: Context,
  tx: Tx,
  before: { tenantId: number; clientNo: string; phone: string },
  c: PhoneChange,
) {
  await emitEvent(ctx, tx, before.tenantId, 'client.phone_changed', {
    client_no: before.clientNo,
    previous_phone: before.phone,
    changed_by: c.by,
    changed_at: nairobiIso(c.at),
    codes_held_until: c.heldUntil,
  });
}

/** Only what was sent: a field left out (or null) keeps its value; a date of birth sent as null is cleared. */
function patchOf(d: z.infer<typeof updateSchema>) {
  return {
    type: d.type ?? undefined,
    name: d.name ?? undefined,
    phone: d.phone || undefined,
    email: d.email ?? undefined,
    idNo: d.idNo ?? undefined,
    kraPin: d.kraPin ?? undefined,
    dateOfBirth: toDate(d.dateOfBirth),
    physicalAddress: d.physicalAddress ?? undefined,
    branchId: d.branchId ?? undefined,
    riskManagerId: d.riskManagerId ?? undefined,
    salesPersonId: d.salesPersonId ?? undefined,
    businessSourceId: d.businessSourceId ?? undefined,
    prospectTypeId: d.prospectTypeId ?? undefined,
    sector: d.sector ?? undefined,
    altName: d.altName ?? undefined,
    altPhone: d.altPhone ?? undefined,
    altEmail: d.altEmail ?? undefined,
  };
}
