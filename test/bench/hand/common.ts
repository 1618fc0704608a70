/**
 * What every hand-written handler shares (test/bench/hand/server.ts): the bearer token looked up in PostgreSQL on
 * every request with the service's own one statement (app_authenticate, a named prepared statement), judged as the
 * service judges it, and the JSON answer. The pool's user is the embedded server's superuser, whom row-level security
 * does not filter: every statement a handler sends names the tenant (and, for an agent, the reach) itself.
 */
import type http from 'node:http';
import type pg from 'pg';
import type { Actor } from '../../../src/auth/principal.ts';
import type { TenantType, UserRole } from '../../../src/generated/prisma/enums.ts';
import { sha256Hex } from '../../../src/lib/crypto.ts';
import { AppError } from '../../../src/lib/problem.ts';

/** The service's actor (src/auth/principal.ts), without how it was established. */
export type HandActor = Omit<Actor, 'source'>;

export interface HandPrincipal {
  tenantId: number;
  tenantType: TenantType;
  tenantCode: string;
  paybill: string;
  scopes: ReadonlySet<string>;
  /** The acting user (the key's actor, else its creator). */
  userId: number | null;
  /** An agent's key: sees only the records within their reach (src/modules/access/*.visibility.ts). */
  ownRecordsOnly: boolean;
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

/**
 * The bearer token's principal, read fresh from PostgreSQL (nothing about a token is cached), judged as the service
 * judges it (src/auth/principal.ts), or the refusal: every hand-written path (the reads, the writes, the quote).
 */
export async function authenticate(
  pool: pg.Pool,
  authorization: string | undefined,
  scope: string | readonly string[],
): Promise<HandPrincipal> {
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
  const wanted = typeof scope === 'string' ? [scope] : scope;
  if (!wanted.some((s) => scopes.has(s)))
    throw new AppError('insufficient_scope', { detail: `This operation needs the ${wanted.join(' or ')} scope` });
  const ownRecordsOnly = row.key_user_role === 'agent';
  return {
    tenantId: row.tenant_id,
    tenantType: row.tenant_type as TenantType,
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

export interface HandRequest {
  pool: pg.Pool;
  req: http.IncomingMessage;
  url: URL;
  /** The path's captures, in order. */
  params: string[];
  /** The raw body ('' for none). */
  raw: Buffer;
}

export interface HandAnswer {
  status: number;
  /** Defaults to application/json; charset=utf-8. */
  contentType?: string;
  /** Serialised with JSON.stringify, or sent as is when a Buffer/string. */
  body: unknown;
  headers?: Record<string, string>;
}

export interface HandRoute {
  method: string;
  /** Matched against the path without the query string. */
  pattern: RegExp;
  handle(r: HandRequest): Promise<HandAnswer>;
}

/** Whole shillings from cents, the service's one rounding rule (src/lib/money.ts). */
export { toShillings } from '../../../src/lib/money.ts';
