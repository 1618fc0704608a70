import { arr, int, nullable, obj, ref, str, timestamp, oneOf, allOf } from './builders.ts';

export const apiClientSchemas = {
  ApiClient: obj({
    client_id: str('Public client id'),
    name: str(),
    scopes: arr(str()),
    rate_limit_per_minute: int(
      "Requests per minute per token that apply: the client's own limit, else the deployment's default (60 unless the deployment sets RATE_LIMIT_PER_MINUTE)",
    ),
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
    data: allOf(
      ref('ApiClient'),
      obj({ client_secret: nullable(str('Shown once; null on an Idempotency-Key replay')) }),
    ),
    replay_note: str('Present on a replayed response'),
  },
  ['data'],
);

export const createApiClientBody = obj(
  {
    name: str(),
    scopes: arr(oneOf(['read', 'quote', 'bind', 'crm', 'webhooks', 'admin'])),
    actor_user_id: int('User the key acts as; default the creating user'),
    rate_limit_per_minute: int(
      "The client's own limit (1–100000); omitted: it follows the deployment's default (60 unless the deployment sets RATE_LIMIT_PER_MINUTE), including later changes of it",
    ),
  },
  ['name', 'scopes'],
);

export const updateApiClientBody = obj(
  {
    name: str(),
    scopes: arr(str()),
    actor_user_id: int(),
    rate_limit_per_minute: nullable(
      int(
        "The client's own limit (1–100000); null: removes it, so the deployment's default applies; omitted: unchanged",
      ),
    ),
  },
  [],
);

export const rotateSecretBody = obj({ grace_hours: int('0–168, default 24') }, []);

export const agentKeyResponse = obj(
  { data: obj({ user_id: int(), code: nullable(str()), key: nullable(str('Shown once')) }), replay_note: str() },
  ['data'],
);
