import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { isUuid } from '../../lib/identifiers.ts';
import { notFound, ValidationError } from '../../lib/problem.ts';
import type { Principal } from '../../auth/principal.ts';
import { eventsVisibleTo, eventVisibleTo } from '../access/event.visibility.ts';
import { dataSchemaOf, EVENT_NAMES, PING_EVENT } from './catalogue.ts';

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

/** Filters of the event history. */
export interface EventFilter {
  /** Only events recorded at or after this moment. */
  since?: Date | null;
  /** Only events recorded before this moment. */
  until?: Date | null;
  /** Only these event names. */
  types?: readonly string[] | null;
}

/** The Prisma page Pothos asks a connection for: `take` one more than the page (negative for `last`), a cursor. */
type EventPage = Omit<Prisma.EventFindManyArgs, 'where' | 'orderBy'>;

/** Newest first; events of one transaction share their time, so the id breaks ties (stably, for the cursor). */
const NEWEST_FIRST: Prisma.EventOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];

/** Rows of the history already checked against the caller's reach (the Event type's rule need not ask again). */
const checkedFor = new WeakMap<object, Principal>();
export const reachChecked = (p: Principal, row: object): boolean => checkedFor.get(row) === p;

function historyWhere(f: EventFilter): Prisma.EventWhereInput {
  const errors: { field: string; code?: 'not_one_of'; message: string }[] = [];
  const known = new Set<string>([...EVENT_NAMES, PING_EVENT]);
  const unknown = (f.types ?? []).filter((n) => !known.has(n));
  if (unknown.length)
    errors.push({
      field: 'types',
      code: 'not_one_of',
      message: `unknown event ${unknown.map((n) => JSON.stringify(n.slice(0, 60))).join(', ')}: one of eventCatalogue's names, or ping`,
    });
  if (f.since && f.until && f.until <= f.since) errors.push({ field: 'until', message: 'must be later than since' });
  if (errors.length) throw new ValidationError(errors);
  return {
    AND: [
      f.since ? { createdAt: { gte: f.since } } : {},
      f.until ? { createdAt: { lt: f.until } } : {},
      f.types?.length ? { name: { in: [...f.types] } } : {},
    ],
  };
}

type CursorArgs = { after?: string | null; before?: string | null };

const cursorRefused = (args: CursorArgs) =>
  new ValidationError([
    {
      field: args.before ? 'before' : 'after',
      message: 'not a cursor of this list; use links.next or pageInfo.endCursor as given',
    },
  ]);

/** A connection's cursor must name an event (a UUID): anything else would reach PostgreSQL's uuid cast. */
function checkCursor(page: EventPage, args: CursorArgs): string | undefined {
  const id = (page.cursor as { id?: unknown } | undefined)?.id;
  if (id === undefined) return undefined;
  if (!isUuid(id)) throw cursorRefused(args);
  return id;
}

/**
 * A cursor this list could have issued names an event of the organisation the caller may see: an unknown id, another
 * organisation's, or one out of an agent's reach is refused like a malformed one, never read as "the list ends here"
 * (and never lets an agent learn which hidden events exist from what follows them).
 */
async function requireCursorEvent(tx: Tx, p: Principal, id: string, args: CursorArgs): Promise<void> {
  const row = await tx.event.findUnique({ where: { id }, select: { data: true } });
  if (row && (!p.actor?.ownRecordsOnly || (await eventVisibleTo(tx, p, row.data as Record<string, unknown>)))) return;
  throw cursorRefused(args);
}

/** The most rows one scan of the history reads for an agent before checking their reach. */
const SCAN = 200;

/** Reads of the outbox for subscribers and the history. `query` is the caller's selection. */
export const eventService = {
  /**
   * The organisation's events the caller may see, newest first, paged as Pothos asks (`take`/`cursor`/`skip`).
   * Staff: one query. An agent's reach is decided per event (what its data names), so the history is read in
   * batches from the cursor and filtered until the page is full or the history ends: a page is never short while
   * more visible events follow, and its last row (the next cursor) is always one the agent may see.
   */
  async list(ctx: Context, f: EventFilter, page: EventPage, args: CursorArgs = {}) {
    const cursorId = checkCursor(page, args);
    const where = historyWhere(f);
    const p = ctx.principal!;
    if (!p.actor?.ownRecordsOnly)
      return ctx.tx(
        async (tx) => {
          if (cursorId) await requireCursorEvent(tx, p, cursorId, args);
          return tx.event.findMany({ ...page, where, orderBy: NEWEST_FIRST });
        },
        { readOnly: true },
      );
    const take = page.take ?? 26;
    const want = Math.abs(take);
    const backwards = take < 0;
    const batch = Math.min(SCAN, Math.max(want * 2, 50));
    return ctx.tx(
      async (tx) => {
        if (cursorId) await requireCursorEvent(tx, p, cursorId, args);
        let out: Awaited<ReturnType<typeof tx.event.findMany>> = [];
        let cursor = page.cursor;
        let skip = page.skip;
        for (;;) {
          const rows = await tx.event.findMany({
            ...page,
            where,
            orderBy: NEWEST_FIRST,
            take: backwards ? -batch : batch,
            cursor,
            skip,
          });
          const ok = await eventsVisibleTo(
            tx,
            p,
            rows.map((r) => r.data as Record<string, unknown>),
          );
          const visible = rows.filter((_, i) => ok[i]);
          for (const r of visible) checkedFor.set(r, p);
          out = backwards ? [...visible, ...out] : [...out, ...visible];
          if (out.length >= want || rows.length < batch) break;
          cursor = { id: (backwards ? rows[0] : rows.at(-1)!).id };
          skip = 1;
        }
        return backwards ? out.slice(-want) : out.slice(0, want);
      },
      { readOnly: true },
    );
  },
  /** One event of the organisation by id, or 404 when missing, another organisation's, or out of the caller's reach. */
  async one(ctx: Context, id: string, query: Omit<Prisma.EventFindUniqueArgs, 'where'> = {}) {
    if (!isUuid(id)) throw notFound('Event');
    const p = ctx.principal!;
    const row = await ctx.tx(
      async (tx) => {
        const r = await tx.event.findUnique({ ...query, where: { id } });
        if (!r || !(await eventVisibleTo(tx, p, r.data as Record<string, unknown>))) return null;
        checkedFor.set(r, p);
        return r;
      },
      { readOnly: true },
    );
    if (!row) throw notFound('Event');
    return row;
  },
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
