import { randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { AppServices } from '../../src/context.ts';
import type { MpesaSimB2c as Booking } from '../../src/generated/prisma/client.ts';
import { nairobiIso } from '../../src/lib/dates.ts';
import { decryptSecret, encryptSecret, masterKey } from '../../src/lib/secret-box.ts';
import {
  B2C_MAX_AMOUNT,
  B2C_MIN_AMOUNT,
  B2C_PROCESSING,
  B2C_RESULT_CODES,
  type B2cRail,
  type DarajaB2cRequest,
  type DarajaB2cResponse,
  type DarajaB2cResult,
  type DarajaB2cStatus,
} from '../../src/ports/mobile-money-b2c.ts';
import { darajaTimestamp, RailRefusal } from '../../src/ports/mobile-money.ts';
import { QUEUES } from '../queues.ts';
import { randomCode } from './sim-codes.ts';

/**
 * Documented test phone numbers (docs/claims.md "Claim payouts"): the outcome of a payout is chosen by the receiving phone.
 * Any other number is paid. `result: false` pays (the status query sees it) but never POSTs the Result, so the
 * sweep's query is what confirms it.
 */
export const B2C_SIM_OUTCOMES: Record<string, { code: number; result: boolean }> = {
  '254708374149': { code: 0, result: true },
  '254700000011': { code: 2001, result: true },
  '254700000012': { code: 1, result: true },
  '254700000013': { code: 2040, result: true },
  '254700000014': { code: 8006, result: true },
  '254700000015': { code: 0, result: false },
};

export function b2cSimOutcome(phone: string): { code: number; result: boolean } {
  return B2C_SIM_OUTCOMES[phone] ?? { code: 0, result: true };
}

class B2cRailError extends RailRefusal {
  constructor(detail: string) {
    super(`B2C rail refused the request: ${detail}`);
  }
}

/** Checks a request the way Daraja does (shapes and bounds; the security credential only for presence). */
function checkRequest(req: DarajaB2cRequest): void {
  if (!req.OriginatorConversationID || req.OriginatorConversationID.length > 100)
    throw new B2cRailError('Invalid OriginatorConversationID');
  if (!req.InitiatorName) throw new B2cRailError('Invalid InitiatorName');
  if (!req.SecurityCredential) throw new B2cRailError('Invalid SecurityCredential');
  if (!['BusinessPayment', 'SalaryPayment', 'PromotionPayment'].includes(req.CommandID))
    throw new B2cRailError('Invalid CommandID');
  if (!Number.isInteger(req.Amount) || req.Amount < B2C_MIN_AMOUNT || req.Amount > B2C_MAX_AMOUNT)
    throw new B2cRailError('Invalid Amount');
  if (!/^\d{5,7}$/.test(req.PartyA)) throw new B2cRailError('Invalid PartyA');
  if (!/^254[17]\d{8}$/.test(req.PartyB)) throw new B2cRailError('Invalid PartyB');
  if (!req.Remarks || req.Remarks.length > 100) throw new B2cRailError('Invalid Remarks');
  if (!/^https?:\/\//.test(req.ResultURL) || !/^https?:\/\//.test(req.QueueTimeOutURL))
    throw new B2cRailError('Invalid ResultURL or QueueTimeOutURL');
}

/**
 * The ResultURL carries the organisation's callback token, so the book keeps it sealed with the master key every
 * replica shares (as the STK simulator keeps its CallBackURL): whichever process resolves the payout calls it back.
 * One that cannot open it does not call, as when Daraja loses a Result; the service's sweep then asks the rail.
 */
const SEALED_URL_AAD = (ocid: string) => `mpesa_sim_b2c:${ocid}`;

function openUrl(app: AppServices, b: Booking): string | null {
  if (!b.resultUrlSealed) return null;
  try {
    return decryptSecret(masterKey(app.config), b.resultUrlSealed, SEALED_URL_AAD(b.originatorConversationId));
  } catch {
    return null;
  }
}

const book = (app: AppServices, ocid: string) =>
  app.db.system((tx) => tx.mpesaSimB2c.findUnique({ where: { originatorConversationId: ocid } }));

/**
 * The simulated B2C rail. Its book is mpesa_sim_b2c (any process can answer a query); each booking is resolved by a
 * pg-boss job after MPESA_SIM_DELAY_MS, which then POSTs the Daraja Result over real HTTP to the ResultURL.
 */
export class B2cSimulator implements B2cRail {
  constructor(
    private readonly app: AppServices,
    private readonly boss: PgBoss,
  ) {}

  async pay(req: DarajaB2cRequest): Promise<DarajaB2cResponse> {
    checkRequest(req);
    const ocid = req.OriginatorConversationID;
    const conversationId = `AG_${darajaTimestamp().slice(0, 8)}_${randomBytes(10).toString('hex')}`;
    // A repeated OriginatorConversationID is the same request: the first booking answers it (nothing is paid twice).
    const inserted = await this.app.db.system((tx) =>
      tx.mpesaSimB2c.createMany({
        data: {
          originatorConversationId: ocid,
          conversationId,
          shortcode: req.PartyA,
          phone: req.PartyB,
          amount: req.Amount,
          commandId: req.CommandID,
          resultUrlSealed: encryptSecret(masterKey(this.app.config), req.ResultURL, SEALED_URL_AAD(ocid)),
        },
        skipDuplicates: true,
      }),
    );
    const b = (await book(this.app, ocid))!;
    if (b.phone !== req.PartyB || b.amount !== req.Amount || b.shortcode !== req.PartyA)
      throw new B2cRailError('Duplicate OriginatorConversationID');
    // A new booking, or one whose resolve job may have been lost: (re)queue it; only the first answer counts.
    if (inserted.count === 1 || b.resultCode == null) await this.queueResolve(ocid);
    return {
      ConversationID: b.conversationId,
      OriginatorConversationID: ocid,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    };
  }

  async query(originatorConversationId: string): Promise<DarajaB2cStatus> {
    let b = await book(this.app, originatorConversationId);
    if (!b) throw new B2cRailError('The transaction is not found');
    if (b.resultCode == null && overdue(this.app, b.createdAt))
      b = await answerBooking(this.app, b.originatorConversationId);
    const base = { OriginatorConversationID: b!.originatorConversationId, ConversationID: b!.conversationId };
    if (b!.resultCode == null)
      return { ...base, ResponseCode: B2C_PROCESSING, ResponseDescription: 'The transaction is being processed' };
    return {
      ...base,
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successfully',
      ...resultOf(b!),
    };
  }

  private async queueResolve(originatorConversationId: string): Promise<void> {
    const delay = this.app.config.mpesaSimDelayMs;
    await this.boss.send(
      QUEUES.b2cSimResolve.name,
      { originatorConversationId },
      delay > 0 ? { startAfter: new Date(Date.now() + delay) } : {},
    );
  }
}

/** The result part of a Result or a status answer, from a resolved booking. */
function resultOf(b: Booking) {
  const paid = b.resultCode === 0;
  return {
    ResultCode: b.resultCode!,
    ResultDesc: b.resultDesc ?? '',
    TransactionID: b.transactionId ?? `${b.conversationId.slice(-3).toUpperCase()}0000000`,
    ...(paid ? { ResultParameters: { ResultParameter: parameters(b) } } : {}),
  };
}

function parameters(b: Booking) {
  // TransactionCompletedDateTime is Daraja's "dd.MM.yyyy HH:mm:ss" on the Nairobi clock.
  const iso = nairobiIso(b.resolvedAt!);
  const completed = `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)} ${iso.slice(11, 19)}`;
  return [
    { Key: 'TransactionAmount', Value: b.amount },
    { Key: 'TransactionReceipt', Value: b.transactionId! },
    { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
    { Key: 'B2CChargesPaidAccountAvailableFunds', Value: 0 },
    { Key: 'ReceiverPartyPublicName', Value: `${b.phone} - Simulated Customer` },
    { Key: 'TransactionCompletedDateTime', Value: completed },
    { Key: 'B2CUtilityAccountAvailableFunds', Value: 10_000_000 },
    { Key: 'B2CWorkingAccountAvailableFunds', Value: 0 },
  ];
}

/** The payment's outcome, fixed once (by the resolve job, or by the rail's own clock when that job was lost). */
async function answerBooking(app: AppServices, ocid: string): Promise<Booking | null> {
  return app.db.system(async (tx) => {
    const row = await tx.mpesaSimB2c.findUnique({ where: { originatorConversationId: ocid } });
    if (!row || row.resultCode != null) return row;
    const o = b2cSimOutcome(row.phone);
    // Only the first answer counts: a resolve job and a query racing each other both read the one that won.
    await tx.mpesaSimB2c.updateMany({
      where: { originatorConversationId: ocid, resultCode: null },
      data: {
        resultCode: o.code,
        resultDesc: B2C_RESULT_CODES[o.code] ?? 'Failed',
        transactionId: o.code === 0 ? `T${randomCode(9)}` : null,
        resolvedAt: new Date(),
      },
    });
    return tx.mpesaSimB2c.findUnique({ where: { originatorConversationId: ocid } });
  });
}

/** A booking whose resolve job was lost (a killed worker) is answered when next queried, on the rail's own clock. */
const OVERDUE_MS = 2_000;
const overdue = (app: AppServices, createdAt: Date) =>
  Date.now() - createdAt.getTime() > app.config.mpesaSimDelayMs + OVERDUE_MS;

/**
 * The payment completes (or fails): the outcome is fixed once (a retried job reuses it) and the Result is POSTed. A
 * failed POST (5xx, no answer) throws so pg-boss retries the delivery.
 */
export async function resolveB2c(
  app: AppServices,
  originatorConversationId: string,
): Promise<{ code: number; resultStatus: number | null }> {
  const b = await answerBooking(app, originatorConversationId);
  if (!b || b.resultCode == null) return { code: -1, resultStatus: null };
  const url = openUrl(app, b);
  if (!b2cSimOutcome(b.phone).result || !url) return { code: b.resultCode, resultStatus: null };
  const body: DarajaB2cResult = {
    Result: {
      ResultType: 0,
      OriginatorConversationID: b.originatorConversationId,
      ConversationID: b.conversationId,
      ...resultOf(b),
      ReferenceData: {
        ReferenceItem: {
          Key: 'QueueTimeoutURL',
          Value: 'https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit',
        },
      },
    },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer().catch(() => undefined);
  await app.db.system((tx) =>
    tx.mpesaSimB2c.update({ where: { originatorConversationId }, data: { callbackStatus: res.status } }),
  );
  if (res.status >= 500) throw new Error(`B2C Result answered ${res.status}`);
  return { code: b.resultCode, resultStatus: res.status };
}
