import { randomBytes } from 'node:crypto';
import { LenderSimulator } from '../../jobs/rails/lender-simulator.ts';
import { randomCode } from '../../jobs/rails/sim-codes.ts';
import { SmsSimulator } from '../../jobs/rails/sms-simulator.ts';
import { smsReportUrl } from '../../jobs/sms.worker.ts';
import type { Principal, TenantInfo } from '../auth/principal.ts';
import { isScope } from '../auth/scopes.ts';
import type { UserRole } from '../generated/prisma/enums.ts';
import { type AppServices, type Context, createContext } from '../context.ts';
import type { Database } from '../db/client.ts';
import { EventBus } from '../db/event-bus.ts';
import { now } from '../lib/clock.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { decideApplication } from '../modules/finance/application/decide.ts';
import { confirmPrompt } from '../modules/payments/confirm.service.ts';
import { fundLoan } from '../modules/payments/ledger/disbursement.ts';
import { paymentService, type StkPushInput } from '../modules/payments/payment.service.ts';
import { smsService } from '../modules/sms/sms.service.ts';
import { offlineServices } from '../process/offline-services.ts';
import {
  darajaTimestamp,
  type DarajaQueryResponse,
  type DarajaStkPushRequest,
  type MobileMoneyRail,
  RESULT_CODES,
} from '../ports/mobile-money.ts';

/**
 * What the demo week (demo-week.ts) runs the services with: the parts of AppServices they use, built as the admin
 * CLI builds them (src/process/offline-services.ts), with no HTTP and no pg-boss. Work a service would queue (a certificate, an
 * SMS) is left to the started service's sweeps. The one stand-in is the mobile-money rail: the demo's simulated
 * M-Pesa answers a prompt after a few seconds and calls back over HTTP, which a start cannot wait for, so the week's
 * prompts go to PaidAtOnceRail, whose customer pays at once, on the week's clock.
 *
 * The premium-finance loan's story needs two more rails, both the demo's own simulators: the lender
 * (jobs/rails/lender-simulator.ts, paying on the week's clock) and the SMS gateway (jobs/rails/sms-simulator.ts, whose
 * book is the demo's simulated handsets: the client reads the signing code there, as demos and tests do). What the
 * services queue for them (the decision, the disbursement, the code's SMS) waits in WeekJobs until the week runs it.
 */

/**
 * A rail whose every prompt is paid the moment it is sent (the simulator's instant mode, for the seed only): the
 * status query answers success with the receipt number, the amount asked and the transaction time on the service's
 * clock (the seed's day), which is what the settling path reads. Nothing here is kept beyond the seed.
 */
export class PaidAtOnceRail implements MobileMoneyRail {
  readonly #prompts = new Map<string, { amount: number; phone: string; receiptNo: string; at: string }>();

  async stkPush(req: DarajaStkPushRequest) {
    const checkoutRequestId = `ws_CO_${darajaTimestamp()}${randomBytes(6).toString('hex')}`;
    this.#prompts.set(checkoutRequestId, {
      amount: req.Amount,
      phone: req.PhoneNumber,
      receiptNo: `T${randomCode(9)}`,
      at: darajaTimestamp(now()),
    });
    return {
      MerchantRequestID: `${randomBytes(3).toString('hex')}-${randomBytes(4).toString('hex')}-1`,
      CheckoutRequestID: checkoutRequestId,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    };
  }

  async query(checkoutRequestId: string): Promise<DarajaQueryResponse> {
    const p = this.#prompts.get(checkoutRequestId);
    if (!p) throw new Error(`demo week rail: no prompt ${checkoutRequestId}`);
    return {
      MerchantRequestID: '',
      CheckoutRequestID: checkoutRequestId,
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successsfully',
      ResultCode: 0,
      ResultDesc: RESULT_CODES[0],
      CallbackMetadata: {
        Item: [
          { Name: 'Amount', Value: p.amount },
          { Name: 'MpesaReceiptNumber', Value: p.receiptNo },
          { Name: 'TransactionDate', Value: Number(p.at) },
          { Name: 'PhoneNumber', Value: Number(p.phone) },
        ],
      },
    };
  }

  async pullTransactions(): Promise<never> {
    throw new Error('demo week rail: no statement');
  }
}

