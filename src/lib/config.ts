import ipaddr from 'ipaddr.js';
import path from 'node:path';
import { parseTestClock, type TestClockSetting } from './clock.ts';
import { type LogFormatSetting, parseLogFormat } from './logger.ts';

/**
 * Every setting the service reads from the environment, with its default. The configuration table of docs/operations.md is
 * this list; keep them together.
 */
export interface Config {
  nodeEnv: string;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * A direct connection to the primary for what needs a session (LISTEN, migrations, session advisory locks), when
   * DATABASE_URL goes through a pooler in transaction mode (src/db/client.ts): then no named prepared statements.
   */
  databaseDirectUrl: string | undefined;
  /** Hot standbys fed by streaming replication that take the reads tolerating a bounded lag (src/db/replicas.ts). */
  databaseReplicaUrls: string[];
  /** A replica further behind the primary than this is taken out of the reads until it catches up. */
  replicaMaxLagMs: number;
  /** How long a writer's read waits for a replica to replay the writer's last commit before it goes to the primary. */
  replicaWaitMs: number;
  /** Connections in each replica's pool (each process). */
  dbReplicaPoolSize: number;
  dataDir: string;
  demoSeed: boolean;
  demoCredentialsFile: string;
  redisUrl: string | undefined;
  logLevel: string;
  publicBaseUrl: string | undefined;
  tokenTtlSeconds: number;
  tokenRateLimitPerMinute: number;
  /** Requests per minute per access token for API clients without their own limit (the spec's 60). */
  rateLimitPerMinute: number;
  /** HTTP worker processes on one port (node:cluster); 1 serves from the main process. */
  webConcurrency: number;
  /** What this process runs: the HTTP API (`web`), the pg-boss workers (`jobs`), or both (`all`). */
  processRole: 'web' | 'jobs' | 'all';
  /** Run the REST facade's fixed operations compiled by graphql-jit where that is safe (rest-compat/executor.ts). */
  facadeJit: boolean;
  /** How the facade's compiled operations read exposed columns (rest-compat/executor.ts ColumnReads). */
  facadeJitColumns: 'inline' | 'checked';
  /** GENERIC_READ_PLANS: read-only request transactions run their prepared statements on generic plans (client.ts). */
  genericReadPlans: boolean;
  /** Longest a cached principal (token → tenant, key, scopes, actor) is reused; NOTIFY drops it at once on any change. */
  principalCacheSeconds: number;
  bindRateLimit: number;
  bindRateWindowSeconds: number;
  maxBodyBytes: number;
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  /** Records (list items) one GraphQL operation may answer (src/graphql/record-budget.ts). */
  graphqlMaxRecords: number;
  /** Root fields (aliases) one GraphQL operation may select; each also counts as one request against the token's limit. */
  graphqlMaxRootFields: number;
  idempotencyTtlHours: number;
  secretRotationGraceHours: number;
  shutdownTimeoutMs: number;
  /** How long a stopping server still accepts connections (answering with Connection: close) before it stops listening. */
  shutdownDrainMs: number;
  /** Largest WebSocket message accepted; a bigger one closes the socket with 1009. */
  wsMaxPayloadBytes: number;
  /** Messages a WebSocket may send per second (a burst of twice that); past it the socket closes with 1008. */
  wsMaxMessagesPerSecond: number;
  /** A WebSocket that sends no connection_init within this is closed with 4408. */
  wsConnectionInitTimeoutMs: number;
  /** Ping interval; a peer that does not answer a ping within the same time is dropped. 0 disables. */
  wsKeepAliveMs: number;
  /** A WebSocket holding no subscription this long is closed with 1000 "idle". 0 disables. */
  wsIdleTimeoutMs: number;
  wsMaxSubscriptionsPerConnection: number;
  /** Across all WebSockets of this process that use the same access token. */
  wsMaxSubscriptionsPerToken: number;
  /** Events delivered within this of the last successful token re-check share it (one lookup per window). */
  wsAuthRecheckMs: number;
  /** Re-check of the token of every WebSocket even when no event flows (revocation closes idle streams too). */
  wsAuthIdleRecheckMs: number;
  testMode: boolean;
  /** Base64 of 32 bytes encrypting webhook signing secrets at rest; unset → DATA_DIR/secrets.key (created once). */
  secretsKey: string | undefined;
  /** Allow webhook URLs on loopback/private addresses (and plain http). Default: on in test mode only. */
  webhooksAllowPrivate: boolean;
  /** How long a receiver has to answer a delivery. */
  webhookTimeoutMs: number;
  /** Simulated M-Pesa: how long a prompt waits before the customer "answers" (0 in test mode). */
  mpesaSimDelayMs: number;
  /** A payment still pending this long after the push is reconciled with the rail by the status query. */
  mpesaReconcileAfterMs: number;
  /** STK prompts one phone number may receive per window, per organisation; 0 disables. */
  stkPhoneLimit: number;
  stkPhoneWindowSeconds: number;
  /** STK prompts for one account (the policy it resolves to) per window; 0 disables. */
  stkAccountLimit: number;
  stkAccountWindowSeconds: number;
  /** A pending prompt blocks another to its phone or account until answered or this old (the handset's prompt has gone); 0 disables. */
  stkPendingHoldSeconds: number;
  /** After a rotation, how long callbacks carrying the previous callback token are still taken. */
  mpesaCallbackTokenGraceSeconds: number;
  /** Source addresses (IPs or CIDR ranges) callbacks are taken from; empty: any (the token and the rail's confirmation still apply). */
  mpesaCallbackAllowedIps: string[];
  /** The longest a call to the mobile-money rail may take; a request `sending` longer than this is in doubt. */
  mpesaRailTimeoutMs: number;
  /** How long a prompt may stay unanswered on the handset: an in-doubt request no statement shows by then is failed. */
  mpesaPromptTtlSeconds: number;
  /** How often the payments sweep runs (replay callbacks, reconcile, statement); also once at start. */
  paymentsSweepSeconds: number;
  /** Connections in the service's PostgreSQL pool (each process). */
  dbPoolSize: number;
  /** How long a request waits for a pooled connection before it is answered 503 (shed, not queued without bound). */
  dbPoolWaitMs: number;
  /** Pooled connections one organisation's work may hold at once (src/db/client.ts withTenantShare): half the pool by default. */
  dbTenantShare: number;
  /** Document reads larger than one chunk (a whole file through GraphQL) running at once in a process; half per organisation. */
  documentReadsMax: number;
  /** Test-only fault injection: named points at which the process kills itself (refused under production). */
  faultPoints: string[];
  /** Test-only: the service's business clock set to this instant (src/lib/clock.ts; refused outside NODE_ENV=test). */
  testClock: TestClockSetting | undefined;
  /** Daraja passkey of the organisations' paybills (the STK Password is base64(shortcode + passkey + timestamp)). */
  mpesaPasskey: string;
  /** Simulated certificate registry: stock per member company and class, seeded the first time a member is seen. */
  registrySimDefaultStock: number;
  /** Answer introspection (`__schema`, `__type`). Default: off under NODE_ENV=production, on elsewhere. */
  graphqlIntrospection: boolean;
  /** Serve GraphiQL to browsers at GET /graphql. Default: off under NODE_ENV=production, on elsewhere. */
  graphiql: boolean;
  /**
   * How far V8 lets the heap grow past what the last full collection kept before it collects again, in percent
   * (V8's --heap-growing-percent, set at start: src/main.ts). 0 (the default) leaves it to V8, which sizes it from
   * the machine's memory: up to four times the live heap on a host of 8 GB or more, less on smaller ones. 100 holds
   * it to about twice: half the memory under load, for 10–20 % more CPU on reads (docs/performance.md "Memory").
   */
  heapGrowthPercent: number;
  /** Exact origins (scheme://host[:port]) whose pages may call the API from a browser. Empty: none may. */
  corsOrigins: string[];
  /** Where uploaded documents' bytes are kept: `postgres` (document_blobs, in the upload's transaction) or `files`. */
  documentStore: 'postgres' | 'files';
  /** The `files` store's directory (DATA_DIR/documents unless DOCUMENT_DIR says otherwise); replicas must share it. */
  documentDir: string;
  /** Largest document one upload may carry (bytes). */
  documentMaxBytes: number;
  /** Bearer token GET /metrics requires; unset: /metrics answers 404 (src/http/pages/metrics.ts). */
  metricsToken: string | undefined;
  /** Log lines as JSON, pretty (pino-pretty), or `auto`: pretty on a terminal outside tests and CI (src/lib/logger.ts). */
  logFormat: LogFormatSetting;
}

