/**
 * What the two hand-written writes (bind.ts, stk.ts) need beyond common.ts: the acting user behind the bearer token
 * (a write is done by a user, whose role must allow it), the API client's row id (idempotency records, created-by
 * columns), the organisation's paybill, and the audit row every write leaves. The token is looked up exactly as
 * common.ts does it (the service's app_authenticate, a named prepared statement, nothing cached), reading the columns
 * a write needs as well.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type pg from 'pg';
import { type Ability, roleCan } from '../../../src/auth/abilities.ts';
import type { UserRole } from '../../../src/generated/prisma/enums.ts';
import { sha256Hex } from '../../../src/lib/crypto.ts';
import { AppError } from '../../../src/lib/problem.ts';
import type { HandPrincipal } from './common.ts';

export interface HandActor {
  userId: number;
  name: string;
  role: UserRole;
  code: string | null;
  branchId: number | null;
  /** An agent: sees only the records within their reach (src/modules/access/*.visibility.ts). */
  ownRecordsOnly: boolean;
}

export interface HandWriter extends HandPrincipal {
  paybill: string;
  /** api_clients.id (the row), and its public client_id (the audit label names it). */
  apiClientPk: number;
  apiClientId: string;
  actor: HandActor | null;
}

interface AuthRow {
  token_scopes: string[];
  token_expires_at: Date;
  token_revoked_at: Date | null;
  tenant_id: number;
  tenant_code: string;
  tenant_type: string;
  tenant_paybill: string;
  tenant_status: string;
  client_pk: number;
  client_id: string;
  client_scopes: string[];
  client_revoked_at: Date | null;
  key_user_id: number | null;
  key_user_name: string | null;
  key_user_role: string | null;
  key_user_agent_code: string | null;
  key_user_branch_id: number | null;
  key_user_disabled: boolean | null;
}

/** The bearer token's principal and acting user, read fresh from PostgreSQL, or the refusal (as common.ts judges). */
export async function authenticateWriter(
  pool: pg.Pool,
  authorization: string | undefined,
  scope: string,
): Promise<HandWriter> {
  const m = authorization ? /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(authorization) : null;
  if (!m) throw new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
  const { rows } = await pool.query<AuthRow>({
    name: 'app_authenticate',
    text: 'SELECT * FROM app_authenticate($1, $2)',
    values: [sha256Hex(m[1]), null],
  });
  const row = rows[0];
  if (!row || row.token_revoked_at || row.token_expires_at.getTime() <= Date.now() || row.client_revoked_at)
    throw new AppError('invalid_token', { detail: 'The access token is unknown, expired or revoked' });
  if (row.tenant_status !== 'active') throw new AppError('tenant_inactive', { detail: 'Organisation not active' });
  if (row.key_user_id !== null && row.key_user_disabled)
    throw new AppError('actor_disabled', { detail: `User ${row.key_user_name} is disabled` });
  const scopes = new Set(row.token_scopes.filter((s) => row.client_scopes.includes(s)));
  if (!scopes.has(scope))
    throw new AppError('insufficient_scope', { detail: `This operation needs the ${scope} scope` });
  const ownRecordsOnly = row.key_user_role === 'agent';
  return {
    tenantId: row.tenant_id,
    tenantType: row.tenant_type,
    tenantCode: row.tenant_code,
    paybill: row.tenant_paybill,
    scopes,
    userId: row.key_user_id,
    ownRecordsOnly,
    apiClientPk: row.client_pk,
    apiClientId: row.client_id,
    actor:
      row.key_user_id === null
        ? null
        : {
            userId: row.key_user_id,
            name: row.key_user_name!,
            role: row.key_user_role as UserRole,
            code: row.key_user_agent_code,
            branchId: row.key_user_branch_id,
            ownRecordsOnly,
          },
  };
}

/** The acting user, whose role must allow `ability` (the service's requireAbility). */
export function requireActor(w: HandWriter, ability: Ability): HandActor {
  const a = w.actor;
  if (!a || !roleCan(a.role, ability)) {
    throw new AppError('actor_forbidden', {
      detail: a ? `A user with role ${a.role} may not perform ${ability}` : 'This key has no acting user',
    });
  }
  return a;
}

/** The Idempotency-Key header, checked as the service checks it (src/http/idempotency.ts checkIdempotencyKey). */
export function idempotencyKeyOf(raw: string | string[] | undefined): string {
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined)
    throw new AppError('idempotency_key_required', {
      detail: 'This write needs an Idempotency-Key header (e.g. a UUID)',
    });
  if (key.trim() === '' || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))
    throw new AppError('idempotency_key_invalid', {
      detail: `Idempotency-Key must be 1–${255} visible ASCII characters`,
    });
  return key;
}

/** The request id the service logs and audits under: the caller's X-Request-Id when sane, else a new one. */
export function requestIdOf(req: http.IncomingMessage): string {
  const v = req.headers['x-request-id'];
  const id = Array.isArray(v) ? v[0] : v;
  return id && /^[\x21-\x7e]{1,128}$/.test(id) ? id : randomUUID();
}

/**
 * One audit row in the caller's transaction, worded as the service words its actor (audit.service.ts who()), and
 * the event-bus notice the service sends with it (pg_notify on bima_events, delivered on commit).
 */
export async function recordAudit(
  c: pg.PoolClient,
  w: HandWriter,
  requestId: string,
  a: { action: string; entityType: string; entityId: string; changes: Record<string, unknown> },
): Promise<void> {
  const actor = w.actor;
  const isAgent = actor?.role === 'agent';
  const via = `via API client ${w.apiClientId}`;
  const { rows } = await c.query<{ id: string }>({
    name: 'hand_audit_insert',
    text: `INSERT INTO audit_logs (tenant_id, actor_type, actor_user_id, api_client_id, actor_label, action, entity_type,
                                   entity_id, changes, request_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    values: [
      w.tenantId,
      actor ? (isAgent ? 'agent' : 'user') : 'api_client',
      actor?.userId ?? null,
      w.apiClientPk,
      actor
        ? `${isAgent ? `agent ${actor.code ?? actor.userId}` : `user ${actor.name}`} ${via}`
        : `API client ${w.apiClientId}`,
      a.action,
      a.entityType,
      a.entityId,
      JSON.stringify(a.changes),
      requestId,
    ],
  });
  await c.query({
    name: 'hand_audit_notify',
    text: 'SELECT pg_notify($1, $2)',
    values: [
      'bima_events',
      JSON.stringify({ topic: 'audit.logged', tenantId: w.tenantId, payload: { id: String(rows[0].id) } }),
    ],
  });
}

/** Runs `fn` in one transaction on a pooled connection: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
