import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { normalisePhone } from '../../lib/identifiers.ts';
import {
  darajaDateTime,
  darajaTimestamp,
  type DarajaCallback,
  type DarajaPulledTransaction,
  type MobileMoneyRail,
  paymentsRuntime,
  RailRefusal,
} from './rail.ts';
import { transitionPaymentRequest } from './payment-request-state.ts';
import { applyRailResult, recordUnmatched, type SettleOutcome, shillingsToMinor } from './settle.service.ts';

/**
 * Nothing a callback says is believed (README "Payments"). A stored callback only names a checkout request id; the
 * rail's status query says what happened to it, and only that is applied. Prompts nothing recorded (a crash between
 * the push and recording its acknowledgement) are found on the rail's statement. Every rail call here is made
 * outside a transaction.
 */

export type CallbackOutcome = SettleOutcome | 'unmatched' | 'unconfirmed';

type CallbackRow = Awaited<ReturnType<Tx['mpesaCallback']['findUniqueOrThrow']>>;

/** After this many confirmations the rail did not back, a callback is closed as `unconfirmed` (a forgery, or lost). */
const MAX_CALLBACK_ATTEMPTS = 20;
/** A statement line this young with no request may belong to a push still recording its acknowledgement. */
const statementGraceMs = (app: AppServices) => app.config.mpesaRailTimeoutMs + 30_000;

function railOf(app: AppServices): MobileMoneyRail {
  const rail = paymentsRuntime(app).rail;
  if (!rail) throw new Error('the mobile-money rail is not running in this process');
  return rail;
}

/** Asks the rail about a pending prompt and applies its answer; 'processing' while the customer has not answered. */
export async function confirmPrompt(
  app: AppServices,
  tenantId: number,
  paymentRequestId: string,
  via: 'query' | 'callback' = 'query',
): Promise<SettleOutcome | 'processing'> {
  const pr = await app.db.tenant(tenantId, (tx) =>
    tx.paymentRequest.findUniqueOrThrow({ where: { id: paymentRequestId } }),
  );
  if (pr.status !== 'pending' && pr.status !== 'sending') return 'duplicate';
  if (!pr.checkoutRequestId) return 'processing';
  const q = await railOf(app).query(pr.checkoutRequestId);
  if (q.ResultCode == null) return 'processing';
  return applyRailResult(
    app,
    tenantId,
    pr.id,
    { resultCode: q.ResultCode, resultDesc: q.ResultDesc ?? '', items: q.CallbackMetadata?.Item },
    via,
  );
}

