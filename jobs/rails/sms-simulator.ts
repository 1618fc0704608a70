import { createHash } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { AppServices } from '../../src/context.ts';
import type { SmsSimMessage as Booking } from '../../src/generated/prisma/client.ts';
import { decryptSecret, encryptSecret, masterKey } from '../../src/lib/secret-box.ts';
import { segmentsOf } from '../../src/lib/sms-segments.ts';
import {
  type HandsetMessage,
  SMS_STATUS,
  type SmsDeliveryReport,
  type SmsDeliveryStatus,
  type SmsGateway,
  type SmsRecipientAnswer,
  type SmsSendRequest,
  type SmsSendResponse,
  type SmsStatusCode,
} from '../../src/ports/sms-gateway.ts';
import { QUEUES } from '../queues.ts';

/**
 * Documented test numbers (docs/sms.md "SMS"): the gateway's answer is chosen by the recipient. Any other valid number is
 * accepted (101) and later reported delivered.
 */
export const SMS_SIM_NUMBERS = {
  invalid: '254700000021', // 403 InvalidPhoneNumber
  blacklisted: '254700000022', // 406 UserInBlacklist
  flaky: '254700000023', // 500 the first time a given text is sent to it, then 101
  gatewayDown: '254700000024', // 501 GatewayError, always
  undeliverable: '254700000025', // 101, then the delivery report says Failed (AbsentSubscriber)
  noReport: '254700000026', // 101 and delivered, but the report is never POSTed (the sweep's query finds it)
} as const;

const SENDER = /^[A-Za-z][A-Za-z0-9]{0,10}$/;
const SEALED_URL_AAD = (id: string) => `sms_sim:${id}`;
/** The text a handset received is kept sealed too: it may carry a one-time code (docs/sms.md "One-time codes"). */
const SEALED_BODY_AAD = (id: string) => `sms_sim_body:${id}`;
/** Messages the handset inspection returns, newest first. */
const HANDSET_LIMIT = 50;

/** A booked text, opened; null for one kept before texts were sealed (emptied by the migration). */
function openBody(app: AppServices, b: Pick<Booking, 'gatewayMessageId' | 'bodySealed'>): string | null {
  try {
    return decryptSecret(masterKey(app.config), b.bodySealed, SEALED_BODY_AAD(b.gatewayMessageId));
  } catch {
    return null;
  }
}
/** What one segment costs at the simulated gateway (a display figure: the service charges in units). */
const COST_PER_SEGMENT = 0.8;

async function statusFor(app: AppServices, req: SmsSendRequest, phone: string): Promise<SmsStatusCode> {
  if (!/^2547\d{8}$|^2541\d{8}$/.test(phone) || phone === SMS_SIM_NUMBERS.invalid) return 403;
  if (phone === SMS_SIM_NUMBERS.blacklisted) return 406;
  if (phone === SMS_SIM_NUMBERS.gatewayDown) return 501;
  if (phone === SMS_SIM_NUMBERS.flaky) {
    const failed = await app.db.system((tx) =>
      tx.smsSimMessage.findMany({ where: { phone, senderId: req.from, statusCode: 500 } }),
    );
    return failed.some((b) => openBody(app, b) === req.message) ? 101 : 500;
  }
  return 101;
}

const book = (app: AppServices, id: string) =>
  app.db.system((tx) => tx.smsSimMessage.findUnique({ where: { gatewayMessageId: id } }));

/** A repeated clientRef is the same request: the id derives from it, so the first booking answers the repeat. */
const bookingId = (req: SmsSendRequest, phone: string) =>
  `ATXid_${createHash('sha256').update(`${req.username}|${req.clientRef}|${phone}`).digest('hex').slice(0, 32)}`;

/**
 * The simulated gateway: its book is sms_sim_messages; delivery reports go out by the `rails.sms-sim.deliver` job.
 * Without pg-boss (the demo week's seed, src/seed/demo-week-services.ts, before the service starts) no report job is
 * queued: the handset's answer is settled when the gateway is next asked (the SMS sweep asks about a sent message
 * whose report never came).
 */
export class SmsSimulator implements SmsGateway {
  constructor(
    private readonly app: AppServices,
    private readonly boss: PgBoss | null,
  ) {}

  async send(req: SmsSendRequest): Promise<SmsSendResponse> {
    if (!req.username) throw new Error('The supplied authentication is invalid');
    const numbers = req.to.split(',').map((n) => n.trim().replace(/^\+/, ''));
    const invalidRequest = !SENDER.test(req.from) || !req.message || !/^https?:\/\//.test(req.reportUrl);
    const recipients: SmsRecipientAnswer[] = [];
    for (const phone of numbers) {
      const id = bookingId(req, phone);
      const code: SmsStatusCode = invalidRequest ? 402 : await statusFor(this.app, req, phone);
      const inserted = await this.app.db.system((tx) =>
        tx.smsSimMessage.createMany({
          data: {
            gatewayMessageId: id,
            account: req.username,
            senderId: req.from,
            phone,
            bodySealed: encryptSecret(masterKey(this.app.config), req.message, SEALED_BODY_AAD(id)),
            statusCode: code,
            reportUrlSealed: encryptSecret(masterKey(this.app.config), req.reportUrl, SEALED_URL_AAD(id)),
          },
          skipDuplicates: true,
        }),
      );
      const b = (await book(this.app, id))!;
      const accepted = b.statusCode === 101;
      if (accepted && (inserted.count === 1 || !b.deliveryStatus)) await this.queueReport(id);
      recipients.push({
        number: `+${phone}`,
        status: SMS_STATUS[b.statusCode as SmsStatusCode] ?? 'Failed',
        statusCode: b.statusCode,
        messageId: accepted ? id : 'None',
        cost: accepted ? `KES ${(COST_PER_SEGMENT * segmentsOf(req.message).segments).toFixed(4)}` : '0',
      });
    }
    const sent = recipients.filter((r) => r.statusCode === 101).length;
    return { SMSMessageData: { Message: `Sent to ${sent}/${recipients.length}`, Recipients: recipients } };
  }

