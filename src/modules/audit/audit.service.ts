import type { Context } from '../../context.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Tx } from '../../db/client.ts';
import type { ActorType } from '../../generated/prisma/enums.ts';

export interface AuditInput {
  action: string;
  entityType: string;
  entityId: string | number;
  /** For updates {field: {from, to}}; for creations the created values. Never secrets. */
  changes?: Record<string, unknown>;
}

export const AUDIT_TOPIC = 'audit.logged';

function who(ctx: Context): {
  actorType: ActorType;
  actorUserId: number | null;
  apiClientId: number | null;
  actorLabel: string;
} {
  const p = ctx.principal;
  if (!p) return { actorType: 'system', actorUserId: null, apiClientId: null, actorLabel: 'system' };
  if (p.operator) {
    return { actorType: 'system', actorUserId: null, apiClientId: null, actorLabel: `system (operator ${p.operator})` };
  }
  const via = `via API client ${p.apiClient.clientId}`;
  if (!p.actor)
    return {
      actorType: 'api_client',
      actorUserId: null,
      apiClientId: p.apiClient.id,
      actorLabel: `API client ${p.apiClient.clientId}`,
    };
  const isAgent = p.actor.source === 'agent_headers' || p.actor.role === 'agent';
  return {
    actorType: isAgent ? 'agent' : 'user',
    actorUserId: p.actor.userId,
    apiClientId: p.apiClient.id,
    actorLabel: `${isAgent ? `agent ${p.actor.code ?? p.actor.userId}` : `user ${p.actor.name}`} ${via}`,
  };
}

/** Who the caller is, in the words the audit log uses (e.g. `user Wanjiku Kamau via API client bgc_…`). */
export function actorLabel(ctx: Context): string {
  return who(ctx).actorLabel;
}

/**
 * Writes the audit row in the caller's transaction, so a change and its audit trail commit or vanish together, and
 * announces it to the audit subscription (`{id}`) in the same statement (EventBus.publishInserted).
 */
export async function recordAudit(ctx: Context, tx: Tx, tenantId: number, input: AuditInput): Promise<void> {
  await ctx.app.events.publishInserted(tx, AUDIT_TOPIC, tenantId, auditInsert(ctx, tenantId, input));
}

/**
 * An audit row written by the statement that makes the change it records (one round trip for both: a number drawn
 * and the entry that names it, issue 28). `before` are the statement's CTEs; the entry's `entityId`, and `changes`
 * added to `input.changes`, may be SQL over them (`(SELECT client_no FROM c)`); `answer` is what the statement
 * answers.
 */
export function recordAuditWith<T>(
  ctx: Context,
  tx: Tx,
  tenantId: number,
  input: Omit<AuditInput, 'entityId'> & { entityId: string | number | Prisma.Sql },
  w: { before: Prisma.Sql[]; changes?: Prisma.Sql; answer: Prisma.Sql },
): Promise<T> {
  return ctx.app.events.publishInsertedWith<T>(tx, AUDIT_TOPIC, tenantId, {
    before: w.before,
    insert: auditInsert(ctx, tenantId, input, w.changes),
    answer: w.answer,
  });
}

function auditInsert(
  ctx: Context,
  tenantId: number,
  input: Omit<AuditInput, 'entityId'> & { entityId: string | number | Prisma.Sql },
  moreChanges?: Prisma.Sql,
): Prisma.Sql {
  const w = who(ctx);
  const json = input.changes === undefined ? null : JSON.stringify(input.changes);
  const changes = moreChanges
    ? Prisma.sql`coalesce(${json}::jsonb, '{}'::jsonb) || ${moreChanges}`
    : Prisma.sql`${json}::jsonb`;
  const entityId = input.entityId instanceof Prisma.Sql ? input.entityId : Prisma.sql`${String(input.entityId)}`;
  return Prisma.sql`INSERT INTO audit_logs (tenant_id, actor_type, actor_user_id, api_client_id, actor_label, action,
      entity_type, entity_id, changes, request_id, created_at)
    VALUES (${tenantId}, CAST(${w.actorType}::text AS "ActorType"), ${w.actorUserId}, ${w.apiClientId},
      ${w.actorLabel}, ${input.action}, ${input.entityType}, ${entityId}, ${changes},
      ${ctx.requestId ?? null}, ${new Date()})
    RETURNING id`;
}

/** Audit trails use the REST spelling (snake_case) whichever transport made the change. */
export function snakeKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

/** {field: {from, to}} (snake_case field names) for the fields whose value changed. */
export function diffFields<T extends Record<string, unknown>>(
  before: T,
  after: Partial<T>,
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const [k, v] of Object.entries(after)) {
    if (v === undefined) continue;
    const prev = before[k];
    if (JSON.stringify(prev) !== JSON.stringify(v)) out[k] = { from: prev ?? null, to: v };
  }
  return snakeKeys(out);
}

/** Reads of the audit trail (the GraphQL type's access rule admits admins only). `query` is the caller's selection. */
export const auditService = {
  list(ctx: Context, f: { entityType?: string | null; entityId?: string | null }, query: Prisma.AuditLogFindManyArgs) {
    return ctx.tx((tx) =>
      tx.auditLog.findMany({
        ...query,
        where: { entityType: f.entityType ?? undefined, entityId: f.entityId ?? undefined },
        orderBy: { id: 'desc' },
      }),
    );
  },
  byId(ctx: Context, id: bigint, query: Omit<Prisma.AuditLogFindUniqueArgs, 'where'>) {
    return ctx.tx((tx) => tx.auditLog.findUniqueOrThrow({ ...query, where: { id } }));
  },
};
