import { z } from 'zod';
import { ALL_SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';
import { idIn, onText, whole } from './inputs.ts';
import { arr, int, nullable, obj, ref, str, timestamp, allOf } from './builders.ts';

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

/** The scopes (src/auth/scopes.ts): at least one; a lone scope reads as a list of one (GraphQL's list coercion). */
const scopeList = z.array(z.enum(ALL_SCOPES as [Scope, ...Scope[]])).min(1, 'at least one scope');
const scopes = documentAs(
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), scopeList),
  () => jsonSchemaOf(scopeList) as Record<string, unknown>,
);
const name = z
  .string()
  .trim()
  .min(1, { ...onText, message: 'required' })
  .max(100, { ...onText, message: 'at most 100 characters' })
  .describe('1–100 characters, trimmed');
const rate = whole(z.int().min(1).max(100_000));

/** As src/modules/api-clients/api-client.service.ts reads them (the same bounds and words). */
export const createApiClientBody = obj(
  {
    name,
    scopes,
    actor_user_id: idIn('User the key acts as; default the creating user'),
    rate_limit_per_minute: rate
      .nullish()
      .describe(
        "The client's own limit (1–100000); omitted: it follows the deployment's default (60 unless the deployment sets RATE_LIMIT_PER_MINUTE), including later changes of it",
      ),
  },
  ['name', 'scopes'],
);

export const updateApiClientBody = obj(
  {
    name: name.nullish(),
    scopes: scopes.nullish(),
    actor_user_id: idIn('An active user of the organisation the key then acts as; omitted: unchanged'),
    rate_limit_per_minute: rate
      .nullish()
      .describe(
        "The client's own limit (1–100000); null: removes it, so the deployment's default applies; omitted: unchanged",
      ),
  },
  [],
);

export const rotateSecretBody = obj(
  {
    grace_hours: whole(z.int().min(0).max(168))
      .nullish()
      .describe('How long the old secret still works (hours, 0–168, default 24)'),
  },
  [],
);

export const agentKeyResponse = obj(
  { data: obj({ user_id: int(), code: nullable(str()), key: nullable(str('Shown once')) }), replay_note: str() },
  ['data'],
);
