/**
 * Webhook delivery benchmark (issue 4): `npx tsx test/bench/delivery.ts`.
 *
 * 1. Callback → webhook latency: BENCH_PAYMENTS (200) policies are bound and STK-pushed from the simulator's
 *    "never calls back" number (254700000005); once the simulated customer has paid, the bench POSTs each Daraja
 *    callback itself and times from that POST to the verified `payment.received` at a loopback receiver: the path
 *    callback → confirmation by the rail's status query → settlement → outbox → NOTIFY → events.dispatch →
 *    webhooks.deliver → HTTP.
 * 2. Delivery throughput: BENCH_EVENTS (2000) test pings (`POST /webhooks/endpoints/{id}/test`) fired with
 *    BENCH_CONCURRENCY (32) requests in flight; wall time from the first request to the last verified delivery.
 *
 * Every delivery's signature is checked; any failure, loss or duplicate is printed and the exit code is 1.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { deriveCallbackToken } from '../../src/modules/payments/callback-token.ts';
import { type Child, ROOT, serviceDatabaseUrl, startService } from './children.ts';
import { type Receiver, startReceiver } from './delivery-receiver.ts';
import type { DemoCredentials } from './scenarios.ts';

const num = (name: string, dflt: number) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
};
const settings = {
  events: num('BENCH_EVENTS', 2000),
  payments: num('BENCH_PAYMENTS', 200),
  concurrency: num('BENCH_CONCURRENCY', 32),
  callbackConcurrency: num('BENCH_CALLBACK_CONCURRENCY', 4),
  dataDir: path.join(ROOT, '.data/bench-delivery'),
};
const NO_CALLBACK_PHONE = '254700000005';
/** Per phase: nothing below may wait longer than this for arrivals. */
const ARRIVAL_TIMEOUT_MS = 120_000;
const WATCHDOG_MS = 600_000;

const log = (m: string) => console.error(`[delivery] ${m}`);

type Json = { status: number; json: any; text: string; ms: number };

async function request(
  origin: string,
  method: string,
  p: string,
  o: { token?: string; body?: unknown; idem?: boolean } = {},
): Promise<Json> {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.idem) headers['idempotency-key'] = randomUUID();
  const t0 = performance.now();
  const res = await fetch(origin + p, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text, ms };
}

