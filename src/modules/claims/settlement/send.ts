import { createHmac } from 'node:crypto';
import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { DarajaB2cRequest, DarajaB2cResponse } from '../../../ports/mobile-money-b2c.ts';
import { RailRefusal } from '../../../ports/mobile-money.ts';
import { currentCallbackToken } from '../../payments/callback-token.ts';
import { applyFailed } from './apply.ts';
import { transitionClaimPayment } from './payment-state.ts';

/** Where Daraja posts a payout's Result and its queue-timeout notice (src/http/b2c-result.ts). */
export const B2C_RESULT_PATH = '/api/v1/payment/b2c/result';
export const B2C_TIMEOUT_PATH = '/api/v1/payment/b2c/timeout';

/** The API operator Daraja knows the service by (set up on each organisation's M-Pesa portal). */
const INITIATOR_NAME = 'bima_gateway';

/** A `sending` row older than this was left by a caller that died during the rail call: it is claimed again. */
export const staleSendingMs = (app: AppServices) => app.config.mpesaRailTimeoutMs + 30_000;

/**
 * Stands in for the initiator password RSA-encrypted with Safaricom's certificate (which a deployment provides with
 * its real adapter): an opaque value per shortcode, derived from the deployment's M-Pesa passkey.
 */
function securityCredential(app: AppServices, shortcode: string): string {
  return createHmac('sha256', app.config.mpesaPasskey).update(`b2c-initiator:${shortcode}`).digest('base64');
}

export type SendOutcome = 'sent' | 'refused' | 'skipped' | 'no_rail';

/**
 * Sends one recorded payout (the `claims.payout` job, and the sweep for one whose job was lost), in three steps, none
 * holding a connection while the rail is called (docs/architecture.md "The rail rule"):
 *  1. a short transaction claims the row (pending → sending, or a stale sending again);
 *  2. the rail is called with our OriginatorConversationID, outside any transaction; a repeat of it is the same
 *     request at the rail, so a payout whose acknowledgement was lost is simply sent again;
 *  3. a short transaction records the acknowledgement (sent, ConversationID), or the refusal (failed, commitment
 *     released). A call that got no answer puts the row back to pending and throws, for the job's retry or the sweep.
 */
export async function sendPayout(app: AppServices, paymentId: number, now = new Date()): Promise<SendOutcome> {
  const rail = app.mobileMoney.b2c;
  const origin = app.config.publicBaseUrl ?? app.mobileMoney.origin;
  if (!rail || !origin) return 'no_rail';
  const head = await app.db.system((tx) =>
    tx.claimPayment.findUnique({ where: { id: paymentId }, select: { tenantId: true } }),
  );
  if (!head) return 'skipped';
  const tenantId = head.tenantId;
  const req = await app.db.tenant(tenantId, (tx) => claimForSending(app, tx, paymentId, origin, now));
  if (!req) return 'skipped';
  let ack: DarajaB2cResponse;
  try {
    ack = await withTimeout(rail.pay(req), app.config.mpesaRailTimeoutMs);
  } catch (err) {
    if (err instanceof RailRefusal) {
      await app.db.tenant(tenantId, (tx) =>
        applyFailed(tx, paymentId, { transactionId: null, resultCode: null, resultDesc: err.detail }),
      );
      app.log.warn({ claim_payment_id: paymentId, detail: err.detail }, 'B2C rail refused a claim payout');
      return 'refused';
    }
    await app.db.tenant(tenantId, (tx) => transitionClaimPayment(tx, paymentId, ['sending'], 'pending'));
    throw err;
  }
  await app.db.tenant(tenantId, (tx) => recordAcknowledgement(tx, paymentId, ack));
  return 'sent';
}

/** Step 1: the row claimed for this call, and the Daraja request for it; null when it is not this caller's to send. */
async function claimForSending(
  app: AppServices,
  tx: Tx,
  paymentId: number,
  origin: string,
  now: Date,
): Promise<DarajaB2cRequest | null> {
  const claimed = await transitionClaimPayment(
    tx,
    paymentId,
    ['pending', 'sending'],
    'sending',
    { sentAt: now },
    {
      method: 'mpesa_b2c',
      OR: [{ status: 'pending' }, { sentAt: { lt: new Date(now.getTime() - staleSendingMs(app)) } }],
    },
  );
  if (!claimed) return null;
  const p = await tx.claimPayment.findUniqueOrThrow({
    where: { id: paymentId },
    include: { claim: { select: { claimNo: true } } },
  });
  const { paybill } = await tx.tenant.findUniqueOrThrow({ where: { id: p.tenantId }, select: { paybill: true } });
  const token = await currentCallbackToken(app, tx, p.tenantId, paybill);
  const base = origin.replace(/\/$/, '');
  return {
    OriginatorConversationID: p.reference,
    InitiatorName: INITIATOR_NAME,
    SecurityCredential: securityCredential(app, paybill),
    CommandID: 'BusinessPayment',
    Amount: Number(p.amountMinor / 100n),
    PartyA: paybill,
    PartyB: p.phone!,
    Remarks: `Claim ${p.claim.claimNo}`,
    QueueTimeOutURL: `${base}${B2C_TIMEOUT_PATH}/${token}`,
    ResultURL: `${base}${B2C_RESULT_PATH}/${token}`,
    Occasion: p.claim.claimNo,
  };
}

/** Step 3. Recorded even when a Result already settled the payout (the ids are the rail's either way). */
async function recordAcknowledgement(tx: Tx, paymentId: number, ack: DarajaB2cResponse): Promise<void> {
  const sent = await transitionClaimPayment(tx, paymentId, ['sending'], 'sent', {
    conversationId: ack.ConversationID,
    sentAt: new Date(),
  });
  if (!sent)
    await tx.claimPayment.updateMany({
      where: { id: paymentId, conversationId: null },
      data: { conversationId: ack.ConversationID },
    });
}

/** Rejects once the rail has not answered within `ms` (the call may still land: a re-send with its id finds it). */
function withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, no) => (timer = setTimeout(() => no(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
