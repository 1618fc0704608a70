import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { senderFor } from '../sender-ids.ts';
import { activeTemplate, render } from '../templates.ts';
import { addressees, queueAfterCommit, recordMessage } from './record.ts';
import { maskSecrets, sealBody } from './sealed-body.ts';

/** A message the service sends on its own account (one-time codes, receipts, notices), from a template. */
export interface ServiceMessage {
  tenantId: number;
  /** Normalised 2547XXXXXXXX / 2541XXXXXXXX. */
  phone: string;
  /** The organisation's template (sms_templates.code): otp, receipt, policy_activated, renewal_due … */
  templateCode: string;
  vars: Record<string, string | number>;
  /**
   * Template values that prove the customer's presence (one-time codes, `code`): only the gateway is given them. The
   * recorded message shows each masked, and the text as sent is kept sealed until it is handed over (sealed-body.ts).
   */
  secrets?: Record<string, string>;
  /** Why it is sent (sms_messages.purpose). */
  purpose: string;
  clientId?: number | null;
  /** The event it answers, when it answers one: one message per event. */
  eventId?: string | null;
}

/**
 * A message the service sends on its own account (one-time codes, receipts, notices): the organisation's template
 * filled with `vars` (and `secrets`, recorded masked), from its default registered sender ID, recorded in the outbox and charged like any other. One
 * message per event: a repeat for the same `eventId` returns the message already recorded (and charges nothing).
 * Refused with 422 (nothing recorded by this call) when the phone is not a Kenyan mobile number, the template or a
 * registered sender ID is missing, or the balance cannot cover it.
 */
export async function sendServiceMessage(
  from: Context | AppServices,
  tx: Tx,
  m: ServiceMessage,
): Promise<{ messageId: number }> {
  if (m.eventId) {
    const done = await tx.smsMessage.findFirst({ where: { tenantId: m.tenantId, eventId: m.eventId } });
    if (done) return { messageId: done.id };
  }
  const to = addressees([m.phone]);
  if (!to[0].valid) throw new ValidationError([{ field: 'phone', message: 'not a Kenyan mobile number' }]);
  const template = await activeTemplate(tx, m.templateCode);
  // {{org}} is the organisation's name unless the caller says otherwise.
  const org = await tx.tenant.findUniqueOrThrow({ where: { id: m.tenantId }, select: { name: true } });
  const vars = { org: org.name, ...m.vars };
  const secrets = m.secrets ?? {};
  const body = render(template.body, { ...vars, ...maskSecrets(secrets) }, 'vars');
  const sent = render(template.body, { ...vars, ...secrets }, 'vars');
  const uuid = randomUUID();
  const app = 'afterCommit' in from ? from.app : from;
  const principal = 'afterCommit' in from ? from.principal : undefined;
  const rec = await recordMessage(tx, {
    tenantId: m.tenantId,
    uuid,
    senderId: await senderFor(tx, null),
    body,
    bodySealed: sent === body ? null : sealBody(app.config, uuid, sent),
    purpose: m.purpose,
    templateCode: template.code,
    eventId: m.eventId ?? null,
    clientId: m.clientId ?? null,
    createdByUserId: principal?.actor?.userId ?? null,
    createdByApiClientId: principal?.apiClient?.id ?? null,
    to,
  });
  await queueAfterCommit(from, tx, rec.queued);
  return { messageId: rec.id };
}