/** The services over `db`; `close()` stops what they started (the database stays the caller's). */
export async function weekServices(
  db: Database,
  config: Config,
  log: Logger,
): Promise<{ app: AppServices; jobs: WeekJobs; close(): Promise<void> }> {
  const app = offlineServices(db, config, log, {
    // A LISTEN needs a session: the primary directly when DATABASE_URL goes through a pooler.
    events: new EventBus(config.databaseDirectUrl ?? config.databaseUrl ?? '', (err) =>
      log.error({ err }, 'event bus error'),
    ),
    // The seed binds a dozen policies in a row: the per-client bind limit is for callers, not for the seed.
    limits: {
      bind: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0, policy: '' }),
    },
    mobileMoney: { rail: new PaidAtOnceRail(), origin: config.publicBaseUrl ?? 'http://127.0.0.1' },
  });
  const jobs = new WeekJobs();
  // The workers' own calls (jobs/finance.worker.ts, jobs/sms.worker.ts), run when the week says.
  app.lender = {
    rail: new LenderSimulator(now),
    queueDecision: async (id) => jobs.add('decision', () => decideApplication(app, id)),
    queueDisbursement: async (id) => jobs.add('disbursement', () => fundLoan(app, id)),
  };
  app.sms = {
    gateway: new SmsSimulator(app, null),
    queueSend: async (id) => jobs.add('sms', async () => (await smsService.deliver(app, id)).outcome),
    reportUrl: (tenantId) => smsReportUrl(app, tenantId),
  };
  return { app, jobs, close: () => app.rateLimits.close() };
}

type JobKind = 'decision' | 'disbursement' | 'sms';

/**
 * Jobs the services queued during the week (pg-boss is not running yet), kept until the week's story reaches them:
 * the lender decides an hour after the application, and the signing code reaches the handset before the client
 * reads it out. A job the week never runs is left to the started service's sweeps, as any job lost before its queue.
 */
export class WeekJobs {
  readonly #queued: { kind: JobKind; run: () => Promise<string> }[] = [];

  add(kind: JobKind, run: () => Promise<string>): void {
    this.#queued.push({ kind, run });
  }

  /** Runs the queued jobs of `kind`, oldest first; their outcomes (the workers log them: 'approved', 'funded', 'sent'). */
  async run(kind: JobKind): Promise<string[]> {
    const due = this.#queued.filter((j) => j.kind === kind);
    for (const j of due) this.#queued.splice(this.#queued.indexOf(j), 1);
    const outcomes: string[] = [];
    for (const j of due) outcomes.push(await j.run());
    return outcomes;
  }
}

/** An STK push as the API makes it, paid at once by PaidAtOnceRail and settled by the payments path. */
export async function payAtOnce(ctx: Context, push: StkPushInput, what: string): Promise<void> {
  const { request } = await paymentService.initiate(ctx, push);
  const outcome = await confirmPrompt(ctx.app, ctx.principal!.tenant.id, request.id, 'callback');
  if (outcome !== 'settled') throw new Error(`demo week: the payment for ${what} was ${outcome}`);
}

/** One acting user of the week: through an API client's key (its actor), or through agent headers on `staff`. */
export interface WeekPrincipal {
  tenant: TenantInfo;
  apiClient: { id: number; clientId: string; name: string; rateLimitPerMinute: number | null; scopes: string[] };
  user: { id: number; name: string; role: UserRole };
  userCode: string | null;
  userBranchId: number | null;
  source: 'agent_headers' | 'key_actor';
}

export function weekContext(app: AppServices, w: WeekPrincipal): Promise<Context> {
  const principal: Principal = {
    tenant: w.tenant,
    apiClient: {
      id: w.apiClient.id,
      clientId: w.apiClient.clientId,
      name: w.apiClient.name,
      rateLimitPerMinute: w.apiClient.rateLimitPerMinute,
    },
    token: { id: 0, expiresAt: new Date(8.64e15) },
    scopes: new Set(w.apiClient.scopes.filter(isScope)),
    actor: {
      userId: w.user.id,
      name: w.user.name,
      role: w.user.role,
      code: w.userCode,
      branchId: w.userBranchId,
      ownRecordsOnly: w.user.role === 'agent',
      source: w.source,
    },
  };
  return createContext({ app, transport: 'job', principal });
}
