import { z } from 'zod';
import { documentAs, jsonSchemaOf } from './json-schema.ts';
import { onText, whole } from './inputs.ts';
import { arr, bool, int, nullable, obj, ref, str, timestamp, oneOf, allOf } from './builders.ts';

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
    status: oneOf(['pending', 'retry_scheduled', 'delivered', 'failed']),
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
  ServiceEvent: obj({
    id: str('Event UUID: the webhook envelope id and Service-Delivery header'),
    event: str('Event name, as in GET /events/catalogue (or ping)'),
    created_at: timestamp(),
    data: { type: 'object', description: "The event's data, shaped as its catalogue schema says" },
  }),
  EventCatalogueEntry: obj({
    name: str(),
    description: str(),
    schema: { type: 'object', description: "JSON Schema of the event's data" },
  }),
};

export const webhookSecretResponse = obj(
  {
    data: allOf(
      ref('WebhookEndpoint'),
      obj({ secret: nullable(str('Signing secret whsec_…, shown once; null on an Idempotency-Key replay')) }),
    ),
    replay_note: str('Present on a replayed response'),
  },
  ['data'],
);

/** Event names (src/modules/webhooks/webhook.service.ts): at least one; a lone name reads as a list of one. */
const eventList = z
  .array(
    z
      .string()
      .describe('Event name from GET /events/catalogue, or * (another name is refused by the service: 422 naming it)'),
  )
  .min(1, 'at least one event name, or *');
const eventsField = documentAs(
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), eventList),
  () => jsonSchemaOf(eventList) as Record<string, unknown>,
);
const url = z
  .string()
  .trim()
  .min(1, { ...onText, message: 'required' })
  .max(2000, { ...onText, message: 'at most 2000 characters' })
  .describe('https:// on a public address (checked by the service, and again before every delivery)');
const description = z
  .string()
  .trim()
  .max(500, { ...onText, message: 'at most 500 characters' })
  .nullish();

export const createWebhookEndpointBody = obj({ url, events: eventsField, description }, ['url', 'events']);
export const updateWebhookEndpointBody = obj(
  {
    url: url.nullish(),
    events: eventsField.nullish().describe('Replaces the subscribed events'),
    enabled: bool().nullish(),
    description,
  },
  [],
);
export const rotateWebhookSecretBody = obj(
  {
    grace_hours: whole(z.int().min(0).max(168))
      .nullish()
      .describe('How long the old secret still signs (hours, 0–168, default 24)'),
  },
  [],
);
export const sendTestWebhookBody = obj(
  {
    message: z
      .string()
      .trim()
      .min(1, onText)
      .max(500, onText)
      .nullish()
      .describe('Default: "Test event from Bima Gateway"'),
  },
  [],
);
