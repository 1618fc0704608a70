import { webhookService } from '../modules/webhooks/webhook.service.ts';
import { type Command, type CommandGroup, int, required, str, table, type Values, ORG } from './command.ts';
import type { Runtime } from './runtime.ts';

/** How many of an endpoint's latest deliveries are looked at (the service's page limit). */
const RECENT = 100;

async function list(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const endpoints = await webhookService.list(ctx);
  const json = [];
  for (const e of endpoints) {
    const recent = await webhookService.deliveries(ctx, e.id, RECENT);
    const failed = recent.filter((d) => d.status === 'failed');
    json.push({
      id: e.id,
      url: e.url,
      enabled: e.enabled,
      events: e.events,
      recent_deliveries: recent.length,
      failed: failed.length,
      pending: recent.filter((d) => d.status === 'pending' || d.status === 'retry_scheduled').length,
      last_failure_at: failed[0]?.failedAt?.toISOString() ?? null,
    });
  }
  return { json, text: table(json, ['id', 'url', 'enabled', 'failed', 'pending', 'last_failure_at']) };
}

/**
 * Every failed delivery among an endpoint's latest (or of every endpoint, or the one named) goes again at once
 * through the webhooks service's manual retry: the same delivery and event id, one attempt, picked up by the running
 * service's dispatcher.
 */
async function resend(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const one = str(v, 'delivery');
  let ids: string[];
  if (one) ids = [one];
  else {
    const only = str(v, 'endpoint');
    const endpoints = only ? [await webhookService.get(ctx, only)] : await webhookService.list(ctx);
    const limit = int(v, 'limit') ?? RECENT;
    ids = [];
    for (const e of endpoints) {
      const recent = await webhookService.deliveries(ctx, e.id, Math.min(Math.max(limit, 1), RECENT));
      ids.push(...recent.filter((d) => d.status === 'failed').map((d) => d.id));
    }
  }
  const resent = [];
  for (const id of ids) {
    const d = await webhookService.retry(ctx, id);
    resent.push({ id: d.id, endpoint_id: d.endpointId, event_id: d.eventId, status: d.status });
  }
  return { json: { resent }, text: `${resent.length} failed deliver${resent.length === 1 ? 'y' : 'ies'} re-sent` };
}

const commands: Command[] = [
  {
    name: 'list',
    summary: `list webhook endpoints with their recent failures (last ${RECENT} deliveries each)`,
    options: { org: ORG },
    run: list,
  },
  {
    name: 'resend',
    summary: 'send failed deliveries again (all endpoints, one endpoint, or one delivery)',
    options: {
      org: ORG,
      endpoint: { type: 'string', arg: '<endpoint id>', description: "only this endpoint's failed deliveries" },
      delivery: { type: 'string', arg: '<delivery id>', description: 'only this failed delivery' },
      limit: { type: 'string', arg: '<n>', description: `latest deliveries looked at per endpoint (max ${RECENT})` },
    },
    run: resend,
  },
];

export const webhooks: CommandGroup = { name: 'webhooks', summary: 'webhook endpoints and deliveries', commands };