/** The stored callback's claim, read leniently: only the checkout id is used to act, the rest for the record. */
function claimOf(raw: string): { checkoutRequestId: string; resultCode: unknown } | null {
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

  const claim = claimOf(row.rawBody);
  if (!claim) return close('malformed');
  const pr = await app.db.tenant(row.tenantId, (tx) =>
    tx.paymentRequest.findFirst({ where: { tenantId: row.tenantId, checkoutRequestId: claim.checkoutRequestId } }),
  );
  if (pr && pr.status !== 'pending' && pr.status !== 'sending') return close('duplicate');

  let q;
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

  if (!pr) {
    // An answer for a prompt no request recorded. A push may still be recording its acknowledgement: wait for it.
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

/** Stored callbacks not yet closed (a crash while confirming, a rail that could not be asked): confirmed again. */
export async function replayCallbacks(app: AppServices, now = new Date()): Promise<number> {
  const open = await app.db.system((tx) =>
    tx.mpesaCallback.findMany({
      // Not the ones a request is confirming right now; then back off by the attempts made.
      where: { processedAt: null, receivedAt: { lte: new Date(now.getTime() - 2_000) } },
      orderBy: { id: 'asc' },
      take: 200,
      select: { id: true, attempts: true, lastAttemptAt: true },
    }),
  );
  let closed = 0;
  for (const c of open) {
    const backoffMs = Math.min(60_000, 1_000 * 2 ** Math.min(c.attempts, 6));
    if (c.lastAttemptAt && now.getTime() - c.lastAttemptAt.getTime() < backoffMs) continue;
    const outcome = await confirmCallback(app, c.id).catch((err) => {
      app.log.warn({ err, callback_id: String(c.id) }, 'callback replay failed');
      return null;
    });
    if (outcome) closed += 1;
  }
  return closed;
}

const sameMsisdn = (line: DarajaPulledTransaction, phone: string) => normalisePhone(String(line.msisdn)) === phone;

/** When a statement line was paid: its trxDate, Nairobi time unless it names an offset; null when unreadable. */
function lineDate(line: DarajaPulledTransaction): Date | null {
  const date = new Date(`${line.trxDate.replace(' ', 'T')}${/[Z+]/.test(line.trxDate.slice(10)) ? '' : '+03:00'}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A statement line as the items of a success result (what applyRailResult reads). */
function lineItems(line: DarajaPulledTransaction) {
  const date = lineDate(line);
  const ts = date ? darajaTimestamp(date) : undefined;
  return [
    { Name: 'Amount', Value: line.amount },
    { Name: 'MpesaReceiptNumber', Value: line.transactionId },
    ...(ts ? [{ Name: 'TransactionDate', Value: Number(ts) }] : []),
    { Name: 'PhoneNumber', Value: Number(normalisePhone(String(line.msisdn)) ?? 0) },
  ];
}

async function pull(app: AppServices, shortcode: string, from: Date, to: Date): Promise<DarajaPulledTransaction[]> {
  const out: DarajaPulledTransaction[] = [];
  for (let offset = 0; offset < 100_000;) {
    const page = await railOf(app).pullTransactions({
      ShortCode: shortcode,
      StartDate: darajaDateTime(from),
      EndDate: darajaDateTime(to),
      OffSetValue: String(offset),
    });
    const lines = (page.Response ?? []).flat();
    out.push(...lines);
    if (lines.length < 1000) break;
    offset += lines.length;
  }
  return out;
}

async function receipted(app: AppServices, ref: string): Promise<boolean> {
  return app.db.system(
    async (tx) =>
      !!(
        (await tx.receipt.findFirst({ where: { transactionRef: ref } })) ??
        (await tx.unmatchedPayment.findFirst({ where: { transactionRef: ref } }))
      ),
  );
}

/**
 * A request left `sending` past its call (the process died between the push and recording its acknowledgement, or
 * the rail never answered): the rail's statement says whether its prompt was paid. Paid → receipted from the
 * statement line; not on the statement once MPESA_PROMPT_TTL_SECONDS have passed → failed (the prompt, if it ever
 * reached the phone, has expired); otherwise it stays in doubt for the next look.
 */
export async function resolveInDoubt(
  app: AppServices,
  paymentRequestId: string,
  now = new Date(),
): Promise<SettleOutcome | 'in_doubt' | 'expired' | 'not_in_doubt'> {
  const pr = await app.db.system((tx) => tx.paymentRequest.findUnique({ where: { id: paymentRequestId } }));
  if (!pr || pr.status !== 'sending' || (pr.sendingUntil && pr.sendingUntil > now)) return 'not_in_doubt';
  const lines = await pull(
    app,
    pr.shortcode,
    new Date(pr.createdAt.getTime() - 60_000),
    new Date(now.getTime() + 60_000),
  );
  for (const line of lines) {
    const amountMinor = shillingsToMinor(line.amount);
    if (
      !sameMsisdn(line, pr.phone) ||
      line.billreference !== pr.accountReference ||
      amountMinor == null ||
      amountMinor > pr.amountMinor
    )
      continue;
    if (await receipted(app, line.transactionId)) continue;
    return applyRailResult(
      app,
      pr.tenantId,
      pr.id,
      { resultCode: 0, resultDesc: 'Confirmed from the paybill statement', items: lineItems(line) },
      'statement',
    );
  }
  if (now.getTime() - pr.createdAt.getTime() < app.config.mpesaPromptTtlSeconds * 1000) return 'in_doubt';
  await app.db.tenant(pr.tenantId, (tx) =>
    transitionPaymentRequest(tx, pr.id, 'sending', 'failed', {
      resultDesc: `Not confirmed: the rail never acknowledged this prompt and no payment for it reached the statement within ${app.config.mpesaPromptTtlSeconds} s`,
      resolvedVia: 'statement',
      resolvedAt: new Date(),
      sendingUntil: null,
    }),
  );
  return 'expired';
}

/**
 * The paybill statement against our records: every paid line is receipted, attached to the request it answers
 * (confirmed by query, or from the statement for a request in doubt), or recorded as unmatched money held for
 * refund (payment.unmatched). Lines younger than the grace are left for the next run.
 */
export async function reconcileStatement(
  app: AppServices,
  now = new Date(),
): Promise<{ attached: number; unmatched: number }> {
  const grace = statementGraceMs(app);
  const channels = await app.db.system((tx) =>
    tx.mpesaChannel.findMany({ select: { tenantId: true, shortcode: true, statementPulledTo: true, createdAt: true } }),
  );
  const byShortcode = new Map<string, typeof channels>();
  for (const c of channels) byShortcode.set(c.shortcode, [...(byShortcode.get(c.shortcode) ?? []), c]);
  let attached = 0;
  let unmatched = 0;
  for (const [shortcode, chans] of byShortcode) {
    const pulledTo = Math.min(...chans.map((c) => (c.statementPulledTo ?? c.createdAt).getTime()));
    const lines = await pull(app, shortcode, new Date(pulledTo - 15 * 60_000), now);
    for (const line of lines) {
      if (await receipted(app, line.transactionId)) continue;
      const r = await settleLine(
        app,
        shortcode,
        chans.map((c) => c.tenantId),
        line,
        now,
        grace,
      );
      if (r === 'attached') attached += 1;
      if (r === 'unmatched') unmatched += 1;
    }
    await app.db.system((tx) =>
      tx.mpesaChannel.updateMany({
        where: { shortcode },
        data: { statementPulledTo: new Date(now.getTime() - grace) },
      }),
    );
  }
  return { attached, unmatched };
}

async function settleLine(
  app: AppServices,
  shortcode: string,
  tenantIds: number[],
  line: DarajaPulledTransaction,
  now: Date,
  grace: number,
) {
  const amountMinor = shillingsToMinor(line.amount);
  const phone = normalisePhone(String(line.msisdn));
  if (amountMinor == null || !phone) return 'skipped';
  const candidate = await app.db.system((tx) =>
    tx.paymentRequest.findFirst({
      where: {
        shortcode,
        phone,
        accountReference: line.billreference,
        status: { in: ['sending', 'pending'] },
        amountMinor: { gte: amountMinor },
      },
      orderBy: { createdAt: 'asc' },
    }),
  );
  if (candidate?.status === 'pending') {
    // Young prompts are the callback's (or the status query's) to settle, as for the reconcile step.
    if (now.getTime() - candidate.createdAt.getTime() < app.config.mpesaReconcileAfterMs) return 'skipped';
    const r = await confirmPrompt(app, candidate.tenantId, candidate.id);
    return r === 'settled' ? 'attached' : 'skipped';
  }
  if (candidate) {
    const r = await resolveInDoubt(app, candidate.id, now);
    return r === 'settled' ? 'attached' : 'skipped';
  }
  const when = lineDate(line) ?? now;
  if (now.getTime() - when.getTime() < grace) return 'skipped';
  // A paybill belongs to one organisation; where several share one (the sandbox's), the one the phone paid last.
  const recent = await app.db.system((tx) =>
    tx.paymentRequest.findFirst({
      where: { tenantId: { in: tenantIds }, phone },
      orderBy: { createdAt: 'desc' },
      select: { tenantId: true },
    }),
  );
  const tenantId = recent?.tenantId ?? Math.min(...tenantIds);
  const recorded = await app.db.tenant(tenantId, async (tx) => {
    if (await tx.receipt.findFirst({ where: { transactionRef: line.transactionId } })) return false;
    return recordUnmatched(app, tx, tenantId, {
      transactionRef: line.transactionId,
      checkoutRequestId: null,
      phone,
      amountMinor,
      accountReference: line.billreference,
      paidAt: when,
      foundVia: 'statement',
      reason: 'a payment on the paybill statement that no payment request answers',
    });
  });
  return recorded ? 'unmatched' : 'skipped';
}

/**
 * The payments sweep (job payments.reconcile, every PAYMENTS_SWEEP_SECONDS and once at start): stored callbacks
 * replayed, prompts pending past MPESA_RECONCILE_AFTER_MS asked of the rail, requests in doubt looked up on the
 * statement, and the statement reconciled.
 */
export async function sweepPayments(app: AppServices, now = new Date()) {
  const out = { replayed: 0, reconciled: 0, inDoubt: 0, attached: 0, unmatched: 0 };
  if (!paymentsRuntime(app).rail) return out;
  out.replayed = await replayCallbacks(app, now);
  const stale = await app.db.system((tx) =>
    tx.paymentRequest.findMany({
      where: {
        OR: [
          { status: 'pending', createdAt: { lte: new Date(now.getTime() - app.config.mpesaReconcileAfterMs) } },
          { status: 'sending', sendingUntil: { lte: now } },
        ],
      },
      orderBy: { createdAt: 'asc' },
      take: 200,
      select: { id: true, tenantId: true, status: true },
    }),
  );
  for (const s of stale) {
    const r = await (
      s.status === 'pending' ? confirmPrompt(app, s.tenantId, s.id) : resolveInDoubt(app, s.id, now)
    ).catch((err) => {
      app.log.warn({ err, payment_request_id: s.id }, 'payment reconciliation failed');
      return null;
    });
    if (r === 'settled' || r === 'failed' || r === 'expired')
      s.status === 'pending' ? (out.reconciled += 1) : (out.inDoubt += 1);
  }
  const st = await reconcileStatement(app, now).catch((err) => {
    app.log.warn({ err }, 'statement reconciliation failed');
    return { attached: 0, unmatched: 0 };
  });
  out.attached = st.attached;
  out.unmatched = st.unmatched;
  return out;
}
