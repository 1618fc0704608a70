/**
 * `npm run bench:http`: throughput, latency, CPU per request and peak memory of the service (NODE_ENV=production)
 * per scenario, each beside a baseline measured in the same run on the same machine: for the motor quote (REST and
 * GraphQL) the hand-written quote service (quote-baseline.ts: node:http and pg doing the same work, answering the
 * same bytes), for the rest a bare node:http server replaying the service's own response bytes. Numbers are for
 * reading, never for asserting: nothing here passes or fails on timing (it exits 1 only when requests failed, or
 * when a baseline does not answer the service's bytes).
 *
 *   BENCH_SECONDS (10)  BENCH_CONCURRENCY (64)  BENCH_WARMUP_SECONDS (1)  BENCH_ONLY (substrings of scenario names, `|` between)
 *   BENCH_WEB_CONCURRENCY (the service's WEB_CONCURRENCY: that many HTTP worker processes)
 *   BENCH_CPU_PROF (a directory: a V8 CPU profile of the service per scenario, its measurement alone: profiler.ts)
 *   BENCH_HEAP_PROF (a directory: instead, a sampling profile of what each measurement allocated, and KB per request)
 *   BENCH_DATA_DIR (.data/bench): the service's DATA_DIR, kept between runs (its embedded PostgreSQL and demo data)
 *   DATABASE_URL: use that server instead of an embedded PostgreSQL under the data directory
 *   BENCH_CLUSTER (issue 30): `direct` or `pooler` runs on a PostgreSQL of its own with a streaming standby and
 *     PgBouncer in transaction mode (test/helpers/pg-cluster.ts: Debian's postgresql and pgbouncer): `direct`, the
 *     service straight to the primary; `pooler`, DATABASE_URL through PgBouncer, DATABASE_DIRECT_URL the primary and
 *     DATABASE_REPLICA_URLS the standby. The hand-written services read the primary directly either way. Use a fresh
 *     BENCH_DATA_DIR with it (the data directory then holds only the credentials file and the secrets key).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { CapturedResponse } from './baseline-server.ts';
import {
  type Child,
  ROOT,
  serviceDatabaseUrl,
  startBaseline,
  startHandWritten,
  startQuoteBaseline,
  startService,
} from './children.ts';
import { type CpuSeconds, sampleTreeMemory, treeCpuSeconds } from './cpu.ts';
import { Profiler } from './profiler.ts';
import { type PgCluster, startPgCluster } from '../helpers/pg-cluster.ts';
import { call, type LoadResult, materialize, type RequestSpec, type Response, runLoad, send } from './load.ts';
import { type BaselineKind, formatErrors, formatFacadeOverhead, formatResults, type Row, summarize } from './report.ts';
import { type BenchContext, type DemoCredentials, SCENARIOS, type Scenario } from './scenarios.ts';

/** The measurement under the CPU profiler, or under the heap sampler (BENCH_HEAP_PROF) with its bytes per request. */
async function profileAround(profiler: Profiler, name: string, fn: () => Promise<LoadResult>): Promise<LoadResult> {
  const heapDir = process.env.BENCH_HEAP_PROF;
  if (!heapDir) return profiler.around(process.env.BENCH_CPU_PROF!, name, fn);
  const { result, bytes } = await profiler.heapAround(heapDir, name, fn);
  log(
    `${name}: allocated ~${(bytes / 1e6).toFixed(0)} MB, ~${(bytes / 1024 / Math.max(1, result.completed)).toFixed(0)} KB a request`,
  );
  return result;
}

