import { describe, expect, it } from 'vitest';
import type { ApiClientFieldsFragment } from '../../rest-compat/generated/operations.ts';
import { agentKeyToRest, apiClientToRest, apiClientWithSecretToRest } from '../../rest-compat/mappers/api-client.ts';
import { redactSecret, SECRET_REPLAY_NOTE } from '../../rest-compat/mappers/replay.ts';

const client: ApiClientFieldsFragment = {
  clientId: 'ck_live_1',
  name: 'Portal',
  scopes: ['read', 'quote'],
  rateLimitPerMinute: 60,
  actorUser: { databaseId: 4 },
  createdBy: null,
  revokedAt: null,
  secretRotatedAt: '2025-02-01T06:00:00.000Z',
  previousSecretExpiresAt: '2025-02-02T06:00:00.000Z',
  createdAt: '2025-01-01T06:00:00.000Z',
};

describe('API client mapper', () => {
  it('the record: user ids from the related users, null when there is none', () => {
    expect(apiClientToRest(client)).toEqual({
      client_id: 'ck_live_1',
      name: 'Portal',
      scopes: ['read', 'quote'],
      rate_limit_per_minute: 60,
      actor_user_id: 4,
      created_by_user_id: null,
      revoked_at: null,
      secret_rotated_at: '2025-02-01T06:00:00.000Z',
      previous_secret_expires_at: '2025-02-02T06:00:00.000Z',
      created_at: '2025-01-01T06:00:00.000Z',
    });
    expect(apiClientToRest({ ...client, actorUser: null }).actor_user_id).toBeNull();
  });

  it('the secret is shown once: a replay nulls it and says why', () => {
    const first = apiClientWithSecretToRest({ apiClient: client, clientSecret: 'cs_secret' });
    expect(first.data.client_secret).toBe('cs_secret');
    const replay = redactSecret(first, 'client_secret');
    expect(replay).toEqual({
      data: { ...apiClientToRest(client), client_secret: null },
      replay_note: SECRET_REPLAY_NOTE,
    });
    expect(Object.keys(replay.data)).toEqual(Object.keys(first.data));
  });

  it('an agent key: the agent and the key (nulled on a replay)', () => {
    const body = agentKeyToRest({ agentKey: 'ak_1', agent: { databaseId: 8, name: 'Wanjiru', code: 'AG01' } });
    expect(body).toEqual({ data: { user_id: 8, code: 'AG01', key: 'ak_1' } });
    expect(redactSecret(body, 'key')).toEqual({
      data: { user_id: 8, code: 'AG01', key: null },
      replay_note: SECRET_REPLAY_NOTE,
    });
  });
});
