import type { ApiClientFieldsFragment, IssueAgentKeyMutation } from '../generated/operations.ts';

export const apiClientToRest = (c: ApiClientFieldsFragment) => ({
  client_id: c.clientId,
  name: c.name,
  scopes: c.scopes,
  rate_limit_per_minute: c.rateLimitPerMinute,
  actor_user_id: c.actorUser?.databaseId ?? null,
  created_by_user_id: c.createdBy?.databaseId ?? null,
  revoked_at: c.revokedAt,
  secret_rotated_at: c.secretRotatedAt,
  previous_secret_expires_at: c.previousSecretExpiresAt,
  created_at: c.createdAt,
});

/** A created or rotated client with its secret (shown once). */
export const apiClientWithSecretToRest = (p: { apiClient: ApiClientFieldsFragment; clientSecret: string }) => ({
  data: { ...apiClientToRest(p.apiClient), client_secret: p.clientSecret },
});

export const agentKeyToRest = (k: IssueAgentKeyMutation['issueAgentKey']) => ({
  data: { user_id: k.agent.databaseId, code: k.agent.code, key: k.agentKey },
});
