import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { type DarajaCallback, type DarajaQueryResponse, RailRefusal } from '../../../ports/mobile-money.ts';
import { applyRailResult, recordUnmatched, type SettleOutcome, shillingsToMinor } from '../settle.service.ts';
import { matchPaidPrompt, type PaidPrompt } from './in-doubt.ts';
import { railOf, statementGraceMs } from './rail.ts';

export type CallbackOutcome = SettleOutcome | 'unmatched' | 'unconfirmed';

type CallbackRow = Awaited<ReturnType<Tx['mpesaCallback']['findUniqueOrThrow']>>;

interface CallbackClaim {
  checkoutRequestId: string;
  resultCode: unknown;
}

/** After this many confirmations the rail did not back, a callback is closed as `unconfirmed` (a forgery, or lost). */
const MAX_CALLBACK_ATTEMPTS = 20;

/** The stored callback's claim, read leniently: only the checkout id is used to act, the rest for the record. */
function claimOf(raw: string): CallbackClaim | null {
  let cb: DarajaCallback['Body']['stkCallback'] | undefined;
  try {
    cb = (JSON.parse(raw) as DarajaCallback)?.Body?.stkCallback;
  } catch {
    return null;
  }
  if (!cb || typeof cb.CheckoutRequestID !== 'string' || !cb.CheckoutRequestID || typeof cb.ResultCode !== 'number')
    return null;
  return { checkoutRequestId: cb.CheckoutRequestID, resultCode: cb.ResultCode };
}

/** How one confirmation ends for the stored row: closed with an outcome, or kept open for a replay (null). */
interface CallbackEnding {
  close: (outcome: CallbackOutcome, error?: string | null) => Promise<CallbackOutcome>;
  keep: (error: string) => Promise<CallbackOutcome | null>;
}

function endingOf(app: AppServices, row: CallbackRow): CallbackEnding {
  const close = (outcome: CallbackOutcome, error: string | null = null) =>
    app.db
      .tenant(row.tenantId, (tx) =>
        tx.mpesaCallback.updateMany({
          where: { id: row.id, processedAt: null },
          data: { processedAt: new Date(), outcome, error, attempts: { increment: 1 }, lastAttemptAt: new Date() },
        }),
      )
      .then(() => outcome);
  const keep = async (error: string) => {
    const attempts = row.attempts + 1;
    if (attempts >= MAX_CALLBACK_ATTEMPTS)
      return close('unconfirmed', `the rail never confirmed this callback: ${error}`);
    await app.db.tenant(row.tenantId, (tx) =>
      tx.mpesaCallback.update({
        where: { id: row.id },
        data: { attempts, lastAttemptAt: new Date(), error: error.slice(0, 500) },
      }),
    );
    return null;
  };
  return { close, keep };
}

/**
 * Confirms one stored callback with the rail and applies what the rail says. Returns the outcome once the callback is
 * closed, or null when it stays open for a replay (the rail has no final answer yet, or could not be asked).
 */
export async function confirmCallback(
  app: AppServices,
  callbackId: bigint,
  stored?: CallbackRow,
): Promise<CallbackOutcome | null> {
  const row = stored ?? (await app.db.system((tx) => tx.mpesaCallback.findUnique({ where: { id: callbackId } })));
  if (!row) return null;
  if (row.processedAt) return row.outcome as CallbackOutcome;
  const ending = endingOf(app, row);
  const { close, keep } = ending;

  const claim = claimOf(row.rawBody);
  if (!claim) return close('malformed');
  const pr = await app.db.tenant(row.tenantId, (tx) =>
    tx.paymentRequest.findFirst({ where: { tenantId: row.tenantId, checkoutRequestId: claim.checkoutRequestId } }),
  );
  if (pr && pr.status !== 'pending' && pr.status !== 'sending') return close('duplicate');

  let q: DarajaQueryResponse;
  try {
    q = await railOf(app).query(claim.checkoutRequestId);
  } catch (err) {
    // The rail does not know the checkout id: nothing it did is behind this callback.
    if (err instanceof RailRefusal)
      return close('unconfirmed', `the rail does not know this checkout request: ${err.detail}`);
    return keep(`rail query failed: ${(err as Error).message}`);
  }
  if (q.ResultCode == null) return keep('the rail has no result for this prompt yet');
  const contradiction =
    q.ResultCode !== claim.resultCode
      ? `the callback claimed ResultCode ${String(claim.resultCode)}; the rail confirmed ${q.ResultCode}`
      : null;

  if (!pr) return answerWithoutRequest(app, row, claim, q, contradiction, ending);
  const outcome = await applyRailResult(
    app,
    row.tenantId,
    pr.id,
    { resultCode: q.ResultCode, resultDesc: q.ResultDesc ?? '', items: q.CallbackMetadata?.Item },
    'callback',
  );
  if (contradiction)
    app.log.warn(
      { callback_id: String(row.id), payment_request_id: pr.id },
      `callback contradicted the rail: ${contradiction}`,
    );
  return close(outcome, contradiction);
}

