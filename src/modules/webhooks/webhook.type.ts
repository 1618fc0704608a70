import { access } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';

/** Webhook endpoints, deliveries and attempts show every event of the organisation: scope webhooks, never an agent. */
const webhookAccess = access({ scopes: ['webhooks'], staffOnly: true });
import { webhookService } from './webhook.service.ts';

builder.prismaObject('WebhookEndpoint', {
  ...webhookAccess,
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    events: t.exposeStringList('events', { description: 'Subscribed event names, or `*` for every event' }),
    enabled: t.exposeBoolean('enabled'),
    secretRotatedAt: t.expose('secretRotatedAt', { type: 'DateTime', nullable: true }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Until then deliveries also carry a `v1` signature made with the previous secret',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deliveries: t.prismaField({
      type: ['WebhookDelivery'],
      description: 'The delivery log, newest first',
      args: { limit: t.arg.int({ description: '1–100, default 25' }) },
      resolve: (_q, endpoint, args, ctx) => webhookService.deliveries(ctx, endpoint.id, args.limit),
    }),
  }),
});

builder.prismaObject('WebhookDelivery', {
  ...webhookAccess,
  fields: (t) => ({
    id: t.exposeID('id', { description: "Delivery id (retry with it); the wire's Service-Delivery is `eventId`" }),
    eventId: t.exposeID('eventId'),
    event: t.relation('event'),
    endpointId: t.exposeID('endpointId'),
    status: t.exposeString('status', { description: 'pending, retry_scheduled, delivered or failed' }),
    attemptCount: t.exposeInt('attemptCount'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    failedAt: t.expose('failedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    attempts: t.relation('attempts', { query: { orderBy: { number: 'asc' } } }),
  }),
});

builder.prismaObject('WebhookAttempt', {
  ...webhookAccess,
  fields: (t) => ({
    number: t.exposeInt('number'),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    durationMs: t.exposeInt('durationMs'),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: 'At most 1 kB of the answer' }),
    error: t.exposeString('error', { nullable: true }),
    scheduledAt: t.expose('scheduledAt', { type: 'DateTime' }),
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime' }),
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
