import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { eventVisibleTo } from '../access/event.visibility.ts';
import { dataSchemaOf } from './catalogue.ts';

/** NOTIFY channel heard by the job runner (jobs/outbox-listener.ts): "this event or delivery is ready to go". */
export const OUTBOX_CHANNEL = 'bima_outbox';
/** Event-bus topic of the generic `events` subscription. */
export const EVENTS_TOPIC = 'events';

export type OutboxSignal = { kind: 'event'; id: string } | { kind: 'delivery'; id: string };

/**
 * pg_notify is transactional: the job runner hears of an event or delivery only once its row has committed, and
 * never of a rollback. A signal lost while no runner listens is recovered by the sweep (jobs/events.worker.ts).
 */
export async function signalOutbox(tx: Tx, signal: OutboxSignal): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${OUTBOX_CHANNEL}, ${JSON.stringify(signal)})`;
}

/**
 * Records an event in the caller's transaction, beside the state change it announces (the transactional outbox),
 * so the event exists exactly when the change does. The event bus hears it at commit (subscriptions, any process);
 * webhook deliveries are created by the dispatcher after commit. `data` is checked against the catalogue schema.
 */
export async function emitEvent(
  from: Context | AppServices,
  tx: Tx,
  tenantId: number,
  name: string,
  data: Record<string, unknown>,
  opts: { dispatch?: boolean } = {},
): Promise<{ id: string; createdAt: Date }> {
  const app = 'app' in from ? from.app : from;
  const schema = dataSchemaOf(name);
  if (!schema) throw new Error(`emitEvent: unknown event ${name}`);
  const checked = schema.parse(data) as Record<string, unknown>;
  const id = randomUUID();
  const row = await tx.event.create({
    // A test event (ping) targets one endpoint and is never fanned out: it is born dispatched.
    data: { id, tenantId, name, data: checked as never, dispatchedAt: opts.dispatch === false ? new Date() : null },
  });
  await app.events.publish(tx, EVENTS_TOPIC, tenantId, { id, name });
  if (opts.dispatch !== false) await signalOutbox(tx, { kind: 'event', id });
  return { id, createdAt: row.createdAt };
}

/** Reads of the outbox for subscribers. `query` is the caller's selection. */
export const eventService = {
  byId(ctx: Context, id: string, query: Omit<Prisma.EventFindUniqueArgs, 'where'>) {
    return ctx.tx((tx) => tx.event.findUniqueOrThrow({ ...query, where: { id } }));
  },
  /** Whether the subscriber may hear of event `id` (an agent only of their own records: eventVisibleTo). */
  async visibleToSubscriber(ctx: Context, id: string): Promise<boolean> {
    return !!(await eventService.visibleEvent(ctx, id));
  },
  /** Event `id` if the subscriber may hear of it, else null. */
  visibleEvent(ctx: Context, id: string) {
    return ctx.tx(async (tx) => {
      const row = await tx.event.findUnique({
        where: { id },
        select: { id: true, name: true, data: true, createdAt: true },
      });
      if (!row) return null;
      const data = row.data as Record<string, unknown>;
      if (!(await eventVisibleTo(tx, ctx.principal!, data))) return null;
      return { id: row.id, name: row.name, data, createdAt: row.createdAt };
    });
  },
};
