import { requireAbility } from '../../auth/principal.ts';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { newSecret } from '../../lib/crypto.ts';
import { AppError, notFound, ValidationError } from '../../lib/problem.ts';
import { parseInput } from '../../lib/validate.ts';
import { diffFields, recordAudit } from '../audit/audit.service.ts';
import { isCatalogueEvent, PING_EVENT } from '../events/catalogue.ts';
import { emitEvent, signalOutbox } from '../events/event.service.ts';
import { InvalidTransition, manualRetry } from './delivery-state.ts';
import { encryptSecret, masterKey } from '../../lib/secret-box.ts';
import { refuseUrl, webhookReach } from './url-guard.ts';

const eventsSchema = z
  .array(
    z
      .string()
      .refine((n) => n === '*' || isCatalogueEvent(n), 'not an event of the catalogue (GET /events/catalogue) nor *'),
  )
  .min(1, 'at least one event name, or *')
  .transform((s) => [...new Set(s)].sort());
const urlSchema = z.string().trim().min(1, 'required').max(2000, 'at most 2000 characters');
const descriptionSchema = z.string().trim().max(500, 'at most 500 characters');

const createSchema = z.object({ url: urlSchema, events: eventsSchema, description: descriptionSchema.nullish() });
const updateSchema = z.object({
  url: urlSchema.nullish(),
  events: eventsSchema.nullish(),
  enabled: z.boolean().nullish(),
  description: descriptionSchema.nullish(),
});

async function checkUrl(ctx: Context, url: string): Promise<void> {
  const { sandbox } = await ctx.tx((tx) =>
    tx.tenant.findUniqueOrThrow({ where: { id: ctx.principal!.tenant.id }, select: { sandbox: true } }),
  );
  const why = await refuseUrl(url, webhookReach(ctx.app.config, sandbox));
  if (why) throw new ValidationError([{ field: 'url', message: why }]);
}

/**
 * The endpoint, or 404. Writers pass `lock`: the row stays locked until their transaction ends, so an update, a
 * rotation and a delete of one endpoint run one after the other, and the later one sees what the earlier did (a
 * deleted endpoint: 404, never the update's "record not found" 500).
 */
