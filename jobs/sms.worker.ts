import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { clientAreaService } from '../src/modules/client-area/client-area.service.ts';
import { currentCallbackToken } from '../src/modules/payments/callback-token.ts';
import { SMS_REPORT_PATH, smsService } from '../src/modules/sms/sms.service.ts';
import { deliverSimReport, SmsSimulator } from './rails/sms-simulator.ts';
import { QUEUES } from './queues.ts';

/**
 * The SMS gateway (the simulator until a real adapter replaces it), the send queue and the report URL, on the app's
 * SMS port. Also called by a process that only enqueues (src/process/enqueue.ts): its sends are queued at once.
 * Also the client area's code queue (app.clientArea): its job sends the code through the SMS service.
 * The report URL carries the organisation's M-Pesa callback token (the same gate as the rails' callbacks:
 * src/http/mpesa-callback.ts railCallback), which lives in the payments module: jobs/ may reach it, sms/ may not.
 */
export function registerSmsGateway(boss: PgBoss, app: AppServices): void {
  app.sms = {
    gateway: new SmsSimulator(app, boss),
    async queueSend(recipientId, startAfter) {
      const q = QUEUES.smsSend;
      await boss.send(q.name, q.payload.parse({ recipientId }), startAfter ? { startAfter } : {});
    },
    reportUrl: (tenantId) => smsReportUrl(app, tenantId),
  };
  app.clientArea = {
    async queueCode(tenantId, otpId) {
      const q = QUEUES.clientAreaOtp;
      await boss.send(q.name, q.payload.parse({ tenantId, otpId }));
    },
  };
}

/** The delivery-report URL of organisation `tenantId`: the service's origin and the organisation's callback token. */
export async function smsReportUrl(app: AppServices, tenantId: number): Promise<string> {
  const origin = (app.config.publicBaseUrl ?? app.mobileMoney.origin ?? '').replace(/\/$/, '');
  const token = await app.db.tenant(tenantId, async (tx) => {
    const { paybill } = await tx.tenant.findUniqueOrThrow({ where: { id: tenantId }, select: { paybill: true } });
    return currentCallbackToken(app, tx, tenantId, paybill);
  });
  return `${origin}${SMS_REPORT_PATH}/${token}`;
}

/** Recipients to the gateway (retries queued at their due time), the simulator's reports, and the minute sweep. */
export async function registerSmsWorkers(boss: PgBoss, app: AppServices): Promise<void> {
  const sendQ = QUEUES.smsSend;
  const simQ = QUEUES.smsSimDeliver;
  const sweepQ = QUEUES.sweepSms;
  registerSmsGateway(boss, app);

  await boss.work<{ recipientId: number }>(sendQ.name, { pollingIntervalSeconds: 0.5, batchSize: 10 }, async (jobs) => {
    await Promise.all(
      jobs.map(async (job) => {
        const { recipientId } = sendQ.payload.parse(job.data);
        const r = await smsService.deliver(app, recipientId);
        // Queued inside a transaction not committed yet (a service message): pg-boss retries it shortly.
        if (r.outcome === 'missing') throw new Error(`SMS recipient ${recipientId} not visible yet`);
        if (r.outcome === 'retry' && r.retryAt) await app.sms!.queueSend(recipientId, r.retryAt);
        app.log.info({ job: sendQ.name, sms_recipient_id: recipientId, outcome: r.outcome }, 'SMS handed over');
      }),
    );
  });

  const otpQ = QUEUES.clientAreaOtp;
  await boss.work<{ tenantId: number; otpId: number }>(
    otpQ.name,
    { pollingIntervalSeconds: 0.5, batchSize: 10 },
    async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const { tenantId, otpId } = otpQ.payload.parse(job.data);
          const outcome = await clientAreaService.sendCode(app, tenantId, otpId);
          app.log.info({ job: otpQ.name, otp_id: otpId, outcome }, 'one-time code handled');
        }),
      );
    },
  );

  await boss.work<{ gatewayMessageId: string }>(
    simQ.name,
    { pollingIntervalSeconds: 0.5, batchSize: 10 },
    async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const { gatewayMessageId } = simQ.payload.parse(job.data);
          const status = await deliverSimReport(app, gatewayMessageId);
          app.log.info({ job: simQ.name, report_status: status }, 'simulated SMS delivery report sent');
        }),
      );
    },
  );

  await boss.work(sweepQ.name, { pollingIntervalSeconds: 2 }, async () => {
    const r = await smsService.sweep(app);
    if (r.sent || r.confirmed) app.log.info({ job: sweepQ.name, ...r }, 'SMS swept');
  });
}
