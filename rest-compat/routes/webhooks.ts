import { intParam, route, type RestRoute } from '../route.ts';
import { arr, bool, dataOf, int, nullable, obj, ref, str, timestamp } from '../schemas.ts';

/**
 * Webhook management (the spec's "seven management endpoints" under scope `webhooks`; their paths are this
 * service's) plus the send-test action, and the event catalogue (scope read).
 */
const body = (b: unknown): Record<string, unknown> =>
  b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};

const endpoint = (e: any) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: e.events,
  enabled: e.enabled,
  secret_rotated_at: e.secretRotatedAt,
  previous_secret_expires_at: e.previousSecretExpiresAt,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

const delivery = (d: any) => ({
  id: d.id,
  event_id: d.eventId,
  event: d.event.name,
  event_created_at: d.event.createdAt,
  endpoint_id: d.endpointId,
  // Aliased in the operations: a Problem's `status` (the HTTP status) shares the selection.
  status: d.deliveryStatus,
  attempt_count: d.attemptCount,
  next_attempt_at: d.nextAttemptAt,
  delivered_at: d.deliveredAt,
  failed_at: d.failedAt,
  created_at: d.createdAt,
  attempts: d.attempts.map((a: any) => ({
    number: a.number,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    response_excerpt: a.responseExcerpt,
    error: a.error,
    scheduled_at: a.scheduledAt,
    attempted_at: a.attemptedAt,
  })),
});

const REPLAY_NOTE = 'Replayed response: the secret was shown once, in the first response to this Idempotency-Key.';
const withSecret = (p: any) => ({ data: { ...endpoint(p.endpoint), secret: p.secret } });
const redactSecret = (b: any) => ({ ...b, data: { ...b.data, secret: null }, replay_note: REPLAY_NOTE });

export const webhookSchemas = {
  WebhookEndpoint: obj({
    id: str('Endpoint UUID'),
    url: str(),
    description: nullable(str()),
    events: arr(str('An event name from GET /events/catalogue, or *')),
    enabled: bool(),
    secret_rotated_at: nullable(timestamp()),
    previous_secret_expires_at: nullable(timestamp()),
    created_at: timestamp(),
    updated_at: timestamp(),
  }),
  WebhookDelivery: obj({
    id: str('Delivery UUID (retry with it)'),
    event_id: str('Event UUID: the Service-Delivery header and envelope id, identical on every attempt'),
    event: str('Event name'),
    event_created_at: timestamp(),
    endpoint_id: str(),
    status: { type: 'string', enum: ['pending', 'retry_scheduled', 'delivered', 'failed'] },
    attempt_count: int(),
    next_attempt_at: nullable(timestamp()),
    delivered_at: nullable(timestamp()),
    failed_at: nullable(timestamp()),
    created_at: timestamp(),
    attempts: arr(
      obj({
        number: int(),
        status_code: nullable(int()),
        duration_ms: int(),
        response_excerpt: nullable(str('At most 1 kB of the answer')),
        error: nullable(str()),
        scheduled_at: timestamp(),
        attempted_at: timestamp(),
      }),
    ),
  }),
  EventCatalogueEntry: obj({
    name: str(),
    description: str(),
    schema: { type: 'object', description: "JSON Schema of the event's data" },
  }),
};

const secretResponse = obj(
  {
    data: {
      allOf: [
        ref('WebhookEndpoint'),
        obj({ secret: nullable(str('Signing secret whsec_…, shown once; null on an Idempotency-Key replay')) }),
      ],
    },
    replay_note: str('Present on a replayed response'),
  },
  ['data'],
);

const common = { tag: 'Webhooks', scopes: ['webhooks' as const] };
const eventsField = arr(str('Event name from GET /events/catalogue, or *'));

