import { randomUUID } from 'node:crypto';
import type { AppServices } from '../../context.ts';
import { PING_EVENT } from '../events/catalogue.ts';

/**
 * Outbox → deliveries. Platform operations (system transactions): they run in the job runner for any tenant.
 * Each step is idempotent, so the NOTIFY-driven job, the sweep and a redelivered job may all run it safely.
 */

/** Creates one delivery per enabled endpoint subscribed to the event (its name or `*`); returns their ids. */
export async function dispatchEvent(app: AppServices, eventId: string): Promise<string[]> {
  return app.db.system(async (tx) => {
    // The row lock makes concurrent dispatches of one event queue up; the second sees dispatched_at and stops.
    const locked = await tx.$queryRaw<
      { id: string }[]
    >`SELECT id FROM events WHERE id = ${eventId}::uuid AND dispatched_at IS NULL FOR UPDATE`;
    if (!locked.length) return [];
    const event = await tx.event.findUniqueOrThrow({ where: { id: eventId } });
    // ping goes only where the send-test action sends it, never to `*` subscribers.
    const endpoints =
      event.name === PING_EVENT
        ? []
        : await tx.webhookEndpoint.findMany({
            where: {
              tenantId: event.tenantId,
              enabled: true,
              OR: [{ events: { has: event.name } }, { events: { has: '*' } }],
            },
            select: { id: true },
          });
    const now = new Date();
    const rows = endpoints.map((e) => ({
      id: randomUUID(),
      tenantId: event.tenantId,
      eventId,
      endpointId: e.id,
      nextAttemptAt: now,
    }));
    if (rows.length) await tx.webhookDelivery.createMany({ data: rows, skipDuplicates: true });
    await tx.event.update({ where: { id: eventId }, data: { dispatchedAt: now } });
    return rows.map((r) => r.id);
  });
}

/** How long a delivery job may be silent before the sweep assumes its job was lost (crash after commit). */
const STRANDED_AFTER_MS = 2 * 60_000;

/**
 * Events never dispatched and due deliveries without a live job: what a crash between commit and send left behind,
 * or what was written while no runner listened (the demo seed and the admin CLI write before a service starts).
 * `listeningSince` (when this runner began to hear announcements) sorts the two: `unheard` lists the events and
 * deliveries from before it, which no announcement could have reached (expected after any start); the rest were
 * announced while this runner listened and still got lost (worth a warning).
 */
export async function findStranded(
  app: AppServices,
  now = new Date(),
  listeningSince?: Date,
): Promise<{ events: string[]; deliveries: string[]; unheard: string[] }> {
  const before = new Date(now.getTime() - STRANDED_AFTER_MS);
  return app.db.system(async (tx) => {
    const events = await tx.event.findMany({
      where: { dispatchedAt: null, createdAt: { lt: new Date(now.getTime() - 30_000) } },
      select: { id: true, createdAt: true },
      orderBy: { createdAt: 'asc' },
      take: 500,
    });
    const deliveries = await tx.webhookDelivery.findMany({
      where: {
        status: { in: ['pending', 'retry_scheduled'] },
        nextAttemptAt: { lt: before },
        OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
      },
      select: { id: true, nextAttemptAt: true },
      orderBy: { nextAttemptAt: 'asc' },
      take: 500,
    });
    const unheard = listeningSince
      ? [
          ...events.filter((e) => e.createdAt < listeningSince).map((e) => e.id),
          ...deliveries.filter((d) => d.nextAttemptAt !== null && d.nextAttemptAt < listeningSince).map((d) => d.id),
        ]
      : [];
    return { events: events.map((e) => e.id), deliveries: deliveries.map((d) => d.id), unheard };
  });
}
