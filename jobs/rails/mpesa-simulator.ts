import { randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { AppServices } from '../../src/context.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { faultPoint } from '../../src/lib/faults.ts';
import { decryptSecret, encryptSecret, masterKey } from '../../src/lib/secret-box.ts';
import {
  darajaPassword,
  darajaTimestamp,
  type DarajaCallback,
  darajaDateTime,
  type DarajaPullRequest,
  type DarajaPullResponse,
  type DarajaQueryResponse,
  type DarajaStkPushRequest,
  type DarajaStkPushResponse,
  type MobileMoneyRail,
  RailRefusal,
  RESULT_CODES,
} from '../../src/ports/mobile-money.ts';
import { QUEUES } from '../queues.ts';
import { randomCode } from './sim-codes.ts';

/**
 * Documented test phone numbers (docs/payments.md "Simulated M-Pesa"): the outcome of a prompt is chosen by the paying phone.
 * Any other number succeeds. `callback: false` resolves the prompt (the status query sees the result) but never
 * calls back, so reconciliation can be exercised.
 */
export const SIM_OUTCOMES: Record<string, { code: number; callback: boolean }> = {
  '254708374149': { code: 0, callback: true },
  '254700000001': { code: 1032, callback: true },
  '254700000002': { code: 1037, callback: true },
  '254700000003': { code: 1, callback: true },
  '254700000004': { code: 2001, callback: true },
  '254700000005': { code: 0, callback: false },
};

export function simOutcome(phone: string): { code: number; callback: boolean } {
  return SIM_OUTCOMES[phone] ?? { code: 0, callback: true };
}

class RailError extends RailRefusal {
  constructor(detail: string) {
    super(`Mobile-money rail refused the request: ${detail}`);
  }
}

/** Checks a request the way Daraja does: shapes, the password, the amount and the account reference length. */
function checkRequest(req: DarajaStkPushRequest, passkey: string): void {
  if (req.TransactionType !== 'CustomerPayBillOnline') throw new RailError('Invalid TransactionType');
  if (!/^\d{14}$/.test(req.Timestamp)) throw new RailError('Invalid Timestamp');
  if (req.Password !== darajaPassword(req.BusinessShortCode, passkey, req.Timestamp))
    throw new RailError('Wrong credentials');
  if (!Number.isInteger(req.Amount) || req.Amount < 1) throw new RailError('Invalid Amount');
  if (!/^254[17]\d{8}$/.test(req.PhoneNumber) || req.PartyA !== req.PhoneNumber)
    throw new RailError('Invalid PhoneNumber');
  if (req.PartyB !== req.BusinessShortCode) throw new RailError('Invalid PartyB');
  if (!req.AccountReference || req.AccountReference.length > 12) throw new RailError('Invalid AccountReference');
  if (!/^https?:\/\//.test(req.CallBackURL)) throw new RailError('Invalid CallBackURL');
}

/**
 * Where each prompt's callback goes, as a rail keeps what it was given. The CallBackURL carries the organisation's
 * callback token, so the rail's table holds it sealed with the master key every replica shares (SECRETS_KEY), with
 * its hash: whichever process resolves the prompt (a jobs-only replica, another cluster worker, this one after a
 * restart) calls it back. A URL that does not open (a replica with another key) is not called, as when Daraja loses a
 * callback; the service then finds the payment by its status query or its statement.
 */
const SEALED_URL_AAD = (checkoutRequestId: string) => `mpesa_sim_prompts:${checkoutRequestId}`;

function sealUrl(app: AppServices, checkoutRequestId: string, url: string): string {
  return encryptSecret(masterKey(app.config), url, SEALED_URL_AAD(checkoutRequestId));
}

function openUrl(app: AppServices, p: { checkoutRequestId: string; callbackUrlSealed: string | null }): string | null {
  if (!p.callbackUrlSealed) return null;
  try {
    return decryptSecret(masterKey(app.config), p.callbackUrlSealed, SEALED_URL_AAD(p.checkoutRequestId));
  } catch {
    return null;
  }
}

/**
 * The simulated rail. Prompts live in mpesa_sim_prompts (so any process can answer a query or pull the statement);
 * each is resolved by a pg-boss job after MPESA_SIM_DELAY_MS, which then POSTs the Daraja callback over real HTTP to
 * the CallBackURL.
 */
export class MpesaSimulator implements MobileMoneyRail {
  constructor(
    private readonly app: AppServices,
    private readonly boss: PgBoss,
  ) {}

  async stkPush(req: DarajaStkPushRequest): Promise<DarajaStkPushResponse> {
    checkRequest(req, this.app.config.mpesaPasskey);
    const merchantRequestId = `${randomBytes(3).toString('hex')}-${randomBytes(4).toString('hex')}-1`;
    const checkoutRequestId = `ws_CO_${darajaTimestamp()}${randomBytes(6).toString('hex')}`;
    await this.app.db.system((tx) =>
      tx.mpesaSimPrompt.create({
        data: {
          checkoutRequestId,
          merchantRequestId,
          shortcode: req.BusinessShortCode,
          phone: req.PhoneNumber,
          amount: req.Amount,
          accountReference: req.AccountReference,
          callbackUrlHash: sha256Hex(req.CallBackURL),
          callbackUrlSealed: sealUrl(this.app, checkoutRequestId, req.CallBackURL),
        },
      }),
    );
    faultPoint(this.app.config, 'mpesa-sim.after-prompt-stored');
    const delay = this.app.config.mpesaSimDelayMs;
    await this.boss.send(
      QUEUES.mpesaSimResolve.name,
      { checkoutRequestId },
      delay > 0 ? { startAfter: new Date(Date.now() + delay) } : {},
    );
    return {
      MerchantRequestID: merchantRequestId,
      CheckoutRequestID: checkoutRequestId,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    };
  }

  async query(checkoutRequestId: string): Promise<DarajaQueryResponse> {
    let p = await this.app.db.system((tx) => tx.mpesaSimPrompt.findUnique({ where: { checkoutRequestId } }));
    if (!p) throw new RailError('Invalid CheckoutRequestID');
    if (p.resultCode == null && overdue(this.app, p.createdAt)) p = (await answerPrompt(this.app, checkoutRequestId))!;
    const base = { MerchantRequestID: p.merchantRequestId, CheckoutRequestID: p.checkoutRequestId };
    if (p.resultCode == null)
      return { ...base, ResponseCode: '500.001.1001', ResponseDescription: 'The transaction is being processed' };
    return {
      ...base,
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successsfully',
      ResultCode: p.resultCode,
      ResultDesc: p.resultDesc ?? '',
      ...(p.resultCode === 0 ? { CallbackMetadata: metadata(p) } : {}),
    };
  }

  /** Daraja's Pull Transactions: paid prompts of the paybill resolved between StartDate and EndDate (Nairobi time). */
  async pullTransactions(req: DarajaPullRequest): Promise<DarajaPullResponse> {
    const from = new Date(`${req.StartDate.replace(' ', 'T')}+03:00`);
    const to = new Date(`${req.EndDate.replace(' ', 'T')}+03:00`);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new RailError('Invalid StartDate or EndDate');
    const offset = Number(req.OffSetValue) || 0;
    const waiting = await this.app.db.system((tx) =>
      tx.mpesaSimPrompt.findMany({
        where: { shortcode: req.ShortCode, resultCode: null },
        select: { checkoutRequestId: true, createdAt: true },
      }),
    );
    for (const w of waiting) if (overdue(this.app, w.createdAt)) await answerPrompt(this.app, w.checkoutRequestId);
    const paid = await this.app.db.system((tx) =>
      tx.mpesaSimPrompt.findMany({
        where: { shortcode: req.ShortCode, resultCode: 0, resolvedAt: { gte: from, lte: to } },
        orderBy: [{ resolvedAt: 'asc' }, { checkoutRequestId: 'asc' }],
        skip: offset,
        take: 1000,
      }),
    );
    return {
      ResponseRefID: randomBytes(8).toString('hex'),
      ResponseCode: '1000',
      ResponseMessage: 'Success',
      Response: [
        paid.map((p) => ({
          transactionId: p.receiptNo!,
          trxDate: darajaDateTime(p.resolvedAt!),
          msisdn: Number(p.phone),
          sender: 'MPESA',
          transactiontype: 'c2b-pay-bill-debit',
          billreference: p.accountReference,
          amount: String(p.amount),
          organizationname: 'Simulated customer',
        })),
      ],
    };
  }
}

function metadata(p: { amount: number; receiptNo: string | null; transactionDate: string | null; phone: string }) {
  return {
    Item: [
      { Name: 'Amount', Value: p.amount },
      { Name: 'MpesaReceiptNumber', Value: p.receiptNo! },
      { Name: 'TransactionDate', Value: Number(p.transactionDate) },
      { Name: 'PhoneNumber', Value: Number(p.phone) },
    ],
  };
}

/**
 * The callbacks the rail still owes (at start, and with every payments sweep): prompts past their resolve time (OVERDUE_MS after
 * MPESA_SIM_DELAY_MS) that were never called back, because the process that pushed them died before queueing the
 * resolve job, or died while that job ran (pg-boss would retry it only once the job expired), or whose deliveries all failed
 * while the service was down. A real rail keeps the
 * CallBackURL and calls back after our crash; so does this one. A callback sent twice is harmless: the second finds
 * its request final (`duplicate`).
 */
export async function resumeCallbacks(app: AppServices, boss: PgBoss, now = new Date()): Promise<number> {
  const owed = await app.db.system((tx) =>
    tx.mpesaSimPrompt.findMany({
      where: {
        callbackStatus: null,
        callbackUrlSealed: { not: null },
        createdAt: {
          lte: new Date(now.getTime() - app.config.mpesaSimDelayMs - OVERDUE_MS),
          gte: new Date(now.getTime() - RESUME_WINDOW_MS),
        },
      },
      select: { checkoutRequestId: true, phone: true },
      take: 1000,
    }),
  );
  const due = owed.filter((p) => simOutcome(p.phone).callback);
  // At most one resumed delivery per prompt a minute, however often this runs (at start and with every sweep).
  for (const p of due)
    await boss.send(
      QUEUES.mpesaSimResolve.name,
      { checkoutRequestId: p.checkoutRequestId },
      { singletonKey: `resume:${p.checkoutRequestId}`, singletonSeconds: 60 },
    );
  return due.length;
}

/** How far back a restart looks for callbacks still owed (a day: Daraja gives up on a callback URL long before). */
const RESUME_WINDOW_MS = 24 * 3_600_000;

/** The customer's answer, fixed once (by the resolve job, or by the rail's own clock when that job was lost). */
async function answerPrompt(app: AppServices, checkoutRequestId: string) {
  return app.db.system(async (tx) => {
    const row = await tx.mpesaSimPrompt.findUnique({ where: { checkoutRequestId } });
    if (!row || row.resultCode != null) return row;
    const o = simOutcome(row.phone);
    // Only the first answer counts: a resolve job and a lookup racing each other both read the one that won.
    await tx.mpesaSimPrompt.updateMany({
      where: { checkoutRequestId, resultCode: null },
      data: {
        resultCode: o.code,
        resultDesc: RESULT_CODES[o.code] ?? 'Failed',
        receiptNo: o.code === 0 ? `T${randomCode(9)}` : null,
        transactionDate: o.code === 0 ? darajaTimestamp() : null,
        resolvedAt: new Date(),
      },
    });
    return tx.mpesaSimPrompt.findUnique({ where: { checkoutRequestId } });
  });
}

/**
 * A prompt whose resolve job was lost with a crashed worker (pg-boss retries it only once the job expires) is
 * answered when it is next looked at, as a real rail's prompts resolve on the rail's own clock, callback or not.
 */
const OVERDUE_MS = 2_000;
const overdue = (app: AppServices, createdAt: Date) =>
  Date.now() - createdAt.getTime() > app.config.mpesaSimDelayMs + OVERDUE_MS;

/**
 * The customer answers: the result is fixed once (a retried job reuses it) and the callback is POSTed. A failed
 * POST throws so pg-boss retries the delivery.
 */
export async function resolvePrompt(
  app: AppServices,
  checkoutRequestId: string,
): Promise<{ code: number; callbackStatus: number | null }> {
  const p = await answerPrompt(app, checkoutRequestId);
  if (!p || p.resultCode == null) return { code: -1, callbackStatus: null };
  const callbackUrl = openUrl(app, p);
  if (!simOutcome(p.phone).callback || !callbackUrl) return { code: p.resultCode, callbackStatus: null };
  const body: DarajaCallback = {
    Body: {
      stkCallback: {
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResultCode: p.resultCode,
        ResultDesc: p.resultDesc ?? '',
        ...(p.resultCode === 0 ? { CallbackMetadata: metadata(p) } : {}),
      },
    },
  };
  const res = await fetch(callbackUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer().catch(() => undefined);
  await app.db.system((tx) =>
    tx.mpesaSimPrompt.update({ where: { checkoutRequestId }, data: { callbackStatus: res.status } }),
  );
  if (res.status >= 500) throw new Error(`callback answered ${res.status}`);
  return { code: p.resultCode, callbackStatus: res.status };
}
