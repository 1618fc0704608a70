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

const eventsField = arr(str('Event name from GET /events/catalogue, or *'));

export const createWebhookEndpointBody = obj({ url: str(), events: eventsField, description: str() }, [
  'url',
  'events',
]);
export const updateWebhookEndpointBody = obj(
  { url: str(), events: eventsField, enabled: bool(), description: str() },
  [],
);
export const rotateWebhookSecretBody = obj({ grace_hours: int('0–168, default 24') }, []);
export const sendTestWebhookBody = obj({ message: str('Default: "Test event from Bima Gateway"') }, []);
