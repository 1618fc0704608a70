import { keepEvents } from '../../db/event-bus.ts';
import { builder } from '../../graphql/builder.ts';
import { eventVisibleTo } from '../access/event.visibility.ts';
import { type CatalogueEntry, catalogueEntries } from './catalogue.ts';
import { EVENTS_TOPIC, eventService, reachChecked } from './event.service.ts';
import { access, KEEPS_REACH } from '../../graphql/access.ts';

/** Events: keys that read or manage webhooks; agents hear only of their own records (eventVisibleTo). */
builder.prismaObject('Event', {
  ...access<{ data: unknown }>({
    scopes: ['read', 'webhooks'],
    reach: {
      check: (tx, p, e) => eventVisibleTo(tx, p, e.data as Record<string, unknown>),
      checked: (p, e) => reachChecked(p, e as object),
    },
  }),
  name: 'ServiceEvent',
  description: 'An event of the organisation, as delivered to webhooks (envelope `id`, `event`, `created_at`, `data`).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event UUID: the webhook Service-Delivery id' }),
    name: t.exposeString('name', {
      description: 'The event name (policy.activated, claim.moved …; the envelope `event`), as in eventCatalogue.',
    }),
    data: t.expose('data', {
      description: "The event's payload (the envelope `data`), shaped as its eventCatalogue schema says.",
      type: 'JSON',
    }),
    createdAt: t.expose('createdAt', {
      description: 'When the event happened (committed); the envelope `created_at`.',
      type: 'DateTime',
    }),
  }),
});

const EventCatalogueEntry = builder.objectRef<CatalogueEntry>('EventCatalogueEntry').implement({
  description: 'One event a webhook endpoint or the events subscription can ask for, with the shape of its data.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The event name to subscribe to (policy.activated …).' }),
    description: t.exposeString('description', { description: 'When the event is raised, in words.' }),
    schema: t.expose('schema', { type: 'JSON', description: "JSON Schema (draft 2020-12) of the event's `data`" }),
  }),
});

builder.queryField('eventCatalogue', (t) =>
  t.field({
    type: [EventCatalogueEntry],
    authScopes: { read: true },
    description: 'Every event a webhook endpoint can subscribe to (or `*` for all, including later additions).',
    resolve: () => catalogueEntries(),
  }),
);

builder.queryFields((t) => ({
  events: t.prismaConnection({
    ...KEEPS_REACH,
    type: 'Event',
    cursor: 'id',
    authScopes: { read: true, webhooks: true },
    description:
      "The organisation's recorded events (the webhook outbox), newest first; events recorded at the same instant " +
      'follow one another by id. Staff see every event; an agent only those about its own records (as the `events` ' +
      'subscription). `after`/`before` take only a cursor this list gave the caller. Scope read or webhooks.',
    args: {
      since: t.arg({ type: 'DateTime', description: 'Only events recorded at or after this moment.' }),
      until: t.arg({ type: 'DateTime', description: 'Only events recorded before this moment (later than since).' }),
      types: t.arg.stringList({
        description: 'Only these event names (as in eventCatalogue, or ping); every name when absent.',
      }),
    },
    resolve: (query, _root, args, ctx) =>
      eventService.list(ctx, { since: args.since, until: args.until, types: args.types }, query, args),
  }),
  event: t.prismaField({
    ...KEEPS_REACH,
    type: 'Event',
    authScopes: { read: true, webhooks: true },
    description:
      'One event by id (the webhook Service-Delivery id); not_found when missing, of another organisation, or about ' +
      "records out of the caller's reach.",
    args: { id: t.arg.id({ required: true, description: 'The event UUID.' }) },
    resolve: (query, _root, args, ctx) => eventService.one(ctx, String(args.id), query),
  }),
}));

builder.subscriptionField('events', (t) =>
  t.prismaField({
    type: 'Event',
    authScopes: { read: true },
    description:
      'Live events of the organisation as they commit, optionally only the given names. Agents hear only of their own records.',
    args: {
      names: t.arg.stringList({
        description:
          'Only these event names (policy.activated, claim.moved …); every event the caller may see when absent.',
        required: false,
      }),
    },
    subscribe: (_root, args, ctx) => {
      const names = args.names?.length ? new Set(args.names) : null;
      const p = ctx.principal!;
      const source = ctx.app.events.subscribe<{ id: string; name: string }>(EVENTS_TOPIC, p.tenant.id);
      return keepEvents(source, async (m) =>
        (!names || names.has(m.name)) && (await eventService.visibleToSubscriber(ctx, m.id)) ? m : undefined,
      ) as never;
    },
    resolve: (query, payload, _args, ctx) => eventService.byId(ctx, (payload as { id: string }).id, query),
  }),
);
