/**
 * What the two hand-written writes (bind.ts, stk.ts) need beyond common.ts: the acting user's role check (a write is
 * done by a user, whose role must allow it) and the audit row every write leaves. The token is looked up by
 * common.ts's authenticate.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type pg from 'pg';
import { type Ability, roleCan } from '../../../src/auth/abilities.ts';
import { AppError } from '../../../src/lib/problem.ts';
import type { HandActor, HandPrincipal as HandWriter } from './common.ts';

export type { HandActor, HandPrincipal as HandWriter } from './common.ts';

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
