import type { AppServices } from '../../context.ts';
import { PING_EVENT } from '../events/catalogue.ts';
import { afterAttempt, canAttempt, type DeliveryStatus } from './delivery-state.ts';
import { decryptSecret, masterKey } from '../../lib/secret-box.ts';
import { envelopeBody, envelopeHeaders } from './envelope.ts';
import { postWebhook } from './egress.ts';
import { webhookReach } from './url-guard.ts';

export interface AttemptResult {
  /** `skipped`: nothing to do (already delivered or failed, not yet due, or another worker holds it). */
  outcome: DeliveryStatus | 'skipped';
  nextAttemptAt: Date | null;
}

/** How the one HTTP call of an attempt went, as the attempt row records it. */
interface Sent {
  attemptedAt: Date;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * One attempt of one delivery. Idempotent: a duplicate or late job finds the delivery delivered, failed, not yet
 * due, or leased by another worker, and does nothing. The HTTP call runs outside any transaction.
 */
export async function attemptDelivery(
  app: AppServices,
  deliveryId: string,
  now = () => new Date(),
): Promise<AttemptResult> {
  const claimed = await claimDelivery(app, deliveryId, now);
  if (!claimed) return { outcome: 'skipped', nextAttemptAt: null };
  const sent = await send(app, deliveryId, claimed, now);
  const { attempt, ...r } = await recordAttempt(app, deliveryId, sent, now);
  if (attempt !== undefined) app.metrics.webhookAttempt(r.outcome, attempt);
  return r;
}

/** Leases a due delivery to this worker for longer than one call can take; null when it is not ours to attempt. */
async function claimDelivery(app: AppServices, deliveryId: string, now: () => Date) {
  return app.db.system(async (tx) => {
    const start = now();
    const lease = new Date(start.getTime() + app.config.webhookTimeoutMs + 30_000);
    const n = await tx.webhookDelivery.updateMany({
      where: {
        id: deliveryId,
        status: { in: ['pending', 'retry_scheduled'] },
        // A retry job may run a moment early (clock skew between processes), never minutes early.
        OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: new Date(start.getTime() + 5_000) } }],
        AND: [{ OR: [{ leaseUntil: null }, { leaseUntil: { lt: start } }] }],
      },
      data: { leaseUntil: lease },
    });
    if (!n.count) return null;
    return tx.webhookDelivery.findUniqueOrThrow({
      where: { id: deliveryId },
      include: { event: true, endpoint: true, tenant: true },
    });
  });
}

type Claimed = NonNullable<Awaited<ReturnType<typeof claimDelivery>>>;

/** The signed POST, outside any transaction; signed with the previous secret too while a rotation's overlap lasts. */
async function send(app: AppServices, deliveryId: string, claimed: Claimed, now: () => Date): Promise<Sent> {
  const { event, endpoint, tenant } = claimed;
  const body = envelopeBody(event, tenant);
  const key = masterKey(app.config);
  const attemptedAt = now();
  const secrets = [decryptSecret(key, endpoint.secretEnc, endpoint.id)];
  if (
    endpoint.previousSecretEnc &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt > attemptedAt
  ) {
    secrets.push(decryptSecret(key, endpoint.previousSecretEnc, endpoint.id));
  }
  const t = Math.floor(attemptedAt.getTime() / 1000);
  const started = performance.now();
  // Disabling an endpoint stops what is already scheduled too (a test ping is sent anyway: the user asked for it).
  if (!endpoint.enabled && event.name !== PING_EVENT) {
    const durationMs = Math.round(performance.now() - started);
    return { attemptedAt, statusCode: null, responseExcerpt: null, error: 'endpoint disabled', durationMs };
  }
  const res = await postWebhook({
    url: endpoint.url,
    body,
    timeoutMs: app.config.webhookTimeoutMs,
    reach: webhookReach(app.config, tenant.sandbox),
    headers: envelopeHeaders(event, secrets, t, body),
  });
  // The tenant sees only the safe message; the detail (addresses, ports, host names) stays in our log.
  if (res.detail)
    app.log.warn(
      { err: res.detail, delivery_id: deliveryId, endpoint_id: endpoint.id, tenant: tenant.code, error: res.error },
      'webhook attempt failed',
    );
  const durationMs = Math.round(performance.now() - started);
  return { attemptedAt, statusCode: res.statusCode, responseExcerpt: res.excerpt, error: res.error, durationMs };
}

/** The attempt and the delivery's next state, unless the delivery moved on while the call was out (then skipped). */
async function recordAttempt(
  app: AppServices,
  deliveryId: string,
  sent: Sent,
  now: () => Date,
): Promise<AttemptResult & { attempt?: number }> {
  return app.db.system(async (tx) => {
    const current = await tx.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
    if (!canAttempt(current)) return { outcome: 'skipped' as const, nextAttemptAt: null };
    const next = afterAttempt(current, sent.error === null, now());
    await tx.webhookAttempt.create({
      data: {
        tenantId: current.tenantId,
        deliveryId,
        number: next.attemptCount,
        scheduledAt: current.nextAttemptAt ?? current.createdAt,
        attemptedAt: sent.attemptedAt,
        statusCode: sent.statusCode,
        durationMs: sent.durationMs,
        responseExcerpt: sent.responseExcerpt,
        error: sent.error,
      },
    });
    await tx.webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        status: next.status,
        attemptCount: next.attemptCount,
        nextAttemptAt: next.nextAttemptAt,
        leaseUntil: null,
        deliveredAt: next.deliveredAt,
        failedAt: next.failedAt,
      },
    });
    return { outcome: next.status, nextAttemptAt: next.nextAttemptAt, attempt: next.attemptCount };
  });
}