/** Safaricom's published sandbox passkey: anyone can sign STK requests with it, so production refuses it. */
export const DARAJA_SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

/** DB_TENANT_SHARE, at least 1 and at most the pool; by default half the pool, rounded up. */
function tenantShare(env: NodeJS.ProcessEnv): number {
  const pool = Math.max(2, int(env, 'DB_POOL_SIZE', 20));
  return Math.min(pool, Math.max(1, int(env, 'DB_TENANT_SHARE', Math.ceil(pool / 2))));
}

function int(env: NodeJS.ProcessEnv, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

function heapGrowthPercent(env: NodeJS.ProcessEnv): number {
  const n = int(env, 'HEAP_GROWTH_PERCENT', 0);
  if (n > 1000) throw new Error(`HEAP_GROWTH_PERCENT must be at most 1000, got ${n}`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new Error(`${name} must be 1 or 0, got ${JSON.stringify(raw)}`);
}

/** Exact origins only: a wildcard or a path would make the allowlist mean something other than what it says. */
/** A comma-separated setting, trimmed, empties dropped. */
/** TEST_CLOCK sets the service's business clock, so it is a test harness setting: refused outside NODE_ENV=test. */
function testClock(env: NodeJS.ProcessEnv, nodeEnv: string): TestClockSetting | undefined {
  const raw = env.TEST_CLOCK;
  if (raw === undefined || raw === '') return undefined;
  if (nodeEnv !== 'test')
    throw new Error(`TEST_CLOCK sets the service's clock (a test harness setting); refused under NODE_ENV=${nodeEnv}`);
  return parseTestClock(raw);
}

function processRole(raw: string | undefined): Config['processRole'] {
  if (raw === undefined || raw === '') return 'all';
  if (raw === 'web' || raw === 'jobs' || raw === 'all') return raw;
  throw new Error(`PROCESS_ROLE must be web, jobs or all, got ${JSON.stringify(raw)}`);
}

/** FACADE_JIT_COLUMNS: `inline` (the default) or `checked` (the default in test mode: rest-compat/executor.ts). */
function columnReads(raw: string | undefined, testMode: boolean): Config['facadeJitColumns'] {
  if (raw === undefined || raw === '') return testMode ? 'checked' : 'inline';
  if (raw === 'inline' || raw === 'checked') return raw;
  throw new Error(`FACADE_JIT_COLUMNS must be inline or checked, got ${JSON.stringify(raw)}`);
}

function documentStore(raw: string | undefined): Config['documentStore'] {
  if (raw === undefined || raw === '') return 'postgres';
  if (raw === 'postgres' || raw === 'files') return raw;
  throw new Error(`DOCUMENT_STORE must be postgres or files, got ${JSON.stringify(raw)}`);
}

/** METRICS_TOKEN: long enough that guessing it is hopeless (its value is never shown in an error). */
function metricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16 || /\s/.test(raw)) throw new Error('METRICS_TOKEN must be at least 16 characters, no spaces');
  return raw;
}

