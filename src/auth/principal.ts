import type { Database } from '../db/client.ts';
import type { TenantStatus, TenantType, UserRole } from '../generated/prisma/enums.ts';
import { constantTimeEqual, sha256Hex } from '../lib/crypto.ts';
import { AppError } from '../lib/problem.ts';
import { type Ability, roleCan } from './abilities.ts';
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
  apiClient: { id: number; clientId: string; name: string; rateLimitPerMinute: number };
  token: { id: number; expiresAt: Date };
  /** Token scopes intersected with the key's current scopes: removing a scope from a key binds issued tokens. */
  scopes: ReadonlySet<Scope>;
  actor: Actor | null;
}

export interface Credentials {
  authorization?: string | null;
  agentCode?: string | null;
  agentKey?: string | null;
}

export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(authorization);
  return m ? m[1]! : null;
}

/**
 * Resolves who is calling from a bearer token and optional agent headers, or throws the spec's 401/403 problem.
 * One system transaction: the token row names the tenant, so nothing here can be scoped before it is read.
 */
export async function authenticate(db: Database, creds: Credentials): Promise<Principal> {
  if (!creds.authorization) throw new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
  const raw = bearerToken(creds.authorization);
  if (!raw) throw new AppError('invalid_token', { detail: 'Authorization header must be "Bearer <access token>"' });
  const agentCode = creds.agentCode?.trim() || null;
  const agentKey = creds.agentKey?.trim() || null;

  return db.system(async (tx) => {
    const token = await tx.accessToken.findUnique({
      where: { tokenHash: sha256Hex(raw) },
      include: { tenant: true, apiClient: { include: { actorUser: true, createdByUser: true } } },
    });
    if (!token || token.revokedAt || token.expiresAt.getTime() <= Date.now() || token.apiClient.revokedAt) {
      throw new AppError('invalid_token', { detail: 'The access token is unknown, expired or revoked' });
    }
    const { tenant, apiClient } = token;
    if (tenant.status !== 'active') {
      throw new AppError('tenant_inactive', { detail: `Organisation ${tenant.code} is ${tenant.status.replace('_', ' ')}` });
    }
    const keyScopes = new Set(apiClient.scopes);
    const scopes = new Set(token.scopes.filter((s) => keyScopes.has(s)).filter(isScope));

    const keyUser = apiClient.actorUser ?? apiClient.createdByUser;
    let actor: Actor | null = keyUser
      ? {
          userId: keyUser.id,
          name: keyUser.name,
          role: keyUser.role,
          code: keyUser.agentCode,
          branchId: keyUser.branchId,
          ownRecordsOnly: keyUser.role === 'agent',
          source: apiClient.actorUser ? 'key_actor' : 'key_creator',
        }
      : null;
    if (keyUser?.disabled) throw new AppError('actor_disabled', { detail: `User ${keyUser.name} is disabled` });

    if (agentCode || agentKey) {
      if (!agentCode || !agentKey) {
        throw new AppError('agent_denied', { detail: 'X-Agent-Code and X-Agent-Key must be sent together' });
      }
      const agent = await tx.user.findFirst({ where: { tenantId: tenant.id, agentCode, role: 'agent' } });
      // Compare against a throwaway hash when the code is unknown so both paths take the same time.
      const ok = constantTimeEqual(sha256Hex(agentKey), agent?.agentKeyHash ?? sha256Hex(`absent:${agentCode}`));
      if (!agent || !agent.agentKeyHash || !ok) {
        throw new AppError('agent_denied', { detail: 'X-Agent-Key does not match X-Agent-Code' });
      }
      if (actor?.role === 'agent' && actor.userId !== agent.id) {
        throw new AppError('agent_denied', { detail: 'This key already acts as another agent' });
      }
      if (agent.disabled) throw new AppError('actor_disabled', { detail: `Agent ${agent.agentCode} is disabled` });
      actor = {
        userId: agent.id,
        name: agent.name,
        role: agent.role,
        code: agent.agentCode,
        branchId: agent.branchId,
        ownRecordsOnly: true,
        source: 'agent_headers',
      };
    }

    return {
      tenant: { id: tenant.id, code: tenant.code, name: tenant.name, type: tenant.type, paybill: tenant.paybill, status: tenant.status },
      apiClient: { id: apiClient.id, clientId: apiClient.clientId, name: apiClient.name, rateLimitPerMinute: apiClient.rateLimitPerMinute },
      token: { id: token.id, expiresAt: token.expiresAt },
      scopes,
      actor,
    };
  });
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
