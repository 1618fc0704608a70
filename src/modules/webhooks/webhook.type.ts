import { access } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';

/** Webhook endpoints, deliveries and attempts show every event of the organisation: scope webhooks, never an agent. */
const webhookAccess = access({ scopes: ['webhooks'], staffOnly: true });
import { webhookService } from './webhook.service.ts';

builder.prismaObject('WebhookEndpoint', {
  select: { id: true },
  description: 'A URL of the organisation that receives its events as signed HTTPS POSTs.',
  ...webhookAccess,
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Endpoint id (a UUID).' }),
    url: t.exposeString('url', { description: 'The https:// URL events are POSTed to.' }),
    description: t.exposeString('description', {
      description: 'A note the organisation keeps on the endpoint; null when none.',
      nullable: true,
    }),
    events: t.exposeStringList('events', { description: 'Subscribed event names, or `*` for every event' }),
    enabled: t.exposeBoolean('enabled', {
      description: 'False: no events are sent to it, including attempts already scheduled (a test ping still is).',
    }),
    secretRotatedAt: t.expose('secretRotatedAt', {
      description: 'When the signing secret was last rotated; null when it never was.',
      type: 'DateTime',
      nullable: true,
    }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Until then deliveries also carry a `v1` signature made with the previous secret',
    }),
    createdAt: t.expose('createdAt', { description: 'When the endpoint was created.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When the endpoint was last changed.', type: 'DateTime' }),
    deliveries: t.prismaField({
      type: ['WebhookDelivery'],
      description: 'The delivery log, newest first',
      args: { limit: t.arg.int({ description: '1–100, default 25' }) },
      resolve: (_q, endpoint, args, ctx) => webhookService.deliveries(ctx, endpoint.id, args.limit),
    }),
  }),
});

builder.prismaObject('WebhookDelivery', {
  description: 'One event sent (or to be sent) to one endpoint, with its attempts and retries.',
  ...webhookAccess,
  fields: (t) => ({
    id: t.exposeID('id', { description: "Delivery id (retry with it); the wire's Service-Delivery is `eventId`" }),
    eventId: t.exposeID('eventId', {
      description: 'The event id (UUID): the Service-Delivery header; the same for every endpoint.',
    }),
    event: t.relation('event', { description: 'The event delivered (name, data, created_at).' }),
    endpointId: t.exposeID('endpointId', { description: 'The id of the endpoint it is sent to.' }),
    status: t.exposeString('status', { description: 'pending, retry_scheduled, delivered or failed' }),
    attemptCount: t.exposeInt('attemptCount', {
      description: 'How many attempts have been made, manual retries included.',
    }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      description: 'When the next attempt is due (pending, retry_scheduled); null once delivered or failed.',
      type: 'DateTime',
      nullable: true,
    }),
    deliveredAt: t.expose('deliveredAt', {
      description: 'When an attempt got a 2xx answer; null until then.',
      type: 'DateTime',
      nullable: true,
    }),
    failedAt: t.expose('failedAt', {
      description: 'When it was given up after its last retry (status failed); null otherwise.',
      type: 'DateTime',
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When the delivery was queued.', type: 'DateTime' }),
    attempts: t.relation('attempts', {
      description: 'Its attempts, first first.',
      query: { orderBy: { number: 'asc' } },
    }),
  }),
});

builder.prismaObject('WebhookAttempt', {
  description: 'One HTTP POST of a delivery to its endpoint and what came back.',
  ...webhookAccess,
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'The attempt number within the delivery, from 1.' }),
    statusCode: t.exposeInt('statusCode', {
      description: 'The HTTP status the endpoint answered; null when no answer came (timeout, DNS, TLS, refused).',
      nullable: true,
    }),
    durationMs: t.exposeInt('durationMs', { description: 'How long the attempt took, in milliseconds.' }),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: 'At most 1 kB of the answer' }),
    error: t.exposeString('error', {
      description:
        'Why the attempt failed ("HTTP 500", "DNS lookup failed", "endpoint disabled", a timeout …); null when it got a 2xx.',
      nullable: true,
    }),
    scheduledAt: t.expose('scheduledAt', { description: 'When the attempt was due.', type: 'DateTime' }),
    attemptedAt: t.expose('attemptedAt', { description: 'When it was made.', type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.prismaField({
    type: ['WebhookEndpoint'],
    authScopes: { $all: { webhooks: true, staff: true } },
    description: "The organisation's webhook endpoints (signing secrets are never shown again).",
    resolve: (_q, _r, _a, ctx) => webhookService.list(ctx),
  }),
  webhookEndpoint: t.prismaField({
    description: 'One webhook endpoint of the organisation by id.',
    type: 'WebhookEndpoint',
    authScopes: { $all: { webhooks: true, staff: true } },
    args: { id: t.arg.id({ description: 'The endpoint id.', required: true }) },
    resolve: (_q, _r, args, ctx) => webhookService.get(ctx, String(args.id)),
  }),
}));
