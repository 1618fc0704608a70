import { setTimeout as sleep } from 'node:timers/promises';
import { newSecret } from '../lib/crypto.ts';
import { isCatalogueEvent } from '../modules/events/catalogue.ts';
import { envelopeBody, envelopeHeaders } from '../modules/webhooks/envelope.ts';
import { webhookService } from '../modules/webhooks/webhook.service.ts';
import {
  type Command,
  type CommandGroup,
  int,
  list as listOf,
  required,
  str,
  table,
  UsageError,
  type Values,
  ORG,
} from './command.ts';
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

/** How far behind its last event `listen` looks again: an event whose transaction committed late is still seen. */
const LISTEN_OVERLAP_MS = 10_000;
const LISTEN_POLL_MS = 250;
/** Events read per look; a full page is followed at once by the next, from its newest event. */
const LISTEN_PAGE = 500;
const FORWARD_TIMEOUT_MS = 10_000;

/**
 * Like `stripe listen --forward-to`: the organisation's events from now on, each POSTed to a local URL exactly as a
 * delivery sends it (the same envelope bytes and headers, signed with a secret of this session, printed at start),
 * with the answer's status and latency printed per event. Reads the event log (the outbox) every 250 ms; runs until
 * Ctrl-C, or `--max` events.
 */
async function listen(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const url = URL.parse(required(v, 'forward-to'));
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new UsageError('--forward-to: an absolute http:// or https:// URL');
  }
  const events = listOf(v, 'events');
  const unknown = events.filter((e) => e !== '*' && !isCatalogueEvent(e));
  if (unknown.length) throw new UsageError(`--events: not in the catalogue: ${unknown.join(', ')}`);
  const wanted = (name: string) => !events.length || events.includes('*') || events.includes(name);
  const max = int(v, 'max');
  const secret = str(v, 'secret') ?? newSecret('whsec');
  const json = v.json === true;
  const say = (line: string) => {
    if (!json) process.stdout.write(`${line}\n`);
  };
  let stop = false;
  const onSignal = () => (stop = true);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const tenant = ctx.principal!.tenant;
  say(
    `Ready! Forwarding ${tenant.code}'s ${events.length ? events.join(', ') : 'events'} to ${url.href}. ` +
      `Your webhook signing secret is ${secret} (^C to quit)`,
  );
  const forwarded: { event_id: string; event: string; status: number | null; ms: number; error: string | null }[] = [];
  /** Ids forwarded or passed over, with their time: forgotten once older than the window looks back. */
  const seen = new Map<string, number>();
  const startedAt = new Date();
  let since = startedAt;
  let full = false;
  try {
    while (!stop && (max === undefined || forwarded.length < max)) {
      // Behind the newest event seen by the overlap, except straight after a full page (paging forward then).
      const from = new Date(since.getTime() - (full ? 0 : LISTEN_OVERLAP_MS));
      const rows = await webhookService.eventsSince(ctx, from, LISTEN_PAGE);
      full = rows.length === LISTEN_PAGE;
      for (const e of rows) {
        // Events from before the session started are not forwarded; ids already forwarded are skipped.
        if (seen.has(e.id) || e.createdAt < startedAt) continue;
        seen.set(e.id, e.createdAt.getTime());
        if (!wanted(e.name)) continue;
        const body = envelopeBody(e, tenant);
        const headers = envelopeHeaders(e, [secret], Math.floor(Date.now() / 1000), body);
        say(`${new Date().toISOString()}  --> ${e.name} [${e.id}]`);
        const started = performance.now();
        let status: number | null = null;
        let error: string | null = null;
        try {
          const res = await fetch(url, {
            method: 'POST',
            body,
            headers,
            redirect: 'manual',
            signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
          });
          status = res.status;
          await res.body?.cancel();
        } catch (err) {
          error = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
        }
        const ms = Math.round(performance.now() - started);
        say(
          `${new Date().toISOString()}  <-- [${status ?? 'ERR'}] POST ${url.href} (${ms} ms)${error ? ` ${error}` : ''}`,
        );
        forwarded.push({ event_id: e.id, event: e.name, status, ms, error });
        if (max !== undefined && forwarded.length >= max) break;
      }
      // The window moves with the newest event seen, less the overlap; ids already forwarded are skipped.
      const newest = rows.at(-1)?.createdAt;
      const advanced = !!newest && newest > since;
      if (advanced) since = newest;
      for (const [id, at] of seen) if (at < since.getTime() - 2 * LISTEN_OVERLAP_MS) seen.delete(id);
      if (!(full && advanced) && !stop && (max === undefined || forwarded.length < max)) await sleep(LISTEN_POLL_MS);
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  return {
    json: { secret, forward_to: url.href, forwarded },
    text: `${forwarded.length} event${forwarded.length === 1 ? '' : 's'} forwarded`,
  };
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
  {
    name: 'listen',
    summary: "forward the organisation's events, signed as deliveries are, to a local URL (like stripe listen)",
    details:
      'Prints a signing secret for this session, then each event as it happens: --> name [id], and the answer of ' +
      'the URL: <-- [status] POST url (latency). Runs until Ctrl-C, or --max events.',
    ownProcess: 'runs until Ctrl-C',
    options: {
      org: ORG,
      'forward-to': { type: 'string', arg: '<url>', description: 'where to POST each event', required: true },
      events: { type: 'string', arg: '<a,b,...>', description: 'only these events (default: every event)' },
      secret: { type: 'string', arg: '<whsec_...>', description: 'sign with this secret (default: a new one)' },
      max: { type: 'string', arg: '<n>', description: 'stop after forwarding n events' },
    },
    run: listen,
  },
];

export const webhooks: CommandGroup = { name: 'webhooks', summary: 'webhook endpoints and deliveries', commands };
