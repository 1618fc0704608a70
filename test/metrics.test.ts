import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../jobs/queues.ts';
import { WebhookReceiver } from './helpers/webhook-receiver.ts';
import { expectProblem, INSTANT_RAIL, PHONES, useKit, waitFor, wsClient } from './kit.ts';

// A real server with its job runner (rails, webhooks) and METRICS_TOKEN set; every figure is read from GET /metrics.
const TOKEN = `mt_${randomBytes(18).toString('base64url')}`;
const t = useKit({ ...INSTANT_RAIL, metricsToken: TOKEN }, { jobs: true });
const o = t.useOrg({ fast: true });

const receivers: WebhookReceiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.stop())));

async function scrape(): Promise<string> {
  const r = await fetch(`${t.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return text;
}

/** The sum of the samples of `name` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) sum = (sum ?? 0) + Number(m[3]);
  }
  return sum;
}

/** How much a sample grew while `fn` ran (0 when it did not appear). */
async function growth(name: string, labels: Record<string, string>, fn: () => Promise<unknown>): Promise<number> {
  const before = sample(await scrape(), name, labels) ?? 0;
  await fn();
  return (sample(await scrape(), name, labels) ?? 0) - before;
}

describe('GET /metrics', () => {
  it('counts REST requests by route template and status, never by raw path', async () => {
    const uuid = randomUUID();
    const route = { method: 'GET', route: '/api/v1/policies/{uuid}', status: '404' };
    const grew = await growth('bima_http_requests_total', route, async () => {
      expectProblem(await o.as('staff').get(`/policies/${uuid}`), 404, 'not_found');
      expectProblem(await o.as('staff').get(`/policies/${randomUUID()}`), 404, 'not_found');
    });
    expect(grew).toBe(2);
    const text = await scrape();
    expect(text).not.toContain(uuid);
    expect(sample(text, 'bima_http_request_duration_seconds_count', { route: '/api/v1/policies/{uuid}' })).toBe(2);
    expect(sample(text, 'bima_http_requests_total', { route: '/api/v1/me', status: '200' })).toBeUndefined();
    expect((await o.as('staff').get('/me')).status).toBe(200);
    expect(sample(await scrape(), 'bima_http_requests_total', { route: '/api/v1/me', status: '200' })).toBe(1);
  });

  it('labels unknown paths `other` and callback paths without their token', async () => {
    const junk = `/no-such-${randomUUID()}`;
    const grew = await growth('bima_http_requests_total', { route: 'other', status: '404' }, async () => {
      expect((await fetch(`${t.origin}${junk}`)).status).toBe(404);
    });
    expect(grew).toBe(1);
    const token = `cb_${randomBytes(12).toString('hex')}`;
    const r = await fetch(`${t.origin}/api/v1/payment/callback/mpesa/${token}`, { method: 'POST', body: '{}' });
    expect(r.status).toBeGreaterThanOrEqual(400);
    const text = await scrape();
    expect(text).not.toContain(junk);
    expect(text).not.toContain(token);
    const callback = { route: '/api/v1/payment/callback/mpesa/{callback_token}', status: String(r.status) };
    expect(sample(text, 'bima_http_requests_total', callback)).toBe(1);
  });

  it('counts GraphQL operations by type, name and outcome', async () => {
    const ok = { type: 'query', operation: 'MetricsMe', outcome: 'ok' };
    const failed = { type: 'query', operation: 'MetricsBroken', outcome: 'error' };
    const before = await scrape();
    expect((await o.as('staff').gql('query MetricsMe { me { scopes } }')).body.errors).toBeUndefined();
    expect((await o.as('staff').gql('query MetricsMe { me { scopes } }')).body.errors).toBeUndefined();
    expect((await o.as('staff').gql('query MetricsBroken { noSuchField }')).body.errors).toHaveLength(1);
    const after = await scrape();
    expect(
      (sample(after, 'bima_graphql_operations_total', ok) ?? 0) -
        (sample(before, 'bima_graphql_operations_total', ok) ?? 0),
    ).toBe(2);
    expect(sample(after, 'bima_graphql_operations_total', failed)).toBe(1);
    expect(
      sample(after, 'bima_http_requests_total', { method: 'POST', route: '/graphql', status: '200' }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('counts a subscription over WebSocket once, when its stream starts or is refused', async () => {
    const query = 'subscription MetricsAudit { auditLogged { action } }';
    const count = async (outcome: string) =>
      sample(await scrape(), 'bima_graphql_operations_total', {
        type: 'subscription',
        operation: 'MetricsAudit',
        outcome,
      }) ?? 0;
    const sink = { next: () => undefined, error: () => undefined, complete: () => undefined };
    // The admin key may hold the audit feed; the agent key may not (its subscription is refused).
    for (const [role, outcome] of [
      ['admin', 'ok'],
      ['agent', 'error'],
    ] as const) {
      const client = wsClient(t.origin, o.tokens[role]);
      try {
        const before = await count(outcome);
        client.subscribe({ query }, sink);
        await waitFor(
          `the ${role}'s subscription to be counted`,
          () => count(outcome),
          (n) => n === before + 1,
        );
      } finally {
        await client.dispose();
      }
    }
  });

  it("counts an STK payment's result by its code, once", async () => {
    const pol = await o.pendingPolicy();
    const amount = Math.ceil(pol.debit_note.instalments[0].amount_minor / 100);
    const failed = { result_code: '1032', outcome: 'failed' };
    const grewFailed = await growth('bima_payments_total', failed, async () => {
      const push = await o.push({ phone: PHONES.cancelled, amount, account: pol.policy_no });
      expect(push.status, push.text).toBe(202);
      const id: string = push.body.data.checkout_request_id;
      expect((await o.settled(id)).body.data.status).toBe('failed');
      await o.callbackProcessed(id);
    });
    expect(grewFailed).toBe(1);
    const settled = { result_code: '0', outcome: 'settled' };
    const grewSettled = await growth('bima_payments_total', settled, () =>
      o.pay(pol.policy_no, pol.debit_note.instalments[0].amount_minor),
    );
    expect(grewSettled).toBe(1);
    // The simulated rail's prompts are pg-boss jobs: their outcome is counted per queue, once the job has
    // returned, which is a moment after its callback was heard (so waited for, not read at once).
    await waitFor(
      "both prompts' jobs to be counted",
      async () =>
        sample(await scrape(), 'bima_jobs_total', {
          queue: QUEUES.mpesaSimResolve.name,
          outcome: 'completed',
        }) ?? 0,
      (n) => n >= 2,
    );
  });

  it('counts webhook deliveries by outcome and attempt number', async () => {
    const rx = await new WebhookReceiver().start();
    receivers.push(rx);
    const created = await o.as('staff').post('/webhooks/endpoints', {
      idempotencyKey: randomUUID(),
      body: { url: rx.url, events: ['claim.sla_breached'] }, // nothing in this file raises it: only the ping arrives
    });
    expect(created.status, created.text).toBe(201);
    const labels = { outcome: 'delivered', attempt: '1' };
    const before = sample(await scrape(), 'bima_webhook_attempts_total', labels) ?? 0;
    const sent = await o.as('staff').post(`/webhooks/endpoints/${created.body.data.id}/test`, {
      idempotencyKey: randomUUID(),
      body: { message: 'metrics' },
    });
    expect(sent.status, sent.text).toBe(202);
    await rx.waitFor(() => rx.received.length > 0);
    // Counted once the attempt is recorded, a moment after the receiver answered.
    await waitFor(
      'the delivered attempt to be counted',
      async () => sample(await scrape(), 'bima_webhook_attempts_total', labels) ?? 0,
      (n) => n === before + 1,
    );
  });

  it('shows every queue, the database pool and the process', async () => {
    const text = await scrape();
    for (const q of Object.values(QUEUES)) {
      for (const state of ['created', 'retry', 'active'])
        expect(sample(text, 'bima_queue_jobs', { queue: q.name, state }), `${q.name} ${state}`).toBeGreaterThanOrEqual(
          0,
        );
    }
    expect(sample(text, 'bima_db_pool_max_connections')).toBe(t.app.services.config.dbPoolSize);
    expect(sample(text, 'bima_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'bima_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'bima_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});

describe('who may read /metrics', () => {
  const get = (headers: Record<string, string> = {}, method = 'GET') =>
    t.api.call(method, `${t.origin}/metrics`, { headers });

  it('answers 401 without the token or with a wrong one, 200 with it', async () => {
    const wrongSameLength = TOKEN.slice(0, -1) + (TOKEN.endsWith('A') ? 'B' : 'A');
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${wrongSameLength}` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      { authorization: `Bearer ${o.tokens.staff}` },
    ];
    for (const headers of attempts) {
      const r = await get(headers);
      expectProblem(r, 401, 'unauthenticated');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(r.text).not.toContain(TOKEN);
    }
    expect((await get({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expectProblem(await get({ authorization: `Bearer ${TOKEN}` }, 'POST'), 405, 'method_not_allowed');
    expectProblem(await t.api.call('GET', `${t.origin}/metrics/x`, {}), 404, 'not_found');
  });

  it('never shows a token, a client id or a secret that requests carried', async () => {
    const client = o.clients.staff;
    const secrets = [TOKEN, o.tokens.staff, client.clientId, client.secret];
    // Secrets in paths, query strings, headers and GraphQL variables, on known and unknown routes.
    const paths = fc.constantFrom(
      (s: string) => `/api/v1/policies/${s}`,
      (s: string) => `/api/v1/clients/${s}?q=${s}`,
      (s: string) => `/api/v1/payment/callback/mpesa/${s}`,
      (s: string) => `/api/v1/sms/delivery-report/${s}`,
      (s: string) => `/${s}`,
      (s: string) => `/docs/${s}`,
      (s: string) => `/graphql?query=${s}`,
    );
    await fc.assert(
      fc.asyncProperty(paths, fc.constantFrom(...secrets), fc.constantFrom('GET', 'POST'), async (path, s, method) => {
        const headers = {
          authorization: `Bearer ${o.tokens.staff}`,
          'x-client-key': s,
          'content-type': 'application/json',
        };
        const body =
          method === 'POST'
            ? JSON.stringify({ client_id: s, query: `{ me { scopes } }`, variables: { s } })
            : undefined;
        await fetch(`${t.origin}${path(encodeURIComponent(s))}`, { method, headers, body });
      }),
      { numRuns: 40 },
    );
    await o.as('staff').gql('query Q($s: String) { me { scopes } }', { s: client.clientId });
    const text = await scrape();
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toContain(encodeURIComponent(o.tokens.staff));
  });
});

describe('without METRICS_TOKEN', () => {
  const off = useKit({});
  let staffToken: string;
  beforeAll(async () => {
    staffToken = (await off.newOrg({ tokens: ['staff'] })).tokens.staff;
  });

  it('answers 404, as for any unknown path, whatever the caller sends', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: `Bearer ${TOKEN}` }];
    attempts.push({ authorization: `Bearer ${staffToken}` });
    for (const headers of attempts)
      expectProblem(await off.api.call('GET', `${off.origin}/metrics`, { headers }), 404, 'not_found');
    expect((await fetch(`${off.origin}/healthz`)).status).toBe(200); // the positive control: the server answers
  });
});