export const webhookRoutes: RestRoute[] = [
  route({
    tag: 'Webhooks',
    scopes: ['read'],
    operationId: 'getEventCatalogue',
    method: 'GET',
    path: '/events/catalogue',
    summary: 'Every event a webhook endpoint can subscribe to, with the JSON Schema of its data',
    idempotent: false,
    operation: 'EventCatalogue',
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.eventCatalogue } }),
    response: { status: 200, description: 'Catalogue', schema: dataOf(arr(ref('EventCatalogueEntry'))) },
    errors: [],
  }),
  route({
    ...common,
    operationId: 'listWebhookEndpoints',
    method: 'GET',
    path: '/webhooks/endpoints',
    summary: "List the organisation's webhook endpoints",
    idempotent: false,
    operation: 'WebhookEndpoints',
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: d.webhookEndpoints.map(endpoint) } }),
    response: { status: 200, description: 'Endpoints', schema: dataOf(arr(ref('WebhookEndpoint'))) },
    errors: [],
  }),
  route({
    ...common,
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    path: '/webhooks/endpoints',
    summary: 'Register an endpoint (the signing secret is shown once)',
    description: 'The URL must be https:// on a public address (checked again before every delivery).',
    idempotent: true,
    operation: 'CreateWebhookEndpoint',
    requestBody: obj({ url: str(), events: eventsField, description: str() }, ['url', 'events']),
    toVariables: ({ body: b }) => {
      const x = body(b);
      return { input: { url: x.url, events: x.events, description: x.description } };
    },
    toResponse: (d) => ({ status: 201, body: withSecret(d.createWebhookEndpoint) }),
    redactForReplay: redactSecret,
    response: { status: 201, description: 'Created', schema: secretResponse },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'getWebhookEndpoint',
    method: 'GET',
    path: '/webhooks/endpoints/{id}',
    summary: 'Read an endpoint',
    idempotent: false,
    operation: 'WebhookEndpoint',
    toVariables: ({ params }) => ({ id: params.id }),
    toResponse: (d) => ({ status: 200, body: { data: endpoint(d.webhookEndpoint) } }),
    response: { status: 200, description: 'Endpoint', schema: dataOf(ref('WebhookEndpoint')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'updateWebhookEndpoint',
    method: 'PATCH',
    path: '/webhooks/endpoints/{id}',
    summary: 'Change the URL, subscribed events, description, or enable/disable',
    idempotent: true,
    operation: 'UpdateWebhookEndpoint',
    requestBody: obj({ url: str(), events: eventsField, enabled: bool(), description: str() }, []),
    toVariables: ({ params, body: b }) => {
      const x = body(b);
      return { input: { id: params.id, url: x.url, events: x.events, enabled: x.enabled, description: x.description } };
    },
    toResponse: (d) => ({ status: 200, body: { data: endpoint(d.updateWebhookEndpoint) } }),
    response: { status: 200, description: 'Updated', schema: dataOf(ref('WebhookEndpoint')) },
    errors: ['not_found', 'validation_failed'],
  }),
  route({
    ...common,
    operationId: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/webhooks/endpoints/{id}',
    summary: 'Delete an endpoint and its delivery log (answers with what was deleted)',
    idempotent: true,
    operation: 'DeleteWebhookEndpoint',
    toVariables: ({ params }) => ({ id: params.id }),
    toResponse: (d) => ({ status: 200, body: { data: endpoint(d.deleteWebhookEndpoint) } }),
    response: { status: 200, description: 'Deleted', schema: dataOf(ref('WebhookEndpoint')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/endpoints/{id}/rotate-secret',
    summary: 'Rotate the signing secret; the previous one also signs (a second v1) for grace_hours',
    idempotent: true,
    operation: 'RotateWebhookSecret',
    requestBody: obj({ grace_hours: int('0–168, default 24') }, []),
    toVariables: ({ params, body: b }) => ({ id: params.id, graceHours: body(b).grace_hours }),
    toResponse: (d) => ({ status: 200, body: withSecret(d.rotateWebhookSecret) }),
    redactForReplay: redactSecret,
    response: { status: 200, description: 'Rotated', schema: secretResponse },
    errors: ['not_found', 'validation_failed'],
  }),
  route({
    ...common,
    operationId: 'sendTestWebhook',
    method: 'POST',
    path: '/webhooks/endpoints/{id}/test',
    summary: 'Deliver a ping event to this endpoint, whatever it subscribes to',
    idempotent: true,
    operation: 'SendTestWebhook',
    requestBody: obj({ message: str('Default: "Test event from Bima Gateway"') }, []),
    toVariables: ({ params, body: b }) => ({ id: params.id, message: body(b).message }),
    toResponse: (d) => ({ status: 202, body: { data: delivery(d.sendTestWebhook) } }),
    response: { status: 202, description: 'Queued', schema: dataOf(ref('WebhookDelivery')) },
    errors: ['not_found', 'validation_failed'],
  }),
  route({
    ...common,
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/endpoints/{id}/deliveries',
    summary: "The endpoint's delivery log, newest first, each delivery with its attempts",
    idempotent: false,
    operation: 'WebhookDeliveries',
    queryParams: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } }],
    toVariables: ({ params, query }) => ({ id: params.id, limit: intParam(query.get('limit')) }),
    toResponse: (d) => ({ status: 200, body: { data: d.webhookEndpoint.deliveries.map(delivery) } }),
    response: { status: 200, description: 'Deliveries', schema: dataOf(arr(ref('WebhookDelivery'))) },
    errors: ['not_found', 'validation_failed'],
  }),
  route({
    ...common,
    operationId: 'retryWebhookDelivery',
    method: 'POST',
    path: '/webhooks/deliveries/{id}/retry',
    summary: 'Re-send a failed delivery now (same delivery id and event id)',
    idempotent: true,
    operation: 'RetryWebhookDelivery',
    toVariables: ({ params }) => ({ id: params.id }),
    toResponse: (d) => ({ status: 202, body: { data: delivery(d.retryWebhookDelivery) } }),
    response: { status: 202, description: 'Queued', schema: dataOf(ref('WebhookDelivery')) },
    errors: ['not_found', 'domain_rule'],
  }),
];
