import { z } from 'zod';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { senderFor } from '../sender-ids.ts';
import { activeTemplate, isServiceCodeTemplate, render, RESERVED_TEMPLATE } from '../templates.ts';
import { type SmsMessageQuery, reread } from './read.ts';
import { addressees, MAX_RECIPIENTS, queueAfterCommit, queueRecipients, recordMessage } from './record.ts';

const sendSchema = z
  .object({
    to: z.array(z.string().max(64)).min(1, 'at least one number').max(MAX_RECIPIENTS),
    message: z.string().max(2000).nullish(),
    template: z.string().max(40).nullish(),
    variables: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
    senderId: z.string().max(11).nullish(),
  })
  .strict();

/**
 * POST /sms, GraphQL sendSms (ability sms.send: admins and account executives, never an agent): one message, the text
 * given or a template filled with variables, to one or many numbers, from the named registered sender ID or the
 * default one. Its cost (segments × sendable recipients) is reserved in the same transaction; the recipients are
 * queued for the gateway once it commits (docs/sms.md "SMS").
 */
export async function sendSms(ctx: Context, input: unknown, query: SmsMessageQuery = {}) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'sms.send');
  const d = parseInput(sendSchema, input);
  if (!d.message === !d.template)
    throw new ValidationError([{ field: 'message', message: 'send either a message or a template' }]);
  if (d.template && isServiceCodeTemplate(d.template))
    throw new ValidationError([{ field: 'template', message: RESERVED_TEMPLATE }]);
  let queued: number[] = [];
  const row = await ctx.tx(async (tx) => {
    const senderId = await senderFor(tx, d.senderId);
    const template = d.template ? await activeTemplate(tx, d.template) : null;
    // {{org}} is the organisation's name unless the caller gives it (docs/sms.md), as for the service's own messages.
    const body = template ? render(template.body, { org: p.tenant.name, ...d.variables }) : d.message!;
    const rec = await recordMessage(tx, {
      tenantId: p.tenant.id,
      senderId,
      body,
      purpose: 'api',
      templateCode: template?.code ?? null,
      createdByUserId: actor.userId,
      createdByApiClientId: p.apiClient.id,
      to: addressees(d.to),
    });
    queued = rec.queued;
    const msg = await reread(tx, rec.id, query);
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'sms.sent',
      entityType: 'sms_message',
      entityId: rec.uuid,
      changes: { recipients: d.to.length, template: template?.code ?? null, sender_id: senderId },
    });
    if (ctx.ambientTx === tx) await queueAfterCommit(ctx, tx, queued);
    return msg;
  });
  // Committed by now (ctx.tx has returned): queue at once.
  if (!ctx.ambientTx) await queueRecipients(ctx.app, queued);
  return row;
}
