import { z } from 'zod';
import { authorUserId, requireAbility } from '../../auth/principal.ts';
import { ALL_SCOPES, type Scope } from '../../auth/scopes.ts';
import type { Context } from '../../context.ts';
import type { Prisma } from '../../db/client.ts';
import { hashSecret, newPublicId, newSecret, sha256Hex } from '../../lib/crypto.ts';
import { AppError, notFound, ValidationError } from '../../lib/problem.ts';
import { parseInput } from '../../lib/validate.ts';
import { diffFields, recordAudit } from '../audit/audit.service.ts';

const scopesSchema = z
  .array(z.enum(ALL_SCOPES as [Scope, ...Scope[]]))
  .min(1, 'at least one scope')
  .transform((s) => [...new Set(s)].sort());
const nameSchema = z.string().trim().min(1, 'required').max(100, 'at most 100 characters');
const rateSchema = z.number().int().min(1).max(100_000);

const createSchema = z.object({
  name: nameSchema,
  scopes: scopesSchema,
  actorUserId: z.number().int().positive().nullish(),
  rateLimitPerMinute: rateSchema.nullish(),
});
const updateSchema = z.object({
  name: nameSchema.nullish(),
  scopes: scopesSchema.nullish(),
  actorUserId: z.number().int().positive().nullish(),
  // Unlike the other fields, null is a value here: no limit of its own, the deployment's default applies.
  rateLimitPerMinute: rateSchema.nullish(),
});

type Query = { include?: Prisma.ApiClientInclude; select?: Prisma.ApiClientSelect };