/**
 * An answer for a prompt no request recorded by its checkout id. Money the rail confirms is first matched to the
 * request in doubt that sent it (confirm/in-doubt.ts matchPaidPrompt), or is found already receipted. A push may
 * still be recording its acknowledgement: wait for it. Otherwise the money is kept as unmatched, for refund.
 */
async function answerWithoutRequest(
  app: AppServices,
  row: CallbackRow,
  claim: CallbackClaim,
  q: DarajaQueryResponse,
  contradiction: string | null,
  { close, keep }: CallbackEnding,
): Promise<CallbackOutcome | null> {
  const paid = q.ResultCode === 0 ? paidOf(claim, q) : null;
  if (paid) {
    const matched = await matchPaidPrompt(app, row.tenantId, paid);
    if (matched === 'in_doubt')
      return keep('a request in doubt may have sent this prompt; its line is not on the statement yet');
    if (matched === 'ambiguous')
      return keep('more than one request in doubt could have sent this prompt: attributed to none (manual review)');
    if (matched) return close(matched, contradiction);
  }
  const recent = Date.now() - row.receivedAt.getTime() < statementGraceMs(app);
  if (
    recent &&
    (await app.db.tenant(row.tenantId, (tx) =>
      tx.paymentRequest.count({ where: { tenantId: row.tenantId, status: 'sending' } }),
    ))
  ) {
    return keep('no payment request has this checkout id yet');
  }
  if (q.ResultCode !== 0) return close('unmatched', contradiction);
  const items = q.CallbackMetadata?.Item ?? [];
  const value = (n: string) => items.find((i) => i.Name === n)?.Value;
  const ref = String(value('MpesaReceiptNumber') ?? '');
  const amountMinor = shillingsToMinor(value('Amount'));
  if (!ref || amountMinor == null)
    return close('malformed', 'the rail confirmed a payment without a receipt number or amount');
  await app.db.tenant(row.tenantId, (tx) =>
    recordUnmatched(app, tx, row.tenantId, {
      transactionRef: ref,
      checkoutRequestId: claim.checkoutRequestId,
      phone: normalisePhone(String(value('PhoneNumber') ?? '')) ?? String(value('PhoneNumber') ?? ''),
      amountMinor,
      accountReference: '',
      paidAt: new Date(),
      foundVia: 'callback',
      reason: 'a paid prompt no payment request of this organisation recorded',
    }),
  );
  return close('unmatched', contradiction);
}

/** The paid prompt the rail confirmed, as matchPaidPrompt reads it; null when the rail's answer lacks a part of it. */
function paidOf(claim: CallbackClaim, q: DarajaQueryResponse): PaidPrompt | null {
  const items = q.CallbackMetadata?.Item ?? [];
  const value = (n: string) => items.find((i) => i.Name === n)?.Value;
  const ref = String(value('MpesaReceiptNumber') ?? '');
  const amountMinor = shillingsToMinor(value('Amount'));
  const phone = normalisePhone(String(value('PhoneNumber') ?? ''));
  if (!ref || amountMinor == null || !phone) return null;
  return {
    checkoutRequestId: claim.checkoutRequestId,
    merchantRequestId: q.MerchantRequestID ?? null,
    ref,
    phone,
    amountMinor,
    items,
  };
}
