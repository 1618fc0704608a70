import type { PathItemObject, SchemaObject } from 'openapi3-ts/oas31';

/**
 * The webhook event catalogue as OpenAPI 3.1 `webhooks`: one entry per event, the delivery envelope around the
 * event's `data` schema. The entries come from the events module (src/modules/events/catalogue.ts) through the
 * caller of buildOpenApi, since the facade imports no module.
 */
export interface WebhookEventDoc {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the event's `data`. */
  schema: Record<string, unknown>;
}

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header' as const,
  required: true,
  schema: { type: 'string' } as SchemaObject,
  description,
  example,
});

const DELIVERY_HEADERS = [
  header(
    'Service-Signature',
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{raw body}" keyed with the endpoint secret>`; a second `v1` ' +
      '(previous secret) during rotation grace. See "Verifying webhook signatures" in the introduction.',
    't=1751351400,v1=5f2b7c0e9d4a8b6f1e3c2a9d8b7e6f5a4c3b2a1908f7e6d5c4b3a29180f7e6d5',
  ),
  header('Service-Event', 'The event name, as in `event`', 'payment.received'),
  header(
    'Service-Delivery',
    'The event id: identical on every attempt and every endpoint (deduplicate on it)',
    '0b9d7a52-3c1e-4f6a-9d2b-7e8f1a2b3c4d',
  ),
];

/** The JSON Schema of `data` without the members OpenAPI does not want inside a document. */
function dataSchema(schema: Record<string, unknown>): SchemaObject {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function envelope(e: WebhookEventDoc): SchemaObject {
  return {
    type: 'object',
    required: ['id', 'event', 'created_at', 'api_version', 'tenant', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'Event id (also the Service-Delivery header)' },
      event: { type: 'string', const: e.name },
      created_at: { type: 'string', format: 'date-time', description: 'ISO 8601 with offset' },
      api_version: { type: 'string', const: 'v1' },
      tenant: {
        type: 'object',
        required: ['code', 'name'],
        properties: { code: { type: 'string' }, name: { type: 'string' } },
        description: 'The organisation the event belongs to',
      },
      data: dataSchema(e.schema),
    },
  };
}

/** `webhooks` of the document: what the service POSTs to a subscribed endpoint, per event. */
export function webhookItems(events: readonly WebhookEventDoc[]): Record<string, PathItemObject> {
  return Object.fromEntries(
    events.map((e) => [
      e.name,
      {
        post: {
          operationId: `webhook_${e.name.replace(/\W/g, '_')}`,
          summary: e.name,
          description: `${e.description}\n\nDelivered as a signed POST to every endpoint subscribed to \`${e.name}\` (or \`*\`).`,
          tags: ['Webhook events'],
          parameters: DELIVERY_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: envelope(e) } } },
          responses: {
            '2XX': { description: 'Delivered. Anything else (or no answer in time) is retried with back-off.' },
          },
        },
      },
    ]),
  );
}