  async query(gatewayMessageId: string): Promise<SmsDeliveryStatus> {
    let b = await book(this.app, gatewayMessageId);
    if (!b || b.statusCode !== 101) throw new Error('The message is not known to the gateway');
    if (!b.deliveryStatus && overdue(this.app, b.createdAt)) b = await settleDelivery(this.app, gatewayMessageId);
    const status = (b?.deliveryStatus as SmsDeliveryStatus['status']) ?? null;
    return {
      id: gatewayMessageId,
      status,
      failureReason: status === 'Failed' ? deliveryOf(b!.phone).failureReason : null,
    };
  }

  async handset(account: string, phone: string): Promise<HandsetMessage[]> {
    const rows = await this.app.db.system((tx) =>
      tx.smsSimMessage.findMany({
        where: { account, phone, statusCode: 101 },
        orderBy: [{ createdAt: 'desc' }, { gatewayMessageId: 'asc' }],
        take: HANDSET_LIMIT,
      }),
    );
    return rows.flatMap((b) => {
      const body = openBody(this.app, b);
      if (body === null) return [];
      const at = { receivedAt: b.createdAt, deliveryStatus: b.deliveryStatus };
      return [{ gatewayMessageId: b.gatewayMessageId, senderId: b.senderId, phone: b.phone, body, ...at }];
    });
  }

  private async queueReport(gatewayMessageId: string): Promise<void> {
    if (!this.boss) return;
    const delay = this.app.config.mpesaSimDelayMs;
    await this.boss.send(
      QUEUES.smsSimDeliver.name,
      { gatewayMessageId },
      delay > 0 ? { startAfter: new Date(Date.now() + delay) } : {},
    );
  }
}

/** A report whose job was lost is settled when next queried, on the gateway's own clock. */
const overdue = (app: AppServices, createdAt: Date) =>
  Date.now() - createdAt.getTime() > app.config.mpesaSimDelayMs + 2_000;

const deliveryOf = (phone: string): { status: 'Success' | 'Failed'; failureReason?: string } =>
  phone === SMS_SIM_NUMBERS.undeliverable
    ? { status: 'Failed', failureReason: 'AbsentSubscriber' }
    : { status: 'Success' };

/** The handset's answer, fixed once (a retried job and a query racing it read the one that won). */
async function settleDelivery(app: AppServices, id: string): Promise<Booking | null> {
  return app.db.system(async (tx) => {
    const row = await tx.smsSimMessage.findUnique({ where: { gatewayMessageId: id } });
    if (!row || row.deliveryStatus || row.statusCode !== 101) return row;
    await tx.smsSimMessage.updateMany({
      where: { gatewayMessageId: id, deliveryStatus: null },
      data: { deliveryStatus: deliveryOf(row.phone).status },
    });
    return tx.smsSimMessage.findUnique({ where: { gatewayMessageId: id } });
  });
}

/**
 * The `rails.sms-sim.deliver` job: the handset answers and the report is POSTed to the organisation's report URL.
 * A failed POST (5xx, no answer) throws so pg-boss retries it.
 */
export async function deliverSimReport(app: AppServices, gatewayMessageId: string): Promise<number | null> {
  const b = await settleDelivery(app, gatewayMessageId);
  if (!b?.deliveryStatus || !b.reportUrlSealed || b.phone === SMS_SIM_NUMBERS.noReport) return null;
  let url: string;
  try {
    url = decryptSecret(masterKey(app.config), b.reportUrlSealed, SEALED_URL_AAD(gatewayMessageId));
  } catch {
    return null; // a replica without the key cannot open it: the report is lost, as gateways lose some
  }
  const d = deliveryOf(b.phone);
  const report: SmsDeliveryReport = {
    id: gatewayMessageId,
    status: b.deliveryStatus as SmsDeliveryReport['status'],
    phoneNumber: `+${b.phone}`,
    networkCode: '63902',
    ...(d.failureReason ? { failureReason: d.failureReason } : {}),
    retryCount: '0',
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(report),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer().catch(() => undefined);
  await app.db.system((tx) =>
    tx.smsSimMessage.update({ where: { gatewayMessageId }, data: { reportedAt: new Date() } }),
  );
  if (res.status >= 500) throw new Error(`SMS delivery report answered ${res.status}`);
  return res.status;
}
