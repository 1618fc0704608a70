import type { MeQuery } from '../generated/operations.ts';

/** The caller's identity (GET /me). */
export function meToRest(me: MeQuery['me']) {
  return {
    client: { id: me.client.id, name: me.client.name, rate_limit_per_minute: me.client.rateLimitPerMinute },
    tenant: { code: me.tenant.code, name: me.tenant.name, type: me.tenant.type, paybill: me.tenant.paybill },
    scopes: me.scopes,
    actor: me.actor && {
      id: me.actor.id,
      name: me.actor.name,
      role: me.actor.role,
      code: me.actor.code,
      own_records_only: me.actor.ownRecordsOnly,
    },
    token: { expires_at: me.token.expiresAt, expires_in: me.token.expiresIn },
    request_id: me.requestId,
  };
}
