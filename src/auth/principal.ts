import type { TenantStatus, TenantType, UserRole } from '../generated/prisma/enums.ts';
import type { Config } from '../lib/config.ts';
import { constantTimeEqual, sha256Hex } from '../lib/crypto.ts';
import { AppError } from '../lib/problem.ts';
import { type Ability, roleCan } from './abilities.ts';
import type { AuthSource } from './auth-source.ts';
import { isScope, type Scope } from './scopes.ts';

export interface TenantInfo {
  id: number;
  code: string;
  name: string;
  type: TenantType;
  paybill: string;
  status: TenantStatus;
}

export interface Actor {
  userId: number;
  name: string;
  role: UserRole;
  code: string | null;
  branchId: number | null;
  /** Agents see only their own records (created by them, or where they are sales person or assignee). */
  ownRecordsOnly: boolean;
  /** How the actor was established: agent headers, the key's actor user, or the key's creator. */
  source: 'agent_headers' | 'key_actor' | 'key_creator';
}

export interface Principal {
  tenant: TenantInfo;
  /** rateLimitPerMinute: the client's own limit, or null for the deployment's default (RATE_LIMIT_PER_MINUTE). */
  apiClient: { id: number; clientId: string; name: string; rateLimitPerMinute: number | null };
  token: { id: number; expiresAt: Date };
  /** Token scopes intersected with the key's current scopes: removing a scope from a key binds issued tokens. */
  scopes: ReadonlySet<Scope>;
  actor: Actor | null;
  /**
   * Set only by the admin CLI (src/admin/): the person at the console acting as the platform. The audit log records
   * the `system` actor with this name; rows that would name an acting user (created_by, actor_user_id) name none.
   */
  operator?: string;
}

/** The user a write records as its author: none for the platform's own operator (Principal.operator). */
export function authorUserId(p: Principal, actor: Actor): number | null {
  return p.operator ? null : actor.userId;
}

export interface Credentials {
  authorization?: string | null;
  agentCode?: string | null;
  agentKey?: string | null;
  /** Client area (docs/client-area.md "Client area"): resolved to `ctx.customer` by auth/customer.ts, never here. */
  clientNo?: string | null;
  clientKey?: string | null;
}

export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(authorization);
  return m ? m[1] : null;
}

/**
 * Resolves who is calling from a bearer token and optional agent headers, or throws the spec's 401/403 problem.
 * Every request runs this. The row comes from `source`: the service passes its principal cache (auth-source.ts), whose
 * entries every process drops as soon as a revocation, scope removal, suspension or disabling commits, so those bind
 * the next request; the judging below (expiry, revocation, the agent key) runs every time.
 */
export async function authenticate(source: AuthSource, creds: Credentials): Promise<Principal> {
  if (!creds.authorization)
    throw new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
  const raw = bearerToken(creds.authorization);
  if (!raw) throw new AppError('invalid_token', { detail: 'Authorization header must be "Bearer <access token>"' });
  const agentCode = creds.agentCode?.trim() || null;
  const agentKey = creds.agentKey?.trim() || null;

  const row = await source.authLookup(sha256Hex(raw), agentCode);
  if (!row || row.token_revoked_at || row.token_expires_at.getTime() <= Date.now() || row.client_revoked_at) {
    throw new AppError('invalid_token', { detail: 'The access token is unknown, expired or revoked' });
  }
  const tenant: TenantInfo = {
    id: row.tenant_id,
    code: row.tenant_code,
    name: row.tenant_name,
    type: row.tenant_type as TenantType,
    paybill: row.tenant_paybill,
    status: row.tenant_status as TenantStatus,
  };
  if (tenant.status !== 'active') {
    throw new AppError('tenant_inactive', {
      detail: `Organisation ${tenant.code} is ${tenant.status.replace('_', ' ')}`,
    });
  }
  const keyScopes = new Set(row.client_scopes);
  const scopes = new Set(row.token_scopes.filter((s) => keyScopes.has(s)).filter(isScope));

  let actor: Actor | null =
    row.key_user_id !== null
      ? {
          userId: row.key_user_id,
          name: row.key_user_name!,
          role: row.key_user_role as UserRole,
          code: row.key_user_agent_code,
          branchId: row.key_user_branch_id,
          ownRecordsOnly: row.key_user_role === 'agent',
          source: row.key_user_is_actor ? 'key_actor' : 'key_creator',
        }
      : null;
  if (actor && row.key_user_disabled)
    throw new AppError('actor_disabled', { detail: `User ${actor.name} is disabled` });

  if (agentCode || agentKey) {
    if (!agentCode || !agentKey) {
      throw new AppError('agent_denied', { detail: 'X-Agent-Code and X-Agent-Key must be sent together' });
    }
    // Compare against a throwaway hash when the code is unknown so both paths take the same time.
    const ok = constantTimeEqual(sha256Hex(agentKey), row.agent_key_hash ?? sha256Hex(`absent:${agentCode}`));
    if (row.agent_id === null || !row.agent_key_hash || !ok) {
      throw new AppError('agent_denied', { detail: 'X-Agent-Key does not match X-Agent-Code' });
    }
    if (actor?.role === 'agent' && actor.userId !== row.agent_id) {
      throw new AppError('agent_denied', { detail: 'This key already acts as another agent' });
    }
    if (row.agent_disabled) throw new AppError('actor_disabled', { detail: `Agent ${row.agent_code} is disabled` });
    actor = {
      userId: row.agent_id,
      name: row.agent_name!,
      role: row.agent_role as UserRole,
      code: row.agent_code,
      branchId: row.agent_branch_id,
      ownRecordsOnly: true,
      source: 'agent_headers',
    };
  }

  return {
    tenant,
    apiClient: {
      id: row.client_pk,
      clientId: row.client_id,
      name: row.client_name,
      rateLimitPerMinute: row.client_rate_limit_per_minute,
    },
    token: { id: row.token_id, expiresAt: row.token_expires_at },
    scopes,
    actor,
  };
}

/**
 * The per-token limit a client's tokens are held to: its own, else the deployment's default (RATE_LIMIT_PER_MINUTE).
 * The one rule the limiter enforces and `me` and `ApiClient` report.
 */
export function tokenRateLimit(own: number | null, config: Pick<Config, 'rateLimitPerMinute'>): number {
  return own ?? config.rateLimitPerMinute;
}

export function requireScope(principal: Principal | undefined, ...anyOf: Scope[]): Principal {
  if (!principal) throw new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
  if (!anyOf.some((s) => principal.scopes.has(s))) {
    throw new AppError('insufficient_scope', {
      detail: `This operation needs the ${anyOf.map((s) => `'${s}'`).join(' or ')} scope`,
      extra: { required_scopes: anyOf },
    });
  }
  return principal;
}

/** The first line of every write: the acting user must be allowed to do it. */
export function requireAbility(principal: Principal, ability: Ability): Actor {
  const actor = principal.actor;
  if (!actor || !roleCan(actor.role, ability)) {
    throw new AppError('actor_forbidden', {
      detail: actor ? `A user with role ${actor.role} may not perform ${ability}` : 'This key has no acting user',
    });
  }
  return actor;
}
