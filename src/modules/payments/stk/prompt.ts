import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { faultPoint } from '../../../lib/faults.ts';
import { AppError } from '../../../lib/problem.ts';
import {
  darajaPassword,
  type DarajaStkPushResponse,
  darajaTimestamp,
  type MobileMoneyRail,
  RailRefusal,
} from '../../../ports/mobile-money.ts';
import { transitionPaymentRequest, transitionPaymentRequestReturning } from '../payment-request-state.ts';
import { countPrompt, type PromptTarget } from '../stk-throttle.ts';
import { fixAnswer } from './answer.ts';

export const CALLBACK_PATH = '/api/v1/payment/callback/mpesa';

export type IntentRow = Awaited<ReturnType<Tx['paymentRequest']['findUniqueOrThrow']>>;

/**
 * Steps 2 and 3 of a push: the rail call (no transaction open) and the record of its acknowledgement. A refusal by
 * the rail fails the request; a call that throws without an answer (timeout, connection lost) leaves it `sending`,
 * in doubt, for the statement to settle.
 */
export async function sendPrompt(
  ctx: Context,
  rail: MobileMoneyRail,
  origin: string,
  intent: IntentRow,
  token: string,
  target: PromptTarget,
) {
  const ack = await pushToRail(ctx, rail, origin, intent, token);
  faultPoint(ctx.app.config, 'stk.after-rail-call');
  // The phone has been prompted once the rail accepts, whatever happens after.
  await countPrompt(ctx.app, target);
  const request = await recordAcknowledgement(ctx, intent, ack);
  faultPoint(ctx.app.config, 'stk.after-ack');
  return { request, replayed: false };
}

async function pushToRail(
  ctx: Context,
  rail: MobileMoneyRail,
  origin: string,
  intent: IntentRow,
  token: string,
): Promise<DarajaStkPushResponse> {
  const config = ctx.app.config;
  const timestamp = darajaTimestamp();
  const shortcode = intent.shortcode;
  try {
    return await withTimeout(
      rail.stkPush({
        BusinessShortCode: shortcode,
        Password: darajaPassword(shortcode, config.mpesaPasskey, timestamp),
        Timestamp: timestamp,
        TransactionType: 'CustomerPayBillOnline',
        Amount: Number(intent.amountMinor / 100n),
        PartyA: intent.phone,
        PartyB: shortcode,
        PhoneNumber: intent.phone,
        CallBackURL: `${origin.replace(/\/$/, '')}${CALLBACK_PATH}/${token}`,
        AccountReference: intent.accountReference,
        TransactionDesc: intent.purpose === 'premium' ? 'Premium' : 'IPF repayment',
      }),
      config.mpesaRailTimeoutMs,
    );
  } catch (err) {
    if (err instanceof RailRefusal) {
      // Nothing reached the phone: the key is freed, so a corrected retry with it is a new request (as for any refused write).
      await ctx.app.db.tenant(intent.tenantId, (tx) =>
        transitionPaymentRequest(tx, intent.id, 'sending', 'failed', {
          resultDesc: err.detail,
          resolvedVia: 'push',
          resolvedAt: new Date(),
          sendingUntil: null,
          idempotencyKey: null,
        }),
      );
      throw new AppError('service_unavailable', { detail: err.detail });
    }
    ctx.log.warn(
      { err, payment_request_id: intent.id },
      'STK push unanswered: the request is in doubt until the statement settles it',
    );
    throw new AppError('service_unavailable', {
      detail: `The mobile-money rail did not answer; the prompt may still reach the phone. Retry with the same Idempotency-Key, or follow /api/v1/payment/stk/${intent.id}`,
      headers: { 'Retry-After': '5' },
    });
  }
}

async function recordAcknowledgement(ctx: Context, intent: IntentRow, ack: DarajaStkPushResponse) {
  return ctx.app.db.tenant(intent.tenantId, async (tx) => {
    // Recorded even when the statement settled the request first (the ids are the rail's either way).
    const acknowledged = {
      merchantRequestId: ack.MerchantRequestID,
      checkoutRequestId: ack.CheckoutRequestID,
      responseCode: ack.ResponseCode,
      responseDesc: ack.ResponseDescription,
      customerMessage: ack.CustomerMessage,
    };
    const moved = await transitionPaymentRequestReturning(tx, intent.id, 'sending', 'pending', {
      ...acknowledged,
      sendingUntil: null,
    });
    if (!moved)
      await tx.paymentRequest.updateMany({ where: { id: intent.id, checkoutRequestId: null }, data: acknowledged });
    // The answer is fixed with the acknowledgement (or was, by a retry that found the request settled first).
    return fixAnswer(tx, intent.id, moved ?? undefined);
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`rail call timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
