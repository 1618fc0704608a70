import { describe, expect, it } from 'vitest';
import type {
  WebhookDeliveryFieldsFragment,
  WebhookEndpointFieldsFragment,
} from '../../rest-compat/generated/operations.ts';
import { redactSecret, SECRET_REPLAY_NOTE } from '../../rest-compat/mappers/replay.ts';
import {
  eventCatalogueEntryToRest,
  webhookDeliveryToRest,
  webhookEndpointToRest,
  webhookEndpointWithSecretToRest,
} from '../../rest-compat/mappers/webhook.ts';

const endpoint: WebhookEndpointFieldsFragment = {
  id: 'ep-1',
  url: 'https://hooks.example.test/bima',
  description: null,
  events: ['policy.bound', 'payment.received'],
  enabled: true,
  secretRotatedAt: null,
  previousSecretExpiresAt: null,
  createdAt: '2025-01-01T06:00:00.000Z',
  updatedAt: '2025-01-01T06:00:00.000Z',
};

const delivery: WebhookDeliveryFieldsFragment = {
  id: 'del-1',
  eventId: 'evt-1',
  event: { name: 'ping', createdAt: '2025-01-01T06:00:00.000Z' },
  endpointId: 'ep-1',
  deliveryStatus: 'retry_scheduled',
  attemptCount: 1,
  nextAttemptAt: '2025-01-01T06:01:00.000Z',
  deliveredAt: null,
  failedAt: null,
  createdAt: '2025-01-01T06:00:00.000Z',
  attempts: [
    {
      number: 1,
      statusCode: null,
      durationMs: 5000,
      responseExcerpt: null,
      error: 'timeout',
      scheduledAt: '2025-01-01T06:00:00.000Z',
      attemptedAt: '2025-01-01T06:00:00.100Z',
    },
  ],
};

describe('webhook mapper', () => {
  it('an endpoint', () => {
    expect(webhookEndpointToRest(endpoint)).toEqual({
      id: 'ep-1',
      url: 'https://hooks.example.test/bima',
      description: null,
      events: ['policy.bound', 'payment.received'],
      enabled: true,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
      created_at: '2025-01-01T06:00:00.000Z',
      updated_at: '2025-01-01T06:00:00.000Z',
    });
  });

  it('a delivery: status from the aliased field, the event flattened, every attempt', () => {
    expect(webhookDeliveryToRest(delivery)).toEqual({
      id: 'del-1',
      event_id: 'evt-1',
      event: 'ping',
      event_created_at: '2025-01-01T06:00:00.000Z',
      endpoint_id: 'ep-1',
      status: 'retry_scheduled',
      attempt_count: 1,
      next_attempt_at: '2025-01-01T06:01:00.000Z',
      delivered_at: null,
      failed_at: null,
      created_at: '2025-01-01T06:00:00.000Z',
      attempts: [
        {
          number: 1,
          status_code: null,
          duration_ms: 5000,
          response_excerpt: null,
          error: 'timeout',
          scheduled_at: '2025-01-01T06:00:00.000Z',
          attempted_at: '2025-01-01T06:00:00.100Z',
        },
      ],
    });
  });

  it('the signing secret is shown once; a replay nulls it', () => {
    const first = webhookEndpointWithSecretToRest({ endpoint, secret: 'whsec_1' });
    expect(first).toEqual({ data: { ...webhookEndpointToRest(endpoint), secret: 'whsec_1' } });
    expect(redactSecret(first, 'secret')).toEqual({
      data: { ...webhookEndpointToRest(endpoint), secret: null },
      replay_note: SECRET_REPLAY_NOTE,
    });
  });

  it('a catalogue entry keeps its JSON Schema as it is', () => {
    const schema = { type: 'object', properties: { policy_no: { type: 'string' } } };
    expect(eventCatalogueEntryToRest({ name: 'policy.bound', description: 'A policy was bound', schema })).toEqual({
      name: 'policy.bound',
      description: 'A policy was bound',
      schema,
    });
  });
});
