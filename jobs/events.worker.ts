import pg from 'pg';
import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';
import { OUTBOX_CHANNEL, type OutboxSignal } from '../src/modules/events/event.service.ts';
import { attemptDelivery } from '../src/modules/webhooks/deliver.service.ts';
import { smsService } from '../src/modules/sms/sms.service.ts';
import { dispatchEvent as dispatchWebhooks, findStranded } from '../src/modules/webhooks/dispatch.service.ts';
import { QUEUES } from './queues.ts';

/**
 * Events and webhooks. Transactions announce committed outbox rows with NOTIFY (no business transaction touches the
 * pg-boss tables, which the application role cannot reach). On an announcement this runner dispatches the event at
 * once and makes each delivery's first attempt in this process, at most FIRST_ATTEMPTS_IN_FLIGHT dispatches and
 * attempts at a time: no queue polling stands between a payment and its webhook. The queues stay the durable path:
 * a dispatch or attempt that fails here, the overflow beyond the bound, and every retry (with its startAfter) go
 * through `events.dispatch` / `webhooks.deliver`; the delivery's lease makes a first attempt here and a queued one
 * for the same delivery safe (the second skips). A runner that was down misses announcements: the minute sweep
 * finds what they would have said.
 */
const FIRST_ATTEMPTS_IN_FLIGHT = 32;

/**
 * Dispatching an event also sends the client's SMS notice when it is one (payment.received, policy.activated,
 * policy.renewal_due: src/modules/sms/notices.ts), before the event is marked dispatched: a crash in between leaves
 * the event to the sweep, and the notice is one per event id. A notice that fails is logged and never holds up the
 * webhooks.
 */
async function dispatchEvent(app: AppServices, eventId: string): Promise<string[]> {
  await smsService
    .noticeForEvent(app, eventId)
    .catch((err) => app.log.warn({ err, event_id: eventId }, 'SMS notice not recorded'));
  return dispatchWebhooks(app, eventId);
}

/**
 * Registers the workers and starts the outbox listener. The answer stops it for a shutdown: no announcement is taken
 * after, and the work already taken (dispatches and first attempts) is waited for, while pg-boss and the pool still
 * run; anything it could not finish is the sweep's at the next start.
 */
