import { z } from 'zod';
import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { InvalidStateError, notFound, ValidationError } from '../../lib/problem.ts';
import { sameText } from '../../lib/search.ts';
import { parseInput } from '../../lib/validate.ts';
import { recordAudit } from '../audit/audit.service.ts';

/**
 * Sender IDs (docs/sms.md "SMS"): alphanumeric, 1–11 characters, starting with a letter, as the networks register them.
 * A new one is `pending` until the organisation records the networks' answer (`registered` or `rejected`). Only a
 * registered ID sends; one of them is the default (the service's own messages and sends that name none).
 */
export const SENDER_ID_STATES = ['pending', 'registered', 'rejected'] as const;
export const SENDER_ID_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,10}$/;

const senderId = z.string().trim().regex(SENDER_ID_PATTERN, 'alphanumeric, 1 to 11 characters, starting with a letter');

const createSchema = z.object({ senderId, isDefault: z.boolean().nullish() }).strict();
const updateSchema = z
  .object({ senderId: z.string(), status: z.enum(SENDER_ID_STATES).nullish(), isDefault: z.boolean().nullish() })
  .strict();

export function listSenderIds(ctx: Context) {
  return ctx.tx((tx) => tx.smsSenderId.findMany({ orderBy: { senderId: 'asc' } }));
}

/** Makes `id` the only default of its organisation. */
async function makeDefault(tx: Tx, tenantId: number, id: number) {
  await tx.smsSenderId.updateMany({ where: { tenantId, isDefault: true, NOT: { id } }, data: { isDefault: false } });
  await tx.smsSenderId.update({ where: { id }, data: { isDefault: true } });
}

export async function createSenderId(ctx: Context, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'sms.manage');
  const d = parseInput(createSchema, input);
  return ctx.tx(async (tx) => {
    const exists = await tx.smsSenderId.findFirst({ where: { senderId: sameText(d.senderId) } });
    if (exists) throw new ValidationError([{ field: 'input.senderId', message: 'this sender ID is already on file' }]);
    if (d.isDefault) throw new InvalidStateError('A pending sender ID cannot be the default: register it first');
    // A twin request racing this one: the unique key decides, and the loser is the same 422 (never a 500).
    const made = await tx.smsSenderId.createMany({
      data: { tenantId: p.tenant.id, senderId: d.senderId },
      skipDuplicates: true,
    });
    if (!made.count)
      throw new ValidationError([{ field: 'input.senderId', message: 'this sender ID is already on file' }]);
    const row = await tx.smsSenderId.findFirstOrThrow({ where: { senderId: d.senderId } });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'sms.sender_id_created',
      entityType: 'sms_sender_id',
      entityId: d.senderId,
      changes: { sender_id: d.senderId, status: 'pending' },
    });
    return row;
  });
}

/** Records the networks' answer (status) and/or makes a registered ID the default. */
export async function updateSenderId(ctx: Context, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'sms.manage');
  const d = parseInput(updateSchema, input);
  return ctx.tx(async (tx) => {
    let row = await tx.smsSenderId.findFirst({ where: { senderId: d.senderId } });
    if (!row) throw notFound('Sender ID');
    if (d.status && d.status !== row.status)
      row = await tx.smsSenderId.update({
        where: { id: row.id },
        data: { status: d.status, ...(d.status !== 'registered' ? { isDefault: false } : {}) },
      });
    if (d.isDefault) {
      if (row.status !== 'registered')
        throw new InvalidStateError(`A ${row.status} sender ID cannot be the default`, { allowed: ['registered'] });
      await makeDefault(tx, p.tenant.id, row.id);
    }
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'sms.sender_id_updated',
      entityType: 'sms_sender_id',
      entityId: row.senderId,
      changes: { status: d.status ?? undefined, is_default: d.isDefault ?? undefined },
    });
    return tx.smsSenderId.findUniqueOrThrow({ where: { id: row.id } });
  });
}

/**
 * The sender ID a message goes out under: the one named (registered, else 422 on `sender_id`), or the default
 * registered one (422 on `sender_id` when the organisation has none).
 */
export async function senderFor(tx: Tx, named: string | null | undefined): Promise<string> {
  if (named) {
    const row = await tx.smsSenderId.findFirst({ where: { senderId: named } });
    if (!row || row.status !== 'registered')
      throw new ValidationError([
        { field: 'input.senderId', message: 'not a registered sender ID of this organisation' },
      ]);
    return row.senderId;
  }
  const def =
    (await tx.smsSenderId.findFirst({ where: { status: 'registered', isDefault: true } })) ??
    (await tx.smsSenderId.findFirst({ where: { status: 'registered' }, orderBy: { id: 'asc' } }));
  if (!def)
    throw new ValidationError([{ field: 'input.senderId', message: 'the organisation has no registered sender ID' }]);
  return def.senderId;
}