function num(name: string, def: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

const settings = {
  concurrency: Math.floor(num('BENCH_CONCURRENCY', 64, 1)),
  seconds: num('BENCH_SECONDS', 10, 0.5),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 1, 0),
  /** 0: the service's default (one process). */
  webConcurrency: Math.floor(num('BENCH_WEB_CONCURRENCY', 0, 1)),
  dataDir: path.resolve(ROOT, process.env.BENCH_DATA_DIR || path.join('.data', 'bench')),
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

/** ANALYZE the service's database, as its superuser (the hand-written services read it the same way). */
async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

const cpuDelta = (a: CpuSeconds | null, b: CpuSeconds | null): CpuSeconds | null =>
  a && b ? { node: b.node - a.node, postgres: b.postgres - a.postgres, tree: b.tree - a.tree } : null;

/**
 * Load on `target`, CPU and memory from its process tree. `database`: the process whose PostgreSQL serves the target
 * without being its child (the hand-written quote service queries the service's embedded server): that PostgreSQL's
 * CPU over the same window counts as the target's, as the service's own counts as the service's.
 */
async function measure(
  target: Child,
  spec: RequestSpec,
  database?: Child,
  profile?: (fn: () => Promise<LoadResult>) => Promise<LoadResult>,
) {
  const { origin } = target;
  if (settings.warmupSeconds > 0)
    await runLoad({ origin, spec, concurrency: settings.concurrency, seconds: settings.warmupSeconds });
  const cpuBefore = treeCpuSeconds(target.proc.pid);
  const dbBefore = database ? treeCpuSeconds(database.proc.pid) : null;
  const memory = sampleTreeMemory(target.proc.pid);
  const load = () => runLoad({ origin, spec, concurrency: settings.concurrency, seconds: settings.seconds });
  let peakRss: ReturnType<typeof memory.stop> = null;
  const result = await (profile ? profile(load) : load()).finally(() => (peakRss = memory.stop()));
  let cpu = cpuDelta(cpuBefore, treeCpuSeconds(target.proc.pid));
  if (database) {
    const db = cpuDelta(dbBefore, treeCpuSeconds(database.proc.pid));
    cpu = cpu && db ? { node: cpu.node, postgres: db.postgres, tree: cpu.node + db.postgres } : null;
  }
  return summarize(result, cpu, peakRss);
}

function header(res: Response, name: string): string | undefined {
  for (let i = 0; i < res.rawHeaders.length; i += 2)
    if (res.rawHeaders[i].toLowerCase() === name) return res.rawHeaders[i + 1];
  return undefined;
}

/** Fails loudly, with where the bytes part, unless `got` answers exactly as the service did. */
function sameAnswer(what: string, service: Response, got: Response, normalize?: Scenario['normalize']): void {
  if (normalize) {
    // A write answers each request with what it generated (ids, numbers, times): compared with those masked.
    const masked = (r: Response) => ({
      ...r,
      body: Buffer.from(JSON.stringify(normalize(JSON.parse(r.body.toString('utf8'))))),
    });
    service = masked(service);
    got = masked(got);
  }
  const problems: string[] = [];
  if (got.status !== service.status) problems.push(`status ${got.status}, the service's ${service.status}`);
  const [a, b] = [header(service, 'content-type'), header(got, 'content-type')];
  if (a !== b) problems.push(`content-type ${JSON.stringify(b)}, the service's ${JSON.stringify(a)}`);
  if (!got.body.equals(service.body)) {
    let at = 0;
    while (at < service.body.length && at < got.body.length && service.body[at] === got.body[at]) at++;
    const around = (buf: Buffer) => JSON.stringify(buf.subarray(Math.max(0, at - 80), at + 80).toString('utf8'));
    problems.push(
      `body of ${got.body.length} bytes, the service's ${service.body.length}; they part at byte ${at}:\n` +
        `    service:      …${around(service.body)}…\n    hand-written: …${around(got.body)}…`,
    );
  }
  if (problems.length)
    throw new Error(
      `the hand-written service does not answer ${what} as the service does:\n  ${problems.join('\n  ')}`,
    );
}

async function main(): Promise<number> {
  const only = process.env.BENCH_ONLY;
  const wanted = only?.toLowerCase().split('|') ?? [];
  const scenarios = SCENARIOS.filter((s) => !only || wanted.some((w) => s.name.toLowerCase().includes(w)));
  if (!scenarios.length) throw new Error(`BENCH_ONLY=${only} matches no scenario`);
  const kind = (s: Scenario): BaselineKind => s.baseline ?? 'replay';
  const clusterMode = process.env.BENCH_CLUSTER;
  if (clusterMode && clusterMode !== 'direct' && clusterMode !== 'pooler')
    throw new Error(`BENCH_CLUSTER takes direct or pooler, got ${JSON.stringify(clusterMode)}`);
  let cluster: PgCluster | undefined;
  const clusterEnv: Record<string, string> = {};
  if (clusterMode) {
    log(`starting a primary, a streaming standby and PgBouncer (BENCH_CLUSTER=${clusterMode})…`);
    cluster = await startPgCluster({ poolSize: 20 });
    // The hand-written services (serviceDatabaseUrl) read the primary directly, as its superuser.
    process.env.DATABASE_URL = cluster.primaryUrl;
    if (clusterMode === 'pooler')
      Object.assign(clusterEnv, {
        DATABASE_URL: cluster.poolerUrl,
        DATABASE_DIRECT_URL: cluster.primaryUrl,
        DATABASE_REPLICA_URLS: cluster.replicaUrl,
      });
  }
  const external = !!process.env.DATABASE_URL;
  const cpus = os.cpus();
  const header = [
    `node ${process.version} on ${os.platform()}/${os.arch()}, ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
      // Everything shares these cores (service, PostgreSQL, baselines, load generator): a busy machine skews all of it.
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at start`,
    `concurrency ${settings.concurrency}, ${settings.seconds} s per measurement after ${settings.warmupSeconds} s warm-up, keep-alive`,
    `service: child process, NODE_ENV=production, ${settings.webConcurrency ? `WEB_CONCURRENCY=${settings.webConcurrency}` : 'one process'}, ` +
      `${clusterMode === 'pooler' ? 'through PgBouncer (transaction mode), reads on a streaming standby' : clusterMode ? 'straight to the primary of a cluster with a streaming standby (BENCH_CLUSTER=direct)' : external ? 'DATABASE_URL' : `embedded PostgreSQL in ${path.relative(ROOT, settings.dataDir)}`}, ` +
      `rate limits in ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'memory'}, LOG_LEVEL=warn`,
    'baselines: "hand-written" = test/bench/quote-baseline.ts for the quote (rating tables loaded once at start, priced ' +
      'with src/modules/motor/rating.ts) and test/bench/hand/ for the everyday reads and writes: node:http + pg, pool of ' +
      '20, hand-written SQL, the token looked up in PostgreSQL per request, the same work and the same bytes (writes: ' +
      'with what each generates masked); "replay" = node:http answering the bytes the service gave once',
    `cpu ms/req: CPU time per request of the target's processes and PostgreSQL's (the service's embedded one, which the ` +
      `hand-written service queries too: its CPU during each measurement counts for the target measured${external ? '; not with DATABASE_URL' : ''}), ` +
      `and of the node process(es) alone; steadier than req/s on a busy machine`,
    'peak RSS MB: the highest VmRSS of the target sampled every 200 ms during its measurement (not its start, ' +
      'seed or warm-up); for a tree (the service with its embedded PostgreSQL and workers) its node process(es) / ' +
      'the sum over every process (shared memory counts once per process)',
  ];
  log(header[0]);

  let service: Child | undefined;
  let replay: Child | undefined;
  let handWritten: Child | undefined;
  let hand: Child | undefined;
  let profiler: Profiler | undefined;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bima-bench-'));
  const rows: Row[] = [];
  try {
    log('starting the service (first run initialises PostgreSQL and seeds demo data)…');
    const env: Record<string, string> = Object.assign(
      {
        // The token endpoint's per-IP limit (10/min) would cap how many scenarios one run can have.
        TOKEN_RATE_LIMIT_PER_MINUTE: '10000',
        // The deployment's default per-token limit, for clients without their own (each client's is raised below).
        RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      },
      ...scenarios.map((s) => s.env ?? {}),
      clusterEnv,
    );
    if (settings.webConcurrency) env.WEB_CONCURRENCY = String(settings.webConcurrency);
    service = await startService({ dataDir: settings.dataDir, timeoutMs: 180_000, env });
    const credentials = JSON.parse(
      await readFile(path.join(settings.dataDir, 'demo-credentials.json'), 'utf8'),
    ) as DemoCredentials;
    const ctx: BenchContext = { origin: service.origin, credentials };
    const roles = [
      ...new Set(scenarios.map((s) => (s.client === undefined ? 'staff' : s.client)).filter((r): r is string => !!r)),
    ];
    await raiseRateLimits(service.origin, credentials, roles);
    if (service.inspectPort) profiler = await Profiler.connect(service.inspectPort);

    const specs: RequestSpec[] = [];
    const answers: Response[] = [];
    for (const s of scenarios) {
      const spec = await prepare(s, ctx);
      const res = await send(new http.Agent(), new URL(service.origin), materialize(spec));
      if (!(spec.ok ?? ((st: number) => st >= 200 && st < 300))(res.status, res.body)) {
        throw new Error(
          `scenario ${s.name} does not succeed once: ${res.status} ${res.body.toString('utf8').slice(0, 500)}`,
        );
      }
      specs.push(spec);
      answers.push(res);
    }
    // The load above wrote most of what the scenarios read moments ago: without fresh statistics PostgreSQL plans
    // those statements as for empty tables until autovacuum's next pass (a minute apart by default), so both
    // services' figures hung on when it came (a page's PostgreSQL CPU 10× one run to the next on a fresh copy).
    await analyze(await serviceDatabaseUrl(settings.dataDir));
    const captured: CapturedResponse[] = scenarios.flatMap((s, i) =>
      kind(s) === 'replay'
        ? [
            {
              method: specs[i].method,
              path: specs[i].path,
              requestBody: specs[i].vary ? null : (specs[i].body?.toString('utf8') ?? ''),
              status: answers[i].status,
              rawHeaders: answers[i].rawHeaders,
              bodyBase64: answers[i].body.toString('base64'),
            },
          ]
        : [],
    );
    if (captured.length) {
      const responsesFile = path.join(tmp, 'responses.json');
      await writeFile(responsesFile, JSON.stringify(captured));
      replay = await startBaseline(responsesFile);
    }
    if (scenarios.some((s) => kind(s) === 'quote')) {
      // The service's own database (the embedded cluster's URL from its data directory), as its superuser.
      handWritten = await startQuoteBaseline(
        await serviceDatabaseUrl(settings.dataDir),
        credentials.tenants.brokerage.code,
      );
    }

    if (scenarios.some((s) => kind(s) === 'hand'))
      hand = await startHandWritten(await serviceDatabaseUrl(settings.dataDir));

    for (const [i, s] of scenarios.entries()) {
      const k = kind(s);
      const baseline = k === 'quote' ? handWritten! : k === 'hand' ? hand! : replay!;
      // A later scenario's setup may have added records since this one's answer was captured (the newest page moves):
      // a request that does not vary is answered afresh by the service just before the comparison.
      if (k !== 'replay' && !specs[i].vary)
        answers[i] = await send(new http.Agent(), new URL(service.origin), materialize(specs[i]));
      const check = await send(new http.Agent(), new URL(baseline.origin), materialize(specs[i]));
      if (k === 'quote' || k === 'hand') sameAnswer(s.name, answers[i], check, s.normalize);
      else if (!check.body.equals(answers[i].body)) throw new Error(`baseline answers ${s.name} with other bytes`);
      log(`${s.name}: service…`);
      const svc = await measure(
        service,
        specs[i],
        undefined,
        profiler ? (fn) => profileAround(profiler!, s.name, fn) : undefined,
      );
      log(`${s.name}: baseline (${k})…`);
      const base = await measure(baseline, specs[i], k === 'replay' ? undefined : service);
      rows.push({ scenario: s.name, service: svc, baseline: base, baselineKind: kind(s) });
    }
  } finally {
    profiler?.close();
    await replay?.stop();
    await handWritten?.stop();
    await hand?.stop();
    if (service) {
      log('stopping the service…');
      const ended = await service.stop();
      if (ended !== 'exit 0')
        log(`WARNING: the service did not shut down cleanly (${ended}); its last output:\n${service.tail()}`);
    }
    await rm(tmp, { recursive: true, force: true });
    await cluster?.stop();
  }

  console.log(`\n${header.join('\n')}\n`);
  console.log(formatResults(rows));
  const quoteRows = rows.filter((r) => r.baselineKind === 'quote');
  const restQuote = quoteRows.find((r) => r.scenario.startsWith('REST'));
  const gqlQuote = quoteRows.find((r) => r.scenario.startsWith('GraphQL'));
  if (restQuote && gqlQuote) console.log(`\n${formatFacadeOverhead('motor quote', restQuote, gqlQuote)}`);
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