export async function registerEventWorkers(
  boss: PgBoss,
  app: AppServices,
  /** Where the outbox's LISTEN connects: a session (the primary directly behind a pooler; jobs/index.ts). */
  listenUrl: string,
): Promise<{ quiesce(): Promise<void> }> {
  const dispatchQ = QUEUES.dispatchEvent;
  const deliverQ = QUEUES.deliverWebhook;
  const sweepQ = QUEUES.sweepOutbox;

  const enqueueDelivery = (deliveryId: string, startAfter?: Date) =>
    boss.send(deliverQ.name, { deliveryId }, startAfter ? { startAfter } : {});

  /** One attempt, wherever it runs; a retry the schedule asks for is queued with its startAfter. */
  const attempt = async (deliveryId: string, path: 'queue' | 'first-attempt') => {
    const r = await attemptDelivery(app, deliveryId);
    if (r.outcome === 'retry_scheduled' && r.nextAttemptAt) await enqueueDelivery(deliveryId, r.nextAttemptAt);
    if (r.outcome !== 'skipped')
      app.log.info({ job: deliverQ.name, delivery_id: deliveryId, outcome: r.outcome, path }, 'webhook attempt');
  };

  await boss.work<{ eventId: string }>(dispatchQ.name, { pollingIntervalSeconds: 0.5, batchSize: 20 }, async (jobs) => {
    for (const job of jobs) {
      const { eventId } = dispatchQ.payload.parse(job.data);
      for (const id of await dispatchEvent(app, eventId)) await enqueueDelivery(id);
    }
  });

  // Attempts wait on receivers (up to the timeout each): several workers, each taking a batch run concurrently.
  for (let i = 0; i < 2; i++) {
    await boss.work<{ deliveryId: string }>(
      deliverQ.name,
      { pollingIntervalSeconds: 0.5, batchSize: 10 },
      async (jobs) => {
        await Promise.all(jobs.map((job) => attempt(deliverQ.payload.parse(job.data).deliveryId, 'queue')));
      },
    );
  }

  /** Set once the outbox listener hears announcements: work older than this was written while nobody listened. */
  const listening: { since?: Date } = {};
  await boss.work(sweepQ.name, { pollingIntervalSeconds: 5 }, async () => {
    const { unheard, ...stranded } = await findStranded(app, new Date(), listening.since ?? new Date());
    for (const eventId of stranded.events)
      for (const id of await dispatchEvent(app, eventId)) await enqueueDelivery(id);
    for (const id of stranded.deliveries) await enqueueDelivery(id);
    const beforeListening = new Set(unheard);
    const lost = {
      events: stranded.events.filter((id) => !beforeListening.has(id)),
      deliveries: stranded.deliveries.filter((id) => !beforeListening.has(id)),
    };
    // Written before this runner listened (a seed, the admin CLI, a stop): the sweep is the path for it.
    if (unheard.length)
      app.log.info(
        { job: sweepQ.name, unheard: unheard.length },
        'outbox sweep sent work written while no runner listened',
      );
    // Announced while listening and still not sent: a crash or a lost connection, worth a look.
    if (lost.events.length || lost.deliveries.length)
      app.log.warn({ job: sweepQ.name, ...lost }, 'outbox sweep re-sent stranded work');
  });

  let inFlight = 0;
  /** The first attempt, here and now when the bound allows; otherwise (or if it throws) through the queue. */
  const attemptNow = async (deliveryId: string) => {
    if (inFlight >= FIRST_ATTEMPTS_IN_FLIGHT) return void (await enqueueDelivery(deliveryId));
    inFlight += 1;
    try {
      await attempt(deliveryId, 'first-attempt');
    } catch (err) {
      app.log.warn({ err, delivery_id: deliveryId }, 'first attempt failed here; queued');
      await enqueueDelivery(deliveryId);
    } finally {
      inFlight -= 1;
    }
  };

  const onSignal = async (signal: OutboxSignal): Promise<void> => {
    if (signal.kind === 'delivery') return attemptNow(signal.id);
    // A burst beyond the bound is dispatched by the queue's workers instead, so it cannot take every connection.
    if (inFlight >= FIRST_ATTEMPTS_IN_FLIGHT) return void (await boss.send(dispatchQ.name, { eventId: signal.id }));
    let ids: string[];
    inFlight += 1;
    try {
      ids = await dispatchEvent(app, signal.id);
    } catch (err) {
      app.log.warn({ err, event_id: signal.id }, 'dispatch failed here; queued');
      await boss.send(dispatchQ.name, { eventId: signal.id });
      return;
    } finally {
      inFlight -= 1;
    }
    await Promise.all(ids.map(attemptNow));
  };
  const taken = new Set<Promise<void>>();
  const listener = await listenOutbox(listenUrl, app, (signal) => {
    const task = onSignal(signal);
    taken.add(task);
    void task.finally(() => taken.delete(task)).catch(() => undefined);
    return task;
  });
  listening.since = new Date();
  boss.on('stopped', () => void listener.close());
  return {
    async quiesce() {
      await listener.close();
      await Promise.allSettled([...taken]);
    },
  };
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
      onSignal(signal).catch((err) =>
        app.log.error({ err, signal }, 'outbox signal not enqueued (the sweep will retry)'),
      );
    });
    c.on('error', (err) => {
      if (closed) return;
      app.log.error({ err }, 'outbox listener lost its connection');
      setTimeout(
        () => void connect().catch((e) => app.log.error({ err: e }, 'outbox listener reconnect failed')),
        1000,
      ).unref();
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
