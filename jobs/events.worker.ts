import pg from 'pg';
import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { OUTBOX_CHANNEL, type OutboxSignal } from '../src/modules/events/event.service.ts';
import { attemptDelivery } from '../src/modules/webhooks/deliver.service.ts';
import { dispatchEvent, findStranded } from '../src/modules/webhooks/dispatch.service.ts';
import { QUEUES } from './queues.ts';

/**
 * Events and webhooks. Transactions announce committed outbox rows with NOTIFY (no business transaction touches the
 * pg-boss tables, which the application role cannot reach); this runner turns each announcement into a job. A runner
 * that was down misses announcements: the minute sweep finds what they would have said.
 */
export async function registerEventWorkers(boss: PgBoss, app: AppServices, databaseUrl: string): Promise<void> {
  const dispatchQ = QUEUES.dispatchEvent;
  const deliverQ = QUEUES.deliverWebhook;
  const sweepQ = QUEUES.sweepOutbox;

  const enqueueDelivery = (deliveryId: string, startAfter?: Date) =>
    boss.send(deliverQ.name, { deliveryId }, startAfter ? { startAfter } : {});

  await boss.work<{ eventId: string }>(dispatchQ.name, { pollingIntervalSeconds: 0.5, batchSize: 20 }, async (jobs) => {
    for (const job of jobs) {
      const { eventId } = dispatchQ.payload.parse(job.data);
      for (const id of await dispatchEvent(app, eventId)) await enqueueDelivery(id);
    }
  });

  // Attempts wait on receivers (up to the timeout each): several workers, each taking a batch run concurrently.
  for (let i = 0; i < 2; i++) {
    await boss.work<{ deliveryId: string }>(deliverQ.name, { pollingIntervalSeconds: 0.5, batchSize: 10 }, async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const { deliveryId } = deliverQ.payload.parse(job.data);
          const r = await attemptDelivery(app, deliveryId);
          if (r.outcome === 'retry_scheduled' && r.nextAttemptAt) await enqueueDelivery(deliveryId, r.nextAttemptAt);
          if (r.outcome !== 'skipped') app.log.info({ job: deliverQ.name, delivery_id: deliveryId, outcome: r.outcome }, 'webhook attempt');
        }),
      );
    });
  }

  await boss.work(sweepQ.name, { pollingIntervalSeconds: 5 }, async () => {
    const stranded = await findStranded(app);
    for (const eventId of stranded.events) for (const id of await dispatchEvent(app, eventId)) await enqueueDelivery(id);
    for (const id of stranded.deliveries) await enqueueDelivery(id);
    if (stranded.events.length || stranded.deliveries.length) app.log.warn({ job: sweepQ.name, ...stranded }, 'outbox sweep re-sent stranded work');
  });

  const listener = await listenOutbox(databaseUrl, app, async (signal) => {
    if (signal.kind === 'event') await boss.send(dispatchQ.name, { eventId: signal.id });
    else await enqueueDelivery(signal.id);
  });
  boss.on('stopped', () => void listener.close());
}

async function listenOutbox(databaseUrl: string, app: AppServices, onSignal: (s: OutboxSignal) => Promise<void>) {
  let closed = false;
  let client: pg.Client | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl });
    c.on('notification', (msg) => {
      if (msg.channel !== OUTBOX_CHANNEL || !msg.payload) return;
      let signal: OutboxSignal;
      try {
        signal = JSON.parse(msg.payload) as OutboxSignal;
      } catch (err) {
        app.log.error({ err }, 'bad outbox signal');
        return;
      }
      onSignal(signal).catch((err) => app.log.error({ err, signal }, 'outbox signal not enqueued (the sweep will retry)'));
    });
    c.on('error', (err) => {
      if (closed) return;
      app.log.error({ err }, 'outbox listener lost its connection');
      setTimeout(() => void connect().catch((e) => app.log.error({ err: e }, 'outbox listener reconnect failed')), 1000).unref();
    });
    await c.connect();
    await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
    client = c;
  };
  await connect();
  return {
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
