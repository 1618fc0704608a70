import { arr, int, nullable, obj, ref, str, timestamp } from './builders.ts';

export const apiClientSchemas = {
  ApiClient: obj({
    client_id: str('Public client id'),
    name: str(),
    scopes: arr(str()),
    rate_limit_per_minute: int(),
    actor_user_id: nullable(int()),
    created_by_user_id: nullable(int()),
    revoked_at: nullable(timestamp()),
    secret_rotated_at: nullable(timestamp()),
    previous_secret_expires_at: nullable(timestamp()),
    created_at: timestamp(),
  }),
};

export const apiClientSecretResponse = obj(
  {
    data: {
      allOf: [ref('ApiClient'), obj({ client_secret: nullable(str('Shown once; null on an Idempotency-Key replay')) })],
    },
    replay_note: str('Present on a replayed response'),
  },
  ['data'],
);

export const createApiClientBody = obj(
  {
    name: str(),
    scopes: arr({ type: 'string', enum: ['read', 'quote', 'bind', 'crm', 'webhooks', 'admin'] }),
    actor_user_id: int('User the key acts as; default the creating user'),
    rate_limit_per_minute: int('Default 60'),
  },
  ['name', 'scopes'],
);

export const updateApiClientBody = obj(
  { name: str(), scopes: arr(str()), actor_user_id: int(), rate_limit_per_minute: int() },
  [],
);

export const rotateSecretBody = obj({ grace_hours: int('0–168, default 24') }, []);

export const agentKeyResponse = obj(
  { data: obj({ user_id: int(), code: str(), key: nullable(str('Shown once')) }), replay_note: str() },
  ['data'],
);