function expectStatus(r: Json, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 500)}`);
}

/** Runs `fn(i)` for i < n with at most `limit` in flight. */
async function pool(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

function percentiles(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : NaN);
  return { n: s.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s.at(-1) ?? NaN };
}

/** The service's database, for the one thing no API reveals: the callback URL it gave the rail. */
async function dbClient(dataDir: string): Promise<pg.Client> {
  return new pg.Client({ connectionString: await serviceDatabaseUrl(dataDir) });
}

async function token(origin: string, c: { client_id: string; client_secret: string }): Promise<string> {
  const r = await request(origin, 'POST', '/api/v1/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret },
  });
  expectStatus(r, 200, `token for ${c.client_id}`);
  return r.json.access_token as string;
}

interface Pushed {
  checkout: string;
  merchant: string;
  amount: number;
}

/** Binds a policy (its own client and vehicle) and prompts for its whole first instalment from the silent number. */
async function bindAndPush(
  origin: string,
  staff: string,
  n: number,
  ctx: { insurerId: number; premium: number; tag: string; tag36: string },
): Promise<Pushed> {
  const seq = n.toString(36).toUpperCase().padStart(4, '0');
  const today = new Date().toISOString().slice(0, 10); // UTC is never ahead of Nairobi
  const bind = await request(origin, 'POST', '/api/v1/motor/save', {
    token: staff,
    idem: true,
    body: {
      client: {
        name: `Payer ${ctx.tag}${seq} Achieng`,
        phone: `07${String(n).padStart(8, '0')}`,
        idno: `7${ctx.tag}${String(n).padStart(5, '0')}`,
        force: true,
      },
      policy: {
        start_date: today,
        insurer_id: ctx.insurerId,
        class: 'Motor',
        coverage: 'Private',
        scope: 'Comprehensive',
        cover_period: 'annual',
        premium: ctx.premium,
      },
      vehicles: [
        {
          regno: `D${ctx.tag36}${seq}`,
          chassis_no: `DLV${ctx.tag}${seq}`,
          make: 'Toyota',
          model: 'Fielder',
          yom: 2020,
          value: 1_500_000,
          coverage: 'Private',
        },
      ],
    },
  });
  expectStatus(bind, 201, 'binding a policy');
  const first = bind.json.debit_note?.instalments?.[0];
  const amount = Math.ceil((first?.amount_minor ?? bind.json.premium.total_minor) / 100);
  const push = await request(origin, 'POST', '/api/v1/payment/stk/push', {
    token: staff,
    idem: true,
    body: { phone: NO_CALLBACK_PHONE, amount, account: bind.json.policy_no },
  });
  expectStatus(push, 202, 'STK push');
  return { checkout: push.json.data.checkout_request_id, merchant: push.json.data.merchant_request_id, amount };
}

async function latencyPhase(
  origin: string,
  staff: string,
  callbackUrl: (checkout: string) => Promise<string>,
  answered: (checkout: string) => Promise<{ receiptNo: string; transactionDate: string }>,
  rx: Receiver,
) {
  const insurers = await request(origin, 'GET', '/api/v1/insurers', { token: staff });
  expectStatus(insurers, 200, 'listing insurers');
  const insurer =
    (insurers.json.data as { id: number; name: string }[]).find((i) => i.name === 'Simba General') ??
    insurers.json.data[0];
  const quote = await request(origin, 'POST', '/api/v1/motor/quote', {
    token: staff,
    body: { class: 'Motor', scope: 'Comprehensive', year: 2020, value: 1_500_000, insurer_id: insurer.id },
  });
  expectStatus(quote, 200, 'pricing');
  const ctx = {
    insurerId: insurer.id,
    premium: quote.json.options[0].total as number,
    tag: Date.now().toString().slice(-6),
    tag36: Date.now().toString(36).slice(-5).toUpperCase(),
  };
  // The run's tags keep identifiers (registration ≤ 10 characters) apart from any other data in the database.

  log(`binding and pushing ${settings.payments} payments…`);
  const pushed: Pushed[] = [];
  await pool(settings.payments, 8, async (i) => {
    pushed.push(await bindAndPush(origin, staff, i, ctx));
  });
  // One callback token per organisation: every prompt carries the same URL.
  const url = await callbackUrl(pushed[0].checkout);
  // A callback is confirmed with the rail before anything moves: post each only once the customer has answered, with
  // what the rail recorded (as Daraja does). Waiting happens before the clock starts.
  const truth = new Map<string, { receiptNo: string; transactionDate: string }>();
  for (const p of pushed) truth.set(p.checkout, await answered(p.checkout));

  log(`posting ${pushed.length} callbacks (${settings.callbackConcurrency} in flight)…`);
  const sentAt = new Map<string, number>();
  const callbackMs: number[] = [];
  const callbackFailures: string[] = [];
  await pool(pushed.length, settings.callbackConcurrency, async (i) => {
    const p = pushed[i];
    const body = {
      Body: {
        stkCallback: {
          MerchantRequestID: p.merchant,
          CheckoutRequestID: p.checkout,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: p.amount },
              { Name: 'MpesaReceiptNumber', Value: truth.get(p.checkout)!.receiptNo },
              { Name: 'TransactionDate', Value: Number(truth.get(p.checkout)!.transactionDate) },
              { Name: 'PhoneNumber', Value: Number(NO_CALLBACK_PHONE) },
            ],
          },
        },
      },
    };
    const t0 = performance.now();
    sentAt.set(p.checkout, t0);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    callbackMs.push(performance.now() - t0);
    if (res.status !== 200 || JSON.parse(text).ResultCode !== 0)
      callbackFailures.push(`${p.checkout}: callback answered ${res.status} ${text.slice(0, 200)}`);
  });

  const receivedFor = () =>
    [...rx.arrivals.values()].filter((a) => a.event === 'payment.received' && sentAt.has(a.data?.checkout_request_id));
  const complete = await rx.until(() => receivedFor().length >= pushed.length, ARRIVAL_TIMEOUT_MS);
  const latencies = receivedFor().map((a) => a.at - sentAt.get(a.data.checkout_request_id)!);
  // Each of these policies had one instalment paid in full, so each activates too.
  await rx.until(
    () => [...rx.arrivals.values()].filter((a) => a.event === 'policy.activated').length >= pushed.length,
    complete ? 30_000 : 1_000,
  );
  const activated = [...rx.arrivals.values()].filter((a) => a.event === 'policy.activated').length;
  const missing = pushed.length - latencies.length;
  if (missing)
    callbackFailures.push(
      `${missing} of ${pushed.length} payment.received deliveries never arrived within ${ARRIVAL_TIMEOUT_MS / 1000} s`,
    );
  if (activated < pushed.length)
    callbackFailures.push(`only ${activated} of ${pushed.length} policy.activated deliveries arrived`);
  return { latency: percentiles(latencies), callback: percentiles(callbackMs), activated, failures: callbackFailures };
}

async function throughputPhase(origin: string, staff: string, endpointId: string, rx: Receiver) {
  log(`firing ${settings.events} test pings (${settings.concurrency} in flight)…`);
  const sentAt = new Map<string, number>();
  const requestFailures: string[] = [];
  const requestMs: number[] = [];
  const start = performance.now();
  await pool(settings.events, settings.concurrency, async (i) => {
    const t0 = performance.now();
    const r = await request(origin, 'POST', `/api/v1/webhooks/endpoints/${endpointId}/test`, {
      token: staff,
      idem: true,
      body: { message: `bench ping ${i}` },
    });
    requestMs.push(r.ms);
    if (r.status !== 202 || !r.json?.data?.event_id)
      requestFailures.push(`ping ${i}: ${r.status} ${r.text.slice(0, 200)}`);
    else sentAt.set(r.json.data.event_id as string, t0);
  });
  const requestsDone = performance.now();
  const pings = () => [...sentAt.keys()].filter((id) => rx.arrivals.has(id));
  await rx.until(() => pings().length >= sentAt.size, ARRIVAL_TIMEOUT_MS);
  const arrived = pings().map((id) => rx.arrivals.get(id)!.at);
  const last = arrived.length ? Math.max(...arrived) : performance.now();
  const latencies = pings().map((id) => rx.arrivals.get(id)!.at - sentAt.get(id)!);
  const missing = sentAt.size - latencies.length;
  if (missing)
    requestFailures.push(`${missing} of ${sentAt.size} pings never arrived within ${ARRIVAL_TIMEOUT_MS / 1000} s`);
  return {
    delivered: latencies.length,
    wallS: (last - start) / 1000,
    requestsS: (requestsDone - start) / 1000,
    latency: percentiles(latencies),
    request: percentiles(requestMs),
    failures: requestFailures,
  };
}

const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '—');
const row = (label: string, p: ReturnType<typeof percentiles>) =>
  `${label.padEnd(50)} ${String(p.n).padStart(6)} ${ms(p.p50).padStart(9)} ${ms(p.p90).padStart(9)} ${ms(p.p99).padStart(9)} ${ms(p.max).padStart(9)}`;

async function main(): Promise<number> {
  const cpus = os.cpus();
  const machine = `node ${process.version} on ${os.platform()}/${os.arch()}, ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? '?'}), load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} at start`;
  log(machine);
  await rm(settings.dataDir, { recursive: true, force: true });

  const rx = await startReceiver();
  let service: Child | undefined;
  let db: pg.Client | undefined;
  const failures: string[] = [];
  let lat: Awaited<ReturnType<typeof latencyPhase>> | undefined;
  let thr: Awaited<ReturnType<typeof throughputPhase>> | undefined;
  try {
    log('starting the service (fresh data directory: initdb, migrations, seed)…');
    service = await startService({
      dataDir: settings.dataDir,
      timeoutMs: 180_000,
      env: {
        WEBHOOKS_ALLOW_PRIVATE: '1',
        MPESA_SIM_DELAY_MS: '0',
        // Our callbacks must be what settles the prompts, not the status query's or the sweep's reconciliation.
        MPESA_RECONCILE_AFTER_MS: '3600000',
        BIND_RATE_LIMIT: '1000000',
        TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
        // Every prompt goes to the simulator's one silent number: the prompt-bombing guard would refuse all but one.
        STK_PHONE_LIMIT: '0',
        STK_ACCOUNT_LIMIT: '0',
        STK_PENDING_HOLD_SECONDS: '0',
      },
    });
    const origin = service.origin;
    const creds = JSON.parse(
      await readFile(path.join(settings.dataDir, 'demo-credentials.json'), 'utf8'),
    ) as DemoCredentials;
    const clients = creds.tenants.brokerage.api_clients;
    const admin = await token(origin, clients.admin);
    const raised = await request(origin, 'PATCH', `/api/v1/api-clients/${clients.staff.client_id}`, {
      token: admin,
      idem: true,
      body: { rate_limit_per_minute: 100_000 },
    });
    expectStatus(raised, 200, 'raising the staff client rate limit');
    const staff = await token(origin, clients.staff);

    const ep = await request(origin, 'POST', '/api/v1/webhooks/endpoints', {
      token: staff,
      idem: true,
      body: { url: rx.url, events: ['payment.received', 'policy.activated'], description: 'delivery benchmark' },
    });
    expectStatus(ep, 201, 'registering the receiver');
    rx.secret = ep.json.data.secret as string;

    db = await dbClient(settings.dataDir);
    await db.connect();
    // The callback token is stored nowhere: derived, as the service does, from the master key in the data directory.
    const callbackUrl = async (checkout: string) => {
      const r = await db!.query<{ tenant_id: number; generation: number }>(
        'SELECT c.tenant_id, c.generation FROM payment_requests p JOIN mpesa_channels c USING (tenant_id) WHERE p.checkout_request_id = $1',
        [checkout],
      );
      if (!r.rows[0]) throw new Error(`no payment request for ${checkout}`);
      const token = deriveCallbackToken(
        { secretsKey: process.env.SECRETS_KEY || undefined, dataDir: settings.dataDir },
        r.rows[0].tenant_id,
        r.rows[0].generation,
      );
      return `${origin}/api/v1/payment/callback/mpesa/${token}`;
    };

    const answered = async (checkout: string) => {
      for (let i = 0; i < 600; i++) {
        const r = await db!.query<{ receipt_no: string | null; transaction_date: string | null }>(
          'SELECT receipt_no, transaction_date FROM mpesa_sim_prompts WHERE checkout_request_id = $1',
          [checkout],
        );
        if (r.rows[0]?.receipt_no)
          return { receiptNo: r.rows[0].receipt_no, transactionDate: r.rows[0].transaction_date! };
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error(`the simulated customer never answered ${checkout}`);
    };
    lat = await latencyPhase(origin, staff, callbackUrl, answered, rx);
    failures.push(...lat.failures);
    thr = await throughputPhase(origin, staff, ep.json.data.id as string, rx);
    failures.push(...thr.failures);
  } finally {
    await db?.end().catch(() => undefined);
    if (service) {
      log('stopping the service…');
      const ended = await service.stop();
      if (ended !== 'exit 0')
        failures.push(`the service did not shut down cleanly (${ended}); its last output:\n${service.tail()}`);
    }
    await rx.close();
  }
  failures.push(...rx.failures);

  const out = [
    '',
    machine,
    `service: child process, ${process.env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${path.relative(ROOT, settings.dataDir)}`}, LOG_LEVEL=warn; receiver: node:http on loopback in the bench process, HMAC checked per delivery`,
    '',
    `${'measure'.padEnd(50)} ${'n'.padStart(6)} ${'p50'.padStart(9)} ${'p90'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)}`,
  ];
  if (lat) {
    out.push(row(`callback POST → payment.received (${settings.callbackConcurrency} in flight)`, lat.latency));
    out.push(row('callback POST → its 200 answer', lat.callback));
  }
  if (thr) {
    out.push(row(`test ping request → delivery (${settings.concurrency} in flight)`, thr.latency));
    out.push(row('test ping request → its 202 answer', thr.request));
    out.push('');
    out.push(
      `throughput: ${thr.delivered} verified deliveries in ${thr.wallS.toFixed(2)} s from the first request to the last arrival = ` +
        `${(thr.delivered / thr.wallS).toFixed(1)} deliveries/s (the ${settings.events} requests themselves took ${thr.requestsS.toFixed(2)} s)`,
    );
  }
  if (lat) out.push(`policy.activated deliveries: ${lat.activated} of ${settings.payments}`);
  console.log(out.join('\n'));
  if (failures.length) {
    console.log(
      `\n!!! ${failures.length} FAILURE(S) !!!\n${failures.slice(0, 50).join('\n')}${failures.length > 50 ? `\n… and ${failures.length - 50} more` : ''}`,
    );
    return 1;
  }
  console.log(
    `\nall ${rx.arrivals.size} deliveries verified (signature, envelope id, event name); none lost, none twice`,
  );
  return 0;
}

// Bounded whatever happens: children.ts SIGTERMs the service when this process exits.
setTimeout(() => {
  console.error(`delivery bench: still running after ${WATCHDOG_MS / 1000} s, giving up`);
  process.exit(1);
}, WATCHDOG_MS).unref();

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`delivery bench failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