async function findEndpoint(tx: Tx, id: string, lock = false) {
  // Ids are UUIDs: anything else cannot exist (and must not reach PostgreSQL as a malformed uuid).
  if (!z.uuid().safeParse(id).success) throw notFound('Webhook endpoint');
  if (lock) await tx.$queryRaw`SELECT id FROM webhook_endpoints WHERE id = ${id}::uuid FOR UPDATE`;
  const row = await tx.webhookEndpoint.findUnique({ where: { id } });
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

const auditView = (e: { url: string; events: string[]; enabled: boolean; description: string | null }) => ({
  url: e.url,
  events: e.events,
  enabled: e.enabled,
  description: e.description,
});

export const webhookService = {
  list(ctx: Context) {
    return ctx.tx((tx) => tx.webhookEndpoint.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] }));
  },

  get(ctx: Context, id: string) {
    return ctx.tx((tx) => findEndpoint(tx, id));
  },

  /** The endpoint a mutation just wrote, loaded with the caller's selection (a payload's `endpoint`). */
  byId(ctx: Context, id: string, query: Omit<Prisma.WebhookEndpointFindUniqueArgs, 'where'> = {}) {
    return ctx.tx((tx) => tx.webhookEndpoint.findUniqueOrThrow({ ...query, where: { id } }));
  },

  /**
   * The organisation's events created at or after `since`, oldest first, at most `limit`: what `npm run admin --
   * webhooks listen` forwards (it looks a little behind its last event, and skips the ids it has forwarded).
   */
  eventsSince(ctx: Context, since: Date, limit: number) {
    return ctx.tx((tx) =>
      tx.event.findMany({
        where: { createdAt: { gte: since } },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: limit,
        select: { id: true, name: true, data: true, createdAt: true },
      }),
    );
  },

  /** The signing secret is returned here once; only its ciphertext is kept. */
  async create(ctx: Context, input: unknown) {
    const p = ctx.principal!;
    requireAbility(p, 'webhooks.manage');
    const data = parseInput(createSchema, input);
    await checkUrl(ctx, data.url);
    const id = randomUUID();
    const secret = newSecret('whsec');
    const endpoint = await ctx.tx(async (tx) => {
      const row = await tx.webhookEndpoint.create({
        data: {
          id,
          tenantId: p.tenant.id,
          url: data.url,
          events: data.events,
          description: data.description ?? null,
          secretEnc: encryptSecret(masterKey(ctx.app.config), secret, id),
        },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'webhook_endpoint.created',
        entityType: 'webhook_endpoint',
        entityId: id,
        changes: auditView(row),
      });
      return row;
    });
    return { endpoint, secret };
  },

  async update(ctx: Context, id: string, input: unknown) {
    const p = ctx.principal!;
    requireAbility(p, 'webhooks.manage');
    const data = parseInput(updateSchema, input);
    if (data.url != null) await checkUrl(ctx, data.url);
    return ctx.tx(async (tx) => {
      const before = await findEndpoint(tx, id, true);
      const patch = {
        url: data.url ?? undefined,
        events: data.events ?? undefined,
        enabled: data.enabled ?? undefined,
        description: data.description ?? undefined,
      };
      const after = await tx.webhookEndpoint.update({ where: { id }, data: patch });
      const changes = diffFields(before as unknown as Record<string, unknown>, patch);
      if (Object.keys(changes).length)
        await recordAudit(ctx, tx, p.tenant.id, {
          action: 'webhook_endpoint.updated',
          entityType: 'webhook_endpoint',
          entityId: id,
          changes,
        });
      return after;
    });
  },

  /** Deleting an endpoint removes its delivery log with it (attempts of a deleted endpoint have no one to go to). */
  async remove(ctx: Context, id: string) {
    const p = ctx.principal!;
    requireAbility(p, 'webhooks.manage');
    return ctx.tx(async (tx) => {
      const before = await findEndpoint(tx, id, true);
      await tx.webhookEndpoint.delete({ where: { id } });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'webhook_endpoint.deleted',
        entityType: 'webhook_endpoint',
        entityId: id,
        changes: auditView(before),
      });
      return before;
    });
  },

  /** The previous secret keeps signing (a second `v1`) for the grace period so receivers can roll without gaps. */
  async rotateSecret(ctx: Context, id: string, graceHours?: number | null) {
    const p = ctx.principal!;
    requireAbility(p, 'webhooks.manage');
    const grace =
      parseInput(z.object({ graceHours: z.number().int().min(0).max(168).nullish() }), { graceHours }).graceHours ??
      ctx.app.config.secretRotationGraceHours;
    const secret = newSecret('whsec');
    const endpoint = await ctx.tx(async (tx) => {
      const before = await findEndpoint(tx, id, true);
      const now = new Date();
      const after = await tx.webhookEndpoint.update({
        where: { id },
        data: {
          secretEnc: encryptSecret(masterKey(ctx.app.config), secret, id),
          previousSecretEnc: grace > 0 ? before.secretEnc : null,
          previousSecretExpiresAt: grace > 0 ? new Date(now.getTime() + grace * 3_600_000) : null,
          secretRotatedAt: now,
        },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'webhook_endpoint.secret_rotated',
        entityType: 'webhook_endpoint',
        entityId: id,
        changes: { previous_secret_valid_until: after.previousSecretExpiresAt?.toISOString() ?? null },
      });
      return after;
    });
    return { endpoint, secret };
  },

  /** `ping` to this endpoint only, whatever it subscribes to (and even when disabled: the user asked for it). */
  async sendTest(ctx: Context, id: string, message?: string | null) {
    const p = ctx.principal!;
    requireAbility(p, 'webhooks.manage');
    const msg = parseInput(z.object({ message: z.string().trim().min(1).max(500).nullish() }), { message }).message;
    return ctx.tx(async (tx) => {
      await findEndpoint(tx, id);
      const sentBy = p.actor?.name ?? p.apiClient.name;
      const event = await emitEvent(
        ctx,
        tx,
        p.tenant.id,
        PING_EVENT,
        { message: msg ?? 'Test event from Bima Gateway', sent_by: sentBy },
        { dispatch: false },
      );
      const delivery = await tx.webhookDelivery.create({
        data: { id: randomUUID(), tenantId: p.tenant.id, eventId: event.id, endpointId: id, nextAttemptAt: new Date() },
      });
      await signalOutbox(tx, { kind: 'delivery', id: delivery.id });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'webhook_endpoint.test_sent',
        entityType: 'webhook_endpoint',
        entityId: id,
        changes: { event_id: event.id },
      });
      return delivery;
    });
  },

  async deliveries(ctx: Context, endpointId: string, limit?: number | null) {
    const take = parseInput(z.object({ limit: z.number().int().min(1).max(100).nullish() }), { limit }).limit ?? 25;
    return ctx.tx(async (tx) => {
      await findEndpoint(tx, endpointId);
      return tx.webhookDelivery.findMany({
        where: { endpointId },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take,
      });
    });
  },

  /** A failed delivery goes again, at once, with the same delivery id and event id (Service-Delivery). */
  async retry(ctx: Context, deliveryId: string) {
    const p = ctx.principal!;
    requireAbility(p, 'webhooks.manage');
    if (!z.uuid().safeParse(deliveryId).success) throw notFound('Webhook delivery');
    return ctx.tx(async (tx) => {
      const rows = await tx.$queryRaw<
        { id: string }[]
      >`SELECT id FROM webhook_deliveries WHERE id = ${deliveryId}::uuid FOR UPDATE`;
      const before = rows.length ? await tx.webhookDelivery.findUnique({ where: { id: deliveryId } }) : null;
      if (!before) throw notFound('Webhook delivery');
      let next;
      try {
        next = manualRetry(before, new Date());
      } catch (e) {
        if (e instanceof InvalidTransition) throw new AppError('domain_rule', { detail: e.message });
        throw e;
      }
      const after = await tx.webhookDelivery.update({
        where: { id: deliveryId },
        data: {
          status: next.status,
          cycleStart: next.cycleStart,
          nextAttemptAt: next.nextAttemptAt,
          failedAt: null,
          leaseUntil: null,
        },
      });
      await signalOutbox(tx, { kind: 'delivery', id: deliveryId });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'webhook_delivery.retried',
        entityType: 'webhook_delivery',
        entityId: deliveryId,
        changes: { event_id: before.eventId },
      });
      return after;
    });
  },
};
