import { expect } from 'vitest';
import type { Org } from './org.ts';
import { waitFor } from './wait.ts';

/**
 * One-time codes as the customer reads them (docs/sms.md "The simulated gateway"): the outbox shows every code masked,
 * so a test reads the code where the customer would, on the handset, through the simulator's inspection endpoint
 * (admin scope; served only while the SMS rail is the simulator, so the kit must run jobs).
 */

const hasToken = (o: Org, role: 'admin') => {
  try {
    return !!o.tokens[role];
  } catch {
    return false;
  }
};

/** 07… / 01… / +254… → 2547XXXXXXXX, the outbox's spelling. */
export const msisdn = (phone: string) => `254${phone.replace(/\D/g, '').replace(/^(254|0)/, '')}`;

export interface HandsetMessage {
  gateway_message_id: string;
  sender_id: string;
  phone: string;
  message: string;
  received_at: string;
  delivery_status: string | null;
}

/** What the handset received from the organisation, newest first (with the admin's token, fetched if not held). */
export async function handsetMessages(o: Org, phone: string): Promise<HandsetMessage[]> {
  if (!hasToken(o, 'admin')) await o.fetchTokens('admin');
  const r = await o.as('admin').get(`/simulator/sms/handsets/${msisdn(phone)}/messages`);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

/**
 * The code in outbox message `messageId`, read on the handset once the message was handed to the gateway (the `sms.send`
 * job): the handset's copy of that very message (by the gateway's id), never the outbox's text.
 */
export async function codeOnHandset(o: Org, messageId: number): Promise<string> {
  const r = await waitFor(
    `outbox message ${messageId} handed to the gateway`,
    () => o.t.db.tenant(o.id, (tx) => tx.smsRecipient.findFirst({ where: { messageId } })),
    (x) => !!x?.gatewayMessageId || x?.status === 'failed',
  );
  expect(r?.gatewayMessageId, `message ${messageId} reached the gateway`).toBeTruthy();
  const got = (await handsetMessages(o, r!.phone)).find((m) => m.gateway_message_id === r!.gatewayMessageId);
  const code = got && /(?<!\d)(\d{6})(?!\d)/.exec(got.message)?.[1];
  expect(code, `a code on the handset: ${got?.message}`).toMatch(/^\d{6}$/);
  return code!;
}