/**
 * A PostgreSQL connection URL (postgres:// or postgresql://), checked at start so a typo in one replica's address is a
 * refusal to start, not a replica quietly taken out of the reads. The value is never repeated: it carries a password.
 */
function postgresUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {
    /* reported below */
  }
  if (!u || !/^postgres(ql)?:$/.test(u.protocol))
    throw new Error(`${name} takes a PostgreSQL URL such as postgres://user:password@host:5432/database`);
  return raw;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
}

/** MPESA_CALLBACK_ALLOWED_IPS: IP addresses or CIDR ranges, checked at start so a typo cannot open or shut the door silently. */
function addressRanges(raw: string | undefined): string[] {
  return list(raw).map((e) => {
    const ok = e.includes('/')
      ? (() => {
          try {
            ipaddr.parseCIDR(e);
            return true;
          } catch {
            return false;
          }
        })()
      : ipaddr.isValid(e);
    if (!ok)
      throw new Error(
        `MPESA_CALLBACK_ALLOWED_IPS takes IP addresses or CIDR ranges, comma-separated; got ${JSON.stringify(e)}`,
      );
    return e;
  });
}

function origins(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return list.map((o) => {
    let u: URL | undefined;
    try {
      u = new URL(o);
    } catch {
      /* reported below */
    }
    if (!u || !/^https?:$/.test(u.protocol) || u.origin !== o.replace(/\/$/, '').toLowerCase()) {
      throw new Error(
        `CORS_ORIGINS takes exact origins such as https://app.example.co.ke, comma-separated; got ${JSON.stringify(o)}`,
      );
    }
    return u.origin;
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const root = process.cwd();
  const dataDir = path.resolve(root, env.DATA_DIR ?? '.data');
  const nodeEnv = env.NODE_ENV ?? 'development';
  const testMode = nodeEnv === 'test' || env.BIMA_TEST_MODE === '1';
  return {
    nodeEnv,
    port: int(env, 'PORT', 3000),
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: postgresUrl('DATABASE_URL', env.DATABASE_URL),
    databaseDirectUrl: postgresUrl('DATABASE_DIRECT_URL', env.DATABASE_DIRECT_URL),
    databaseReplicaUrls: list(env.DATABASE_REPLICA_URLS).map(
      (u, i, all) => postgresUrl(`DATABASE_REPLICA_URLS (entry ${i + 1} of ${all.length})`, u) as string,
    ),
    replicaMaxLagMs: Math.max(1_000, int(env, 'REPLICA_MAX_LAG_MS', 5_000)),
    replicaWaitMs: Math.max(0, int(env, 'REPLICA_WAIT_MS', 200)),
    dbReplicaPoolSize: Math.max(2, int(env, 'DB_REPLICA_POOL_SIZE', int(env, 'DB_POOL_SIZE', 20))),
    dataDir,
    demoSeed: env.DEMO_SEED !== '0',
    demoCredentialsFile: path.resolve(root, env.DEMO_CREDENTIALS_FILE ?? path.join(dataDir, 'demo-credentials.json')),
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 86_400),
    tokenRateLimitPerMinute: int(env, 'TOKEN_RATE_LIMIT_PER_MINUTE', 10),
    rateLimitPerMinute: Math.max(1, int(env, 'RATE_LIMIT_PER_MINUTE', 60)),
    webConcurrency: Math.max(1, int(env, 'WEB_CONCURRENCY', 1)),
    processRole: processRole(env.PROCESS_ROLE),
    principalCacheSeconds: int(env, 'PRINCIPAL_CACHE_SECONDS', 30),
    facadeJit: flag(env, 'FACADE_JIT', true),
    facadeJitColumns: columnReads(env.FACADE_JIT_COLUMNS, testMode),
    genericReadPlans: flag(env, 'GENERIC_READ_PLANS', true),
    bindRateLimit: int(env, 'BIND_RATE_LIMIT', 3),
    bindRateWindowSeconds: int(env, 'BIND_RATE_WINDOW_SECONDS', 15),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1_048_576),
    graphqlMaxDepth: int(env, 'GRAPHQL_MAX_DEPTH', 10),
    graphqlMaxCost: int(env, 'GRAPHQL_MAX_COST', 100_000),
    graphqlMaxRecords: int(env, 'GRAPHQL_MAX_RECORDS', 10_000),
    graphqlMaxRootFields: int(env, 'GRAPHQL_MAX_ROOT_FIELDS', 20),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 48),
    secretRotationGraceHours: int(env, 'SECRET_ROTATION_GRACE_HOURS', 24),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000),
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_MS', 1_000),
    wsMaxPayloadBytes: int(env, 'WS_MAX_PAYLOAD_BYTES', 65_536),
    wsMaxMessagesPerSecond: Math.max(1, int(env, 'WS_MAX_MESSAGES_PER_SECOND', 50)),
    wsConnectionInitTimeoutMs: int(env, 'WS_CONNECTION_INIT_TIMEOUT_MS', 10_000),
    wsKeepAliveMs: int(env, 'WS_KEEPALIVE_MS', 12_000),
    wsIdleTimeoutMs: int(env, 'WS_IDLE_TIMEOUT_MS', 300_000),
    wsMaxSubscriptionsPerConnection: int(env, 'WS_MAX_SUBSCRIPTIONS_PER_CONNECTION', 20),
    wsMaxSubscriptionsPerToken: int(env, 'WS_MAX_SUBSCRIPTIONS_PER_TOKEN', 50),
    wsAuthRecheckMs: int(env, 'WS_AUTH_RECHECK_MS', 1_000),
    wsAuthIdleRecheckMs: int(env, 'WS_AUTH_IDLE_RECHECK_MS', 30_000),
    testMode,
    secretsKey: env.SECRETS_KEY || undefined,
    webhooksAllowPrivate: env.WEBHOOKS_ALLOW_PRIVATE ? env.WEBHOOKS_ALLOW_PRIVATE === '1' : testMode,
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
    mpesaSimDelayMs: int(env, 'MPESA_SIM_DELAY_MS', testMode ? 0 : 3_000),
    mpesaReconcileAfterMs: int(env, 'MPESA_RECONCILE_AFTER_MS', testMode ? 0 : 30_000),
    // Test mode: suites push the simulator's few documented numbers many times over, and its prompts answer at once;
    // test/security/api6-sensitive-business-flows.test.ts runs with the figures below.
    stkPhoneLimit: int(env, 'STK_PHONE_LIMIT', testMode ? 0 : 3),
    stkPhoneWindowSeconds: int(env, 'STK_PHONE_WINDOW_SECONDS', 600),
    stkAccountLimit: int(env, 'STK_ACCOUNT_LIMIT', testMode ? 0 : 5),
    stkAccountWindowSeconds: int(env, 'STK_ACCOUNT_WINDOW_SECONDS', 3_600),
    stkPendingHoldSeconds: int(env, 'STK_PENDING_HOLD_SECONDS', testMode ? 0 : 120),
    registrySimDefaultStock: int(env, 'REGISTRY_SIM_DEFAULT_STOCK', 1000),
    mpesaPasskey: env.MPESA_PASSKEY || DARAJA_SANDBOX_PASSKEY,
    mpesaCallbackTokenGraceSeconds: int(env, 'MPESA_CALLBACK_TOKEN_GRACE_SECONDS', 3_600),
    mpesaCallbackAllowedIps: addressRanges(env.MPESA_CALLBACK_ALLOWED_IPS),
    mpesaRailTimeoutMs: int(env, 'MPESA_RAIL_TIMEOUT_MS', 15_000),
    mpesaPromptTtlSeconds: int(env, 'MPESA_PROMPT_TTL_SECONDS', 180),
    paymentsSweepSeconds: Math.max(1, int(env, 'PAYMENTS_SWEEP_SECONDS', 60)),
    dbPoolSize: Math.max(2, int(env, 'DB_POOL_SIZE', 20)),
    dbPoolWaitMs: Math.max(100, int(env, 'DB_POOL_WAIT_MS', 5_000)),
    dbTenantShare: tenantShare(env),
    documentReadsMax: Math.max(1, int(env, 'DOCUMENT_READS_MAX', 4)),
    faultPoints: list(env.FAULT_POINTS),
    testClock: testClock(env, nodeEnv),
    graphqlIntrospection: flag(env, 'GRAPHQL_INTROSPECTION', nodeEnv !== 'production'),
    graphiql: flag(env, 'GRAPHIQL', nodeEnv !== 'production'),
    heapGrowthPercent: heapGrowthPercent(env),
    corsOrigins: origins(env.CORS_ORIGINS),
    documentStore: documentStore(env.DOCUMENT_STORE),
    documentDir: path.resolve(root, env.DOCUMENT_DIR || path.join(dataDir, 'documents')),
    documentMaxBytes: Math.max(1, int(env, 'DOCUMENT_MAX_BYTES', 10_485_760)),
    metricsToken: metricsToken(env.METRICS_TOKEN),
    logFormat: parseLogFormat(env.LOG_FORMAT),
  };
}
