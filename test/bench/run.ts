/**
 * `npm run bench`: throughput and latency of the service per scenario, each beside a bare node:http server
 * replaying the service's own response bytes, measured in the same run on the same machine. Numbers are for
 * reading, never for asserting: nothing here passes or fails on timing (it exits 1 only when requests failed).
 *
 *   BENCH_SECONDS (10)  BENCH_CONCURRENCY (16)  BENCH_WARMUP_SECONDS (1)  BENCH_ONLY (substring of scenario names)
 *   BENCH_CPU_PROF (a directory: the service writes a V8 CPU profile there on shutdown)
 *   DATABASE_URL: use that server instead of an embedded PostgreSQL under .data/bench
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { CapturedResponse } from './baseline-server.ts';
import { type Child, ROOT, startBaseline, startService } from './children.ts';
import { treeCpuSeconds } from './cpu.ts';
import { call, materialize, type RequestSpec, runLoad, send } from './load.ts';
import { formatErrors, formatResults, type Row, summarize } from './report.ts';
import { type BenchContext, type DemoCredentials, SCENARIOS, type Scenario } from './scenarios.ts';

function num(name: string, def: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

const settings = {
  concurrency: Math.floor(num('BENCH_CONCURRENCY', 16, 1)),
  seconds: num('BENCH_SECONDS', 10, 0.5),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 1, 0),
  dataDir: path.join(ROOT, '.data', 'bench'),
};
const RATE_LIMIT = 100_000; // the admin API's maximum per-minute limit
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

const jsonBody = (v: unknown) => Buffer.from(JSON.stringify(v));

async function issueToken(origin: string, client: { client_id: string; client_secret: string }): Promise<string> {
  const r = await call(origin, {
    method: 'POST',
    path: '/api/v1/oauth/token',
    headers: { 'content-type': 'application/json' },
    body: jsonBody({
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    }),
  });
  if (r.status !== 200) throw new Error(`token request for ${client.client_id} failed: ${r.status} ${r.text}`);
  return r.json.access_token as string;
}

/** Through the real admin API, as an operator would: the default 60/min would turn the run into 429s. */
async function raiseRateLimits(origin: string, creds: DemoCredentials, roles: string[]): Promise<void> {
  const clients = creds.tenants.brokerage.api_clients;
  const adminToken = await issueToken(origin, clients.admin);
  for (const role of roles) {
    const clientId = clients[role].client_id;
    const r = await call(origin, {
      method: 'PATCH',
      path: `/api/v1/api-clients/${clientId}`,
      headers: {
        authorization: `Bearer ${adminToken}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: jsonBody({ rate_limit_per_minute: RATE_LIMIT }),
    });
    if (r.status !== 200 || r.json?.data?.rate_limit_per_minute !== RATE_LIMIT) {
      throw new Error(`raising the rate limit of ${role} (${clientId}) failed: ${r.status} ${r.text}`);
    }
  }
}

async function prepare(s: Scenario, ctx: BenchContext): Promise<RequestSpec> {
  const role = s.client === undefined ? 'staff' : s.client;
  const client = role ? ctx.credentials.tenants.brokerage.api_clients[role] : undefined;
  if (role && !client) throw new Error(`scenario ${s.name}: no demo client "${role}"`);
  const token = client ? await issueToken(ctx.origin, client) : undefined;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const request = (method: string, p: string, body?: unknown, headers?: Record<string, string>) =>
    call(ctx.origin, {
      method,
      path: p,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : jsonBody(body),
    });
  const over = (await s.setup?.({ ...ctx, token, request })) ?? {};
  const body = over.body ?? s.body;
  let n = 0;
  const vary = over.vary;
  return {
    method: s.method,
    path: over.path ?? s.path,
    headers: { ...auth, ...s.headers, ...over.headers },
    body: body === undefined ? undefined : jsonBody(body),
    ok: s.ok,
    vary: vary
      ? () => {
          const v = vary(n++);
          return { body: v.body === undefined ? undefined : jsonBody(v.body), headers: v.headers };
        }
      : undefined,
  };
}

async function measure(target: Child, spec: RequestSpec) {
  const { origin } = target;
  if (settings.warmupSeconds > 0)
    await runLoad({ origin, spec, concurrency: settings.concurrency, seconds: settings.warmupSeconds });
  const cpuBefore = treeCpuSeconds(target.proc.pid);
  const result = await runLoad({ origin, spec, concurrency: settings.concurrency, seconds: settings.seconds });
  const cpuAfter = treeCpuSeconds(target.proc.pid);
  const cpu =
    cpuBefore && cpuAfter ? { own: cpuAfter.own - cpuBefore.own, tree: cpuAfter.tree - cpuBefore.tree } : null;
  return summarize(result, cpu);
}

async function main(): Promise<number> {
  const only = process.env.BENCH_ONLY;
  const scenarios = SCENARIOS.filter((s) => !only || s.name.toLowerCase().includes(only.toLowerCase()));
  if (!scenarios.length) throw new Error(`BENCH_ONLY=${only} matches no scenario`);
  const cpus = os.cpus();
  const header = [
    `node ${process.version} on ${os.platform()}/${os.arch()}, ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
      // Everything shares these cores (service, PostgreSQL, baseline, load generator): a busy machine skews all of it.
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at start`,
    `concurrency ${settings.concurrency}, ${settings.seconds} s per measurement after ${settings.warmupSeconds} s warm-up, keep-alive`,
    `service: child process, ${process.env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${path.relative(ROOT, settings.dataDir)}`}, ` +
      `rate limits in ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'memory'}, LOG_LEVEL=warn; baseline: child node:http server replaying captured responses`,
    `cpu ms/req: CPU time per request of the target process and its children (the service's embedded PostgreSQL${process.env.DATABASE_URL ? ': not with DATABASE_URL' : ''}), ` +
      `and of the node process alone; steadier than req/s on a busy machine`,
  ];
  log(header[0]);

  let service: Child | undefined;
  let baseline: Child | undefined;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bima-bench-'));
  const rows: Row[] = [];
  try {
    log('starting the service (first run initialises PostgreSQL and seeds demo data)…');
    // The token endpoint's per-IP limit (10/min) would cap how many scenarios one run can have.
    const env = Object.assign({ TOKEN_RATE_LIMIT_PER_MINUTE: '10000' }, ...scenarios.map((s) => s.env ?? {}));
    service = await startService({ dataDir: settings.dataDir, timeoutMs: 180_000, env });
    const credentials = JSON.parse(
      await readFile(path.join(settings.dataDir, 'demo-credentials.json'), 'utf8'),
    ) as DemoCredentials;
    const ctx: BenchContext = { origin: service.origin, credentials };
    const roles = [
      ...new Set(scenarios.map((s) => (s.client === undefined ? 'staff' : s.client)).filter((r): r is string => !!r)),
    ];
    await raiseRateLimits(service.origin, credentials, roles);

    const specs: RequestSpec[] = [];
    const captured: CapturedResponse[] = [];
    for (const s of scenarios) {
      const spec = await prepare(s, ctx);
      const first = materialize(spec);
      const res = await send(new http.Agent(), new URL(service.origin), first);
      if (!(spec.ok ?? ((st: number) => st >= 200 && st < 300))(res.status, res.body)) {
        throw new Error(
          `scenario ${s.name} does not succeed once: ${res.status} ${res.body.toString('utf8').slice(0, 500)}`,
        );
      }
      specs.push(spec);
      captured.push({
        method: spec.method,
        path: spec.path,
        requestBody: spec.vary ? null : (first.body?.toString('utf8') ?? ''),
        status: res.status,
        rawHeaders: res.rawHeaders,
        bodyBase64: res.body.toString('base64'),
      });
    }
    const responsesFile = path.join(tmp, 'responses.json');
    await writeFile(responsesFile, JSON.stringify(captured));
    baseline = await startBaseline(responsesFile);

    for (const [i, s] of scenarios.entries()) {
      const check = await send(new http.Agent(), new URL(baseline.origin), materialize(specs[i]));
      if (!check.body.equals(Buffer.from(captured[i].bodyBase64, 'base64')))
        throw new Error(`baseline answers ${s.name} with other bytes`);
      log(`${s.name}: service…`);
      const svc = await measure(service, specs[i]);
      log(`${s.name}: baseline…`);
      const base = await measure(baseline, specs[i]);
      rows.push({ scenario: s.name, service: svc, baseline: base });
    }
  } finally {
    await baseline?.stop();
    if (service) {
      log('stopping the service…');
      const ended = await service.stop();
      if (ended !== 'exit 0')
        log(`WARNING: the service did not shut down cleanly (${ended}); its last output:\n${service.tail()}`);
    }
    await rm(tmp, { recursive: true, force: true });
  }

  console.log(`\n${header.join('\n')}\n`);
  console.log(formatResults(rows));
  const errors = formatErrors(rows);
  if (errors) {
    console.log(`\n${errors}`);
    return 1;
  }
  console.log('\nall requests succeeded');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
