import type {
  EventCatalogueQuery,
  ServiceEventFieldsFragment,
  WebhookDeliveryFieldsFragment,
  WebhookEndpointFieldsFragment,
} from '../generated/operations.ts';

export const webhookEndpointToRest = (e: WebhookEndpointFieldsFragment) => ({
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

/** A created endpoint, or one with a rotated secret: the signing secret is shown once. */
export const webhookEndpointWithSecretToRest = (p: { endpoint: WebhookEndpointFieldsFragment; secret: string }) => ({
  data: { ...webhookEndpointToRest(p.endpoint), secret: p.secret },
});

export const webhookDeliveryToRest = (d: WebhookDeliveryFieldsFragment) => ({
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
  attempts: d.attempts.map((a) => ({
    number: a.number,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    response_excerpt: a.responseExcerpt,
    error: a.error,
    scheduled_at: a.scheduledAt,
    attempted_at: a.attemptedAt,
  })),
});

export const eventCatalogueEntryToRest = (e: EventCatalogueQuery['eventCatalogue'][number]) => ({
  name: e.name,
  description: e.description,
  schema: e.schema,
});

/** A recorded event as its webhook envelope carries it (`id`, `event`, `created_at`, `data`). */
export const serviceEventToRest = (e: ServiceEventFieldsFragment) => ({
  id: e.id,
  event: e.name,
  created_at: e.createdAt,
  data: e.data as Record<string, unknown>,
});