export const apiClientService = {
  list(ctx: Context, query: Query & Prisma.ApiClientFindManyArgs) {
    return ctx.tx((tx) => tx.apiClient.findMany({ ...query, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }));
  },

  async get(ctx: Context, clientId: string, query: Query = {}) {
    const row = await ctx.tx((tx) => tx.apiClient.findUnique({ ...query, where: { clientId } }));
    if (!row) throw notFound('API client');
    return row;
  },

  /** The row a mutation just wrote, loaded with the caller's selection (a payload's `apiClient`). */
  byId(ctx: Context, id: number, query: Query = {}) {
    return ctx.tx((tx) => tx.apiClient.findUniqueOrThrow({ ...query, where: { id } }));
  },

  /** The agent a key was just issued to, loaded with the caller's selection. */
  agentById(ctx: Context, id: number, query: Omit<Prisma.UserFindUniqueArgs, 'where'> = {}) {
    return ctx.tx((tx) => tx.user.findUniqueOrThrow({ ...query, where: { id } }));
  },

  /** The secret is returned once, here; only its scrypt hash is kept. */
  async create(ctx: Context, input: unknown) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'api_clients.manage');
    const data = parseInput(createSchema, input);
    const secret = newSecret('bgs');
    const secretHash = await hashSecret(secret);
    const row = await ctx.tx(async (tx) => {
      if (data.actorUserId != null) await assertActiveUser(tx, data.actorUserId, 'actorUserId');
      const created = await tx.apiClient.create({
        data: {
          tenantId: p.tenant.id,
          clientId: newPublicId('bgc'),
          name: data.name,
          secretHash,
          scopes: data.scopes,
          actorUserId: data.actorUserId ?? null,
          createdByUserId: authorUserId(p, actor),
          // null: no limit of its own; the deployment's default (config.rateLimitPerMinute) applies, and follows it.
          rateLimitPerMinute: data.rateLimitPerMinute ?? null,
        },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'api_client.created',
        entityType: 'api_client',
        entityId: created.clientId,
        changes: {
          name: created.name,
          scopes: created.scopes,
          actor_user_id: created.actorUserId,
          rate_limit_per_minute: created.rateLimitPerMinute,
        },
      });
      return created;
    });
    return { apiClient: row, clientSecret: secret };
  },

  async update(ctx: Context, clientId: string, input: unknown) {
    const p = ctx.principal!;
    requireAbility(p, 'api_clients.manage');
    const data = parseInput(updateSchema, input);
    const row = await ctx.tx(async (tx) => {
      const before = await tx.apiClient.findUnique({ where: { clientId } });
      if (!before) throw notFound('API client');
      if (data.actorUserId != null) await assertActiveUser(tx, data.actorUserId, 'actorUserId');
      const patch = {
        name: data.name ?? undefined,
        scopes: data.scopes ?? undefined,
        actorUserId: data.actorUserId ?? undefined,
        rateLimitPerMinute: data.rateLimitPerMinute,
      };
      const after = await tx.apiClient.update({ where: { id: before.id }, data: patch });
      const changes = diffFields(before as unknown as Record<string, unknown>, patch);
      if (Object.keys(changes).length) {
        await recordAudit(ctx, tx, p.tenant.id, {
          action: 'api_client.updated',
          entityType: 'api_client',
          entityId: clientId,
          changes,
        });
      }
      return after;
    });
    await principalsHeard(ctx);
    return row;
  },

  /** The old secret keeps working for `graceHours` (default from config) so integrations can roll without downtime. */
  async rotateSecret(ctx: Context, clientId: string, graceHours?: number | null) {
    const p = ctx.principal!;
    requireAbility(p, 'api_clients.manage');
    // Parsed as a named field so a refusal says which one (`graceHours`, `grace_hours` over REST).
    const grace =
      parseInput(z.object({ graceHours: z.number().int().min(0).max(168).nullish() }), { graceHours }).graceHours ??
      ctx.app.config.secretRotationGraceHours;
    const secret = newSecret('bgs');
    const secretHash = await hashSecret(secret);
    const row = await ctx.tx(async (tx) => {
      const before = await tx.apiClient.findUnique({ where: { clientId } });
      if (!before || before.revokedAt) throw notFound('API client');
      const now = new Date();
      const after = await tx.apiClient.update({
        where: { id: before.id },
        data: {
          secretHash,
          previousSecretHash: grace > 0 ? before.secretHash : null,
          previousSecretExpiresAt: grace > 0 ? new Date(now.getTime() + grace * 3_600_000) : null,
          secretRotatedAt: now,
        },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'api_client.secret_rotated',
        entityType: 'api_client',
        entityId: clientId,
        changes: { previous_secret_valid_until: after.previousSecretExpiresAt?.toISOString() ?? null },
      });
      return after;
    });
    await principalsHeard(ctx);
    return { apiClient: row, clientSecret: secret };
  },

  /** Revocation is immediate: the client's tokens stop working on their next call. */
  async revoke(ctx: Context, clientId: string) {
    const p = ctx.principal!;
    requireAbility(p, 'api_clients.manage');
    const row = await ctx.tx(async (tx) => {
      const before = await tx.apiClient.findUnique({ where: { clientId } });
      if (!before) throw notFound('API client');
      if (before.revokedAt) return before;
      if (before.id === p.apiClient.id) throw new AppError('domain_rule', { detail: 'A client cannot revoke itself' });
      const now = new Date();
      const after = await tx.apiClient.update({ where: { id: before.id }, data: { revokedAt: now } });
      await tx.accessToken.updateMany({ where: { apiClientId: before.id, revokedAt: null }, data: { revokedAt: now } });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'api_client.revoked',
        entityType: 'api_client',
        entityId: clientId,
      });
      return after;
    });
    await principalsHeard(ctx);
    return row;
  },

  /** Issues (or replaces) an agent's key for X-Agent-Key; returned once, kept as SHA-256 (it is 256 random bits). */
  async issueAgentKey(ctx: Context, userId: number) {
    const p = ctx.principal!;
    requireAbility(p, 'agents.manage');
    const key = newSecret('bak');
    const agent = await ctx.tx(async (tx) => {
      const user = await tx.user.findUnique({ where: { id: userId } });
      if (!user) throw notFound('User');
      if (user.role !== 'agent' || !user.agentCode) {
        throw new AppError('domain_rule', {
          detail: 'Agent keys are issued to users with the agent role and an agent code',
        });
      }
      const updated = await tx.user.update({
        where: { id: user.id },
        data: { agentKeyHash: sha256Hex(key), agentKeyIssuedAt: new Date() },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'agent.key_issued',
        entityType: 'user',
        entityId: user.id,
        changes: { agent_code: user.agentCode },
      });
      return updated;
    });
    await principalsHeard(ctx);
    return { agent, agentKey: key };
  },
};

/**
 * Keys, scopes, secrets and agent keys are what cached principals are made of (src/auth/auth-source.ts): a trigger
 * drops them in every process at commit, and the change answers only once this process has heard that, so the
 * caller's next request cannot be served from the old principal.
 */
function principalsHeard(ctx: Context): Promise<void> {
  return ctx.afterCommit(() => ctx.app.caches.sync());
}

async function assertActiveUser(tx: Prisma.TransactionClient, userId: number, field: string) {
  const u = await tx.user.findUnique({ where: { id: userId } });
  if (!u || u.disabled) {
    throw new ValidationError([{ field, message: 'no active user with this id in your organisation' }]);
  }
}
