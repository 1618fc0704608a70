import path from 'node:path';

/**
 * Every setting the service reads from the environment, with its default. The README's configuration table is
 * this list; keep them together.
 */
export interface Config {
  nodeEnv: string;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  demoSeed: boolean;
  demoCredentialsFile: string;
  redisUrl: string | undefined;
  logLevel: string;
  publicBaseUrl: string | undefined;
  tokenTtlSeconds: number;
  tokenRateLimitPerMinute: number;
  bindRateLimit: number;
  bindRateWindowSeconds: number;
  maxBodyBytes: number;
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  idempotencyTtlHours: number;
  secretRotationGraceHours: number;
  shutdownTimeoutMs: number;
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
  /** Daraja passkey of the organisations' paybills (the STK Password is base64(shortcode + passkey + timestamp)). */
  mpesaPasskey: string;
  /** Simulated certificate registry: stock per member company and class, seeded the first time a member is seen. */
  registrySimDefaultStock: number;
}

function int(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const root = process.cwd();
  const dataDir = path.resolve(root, env.DATA_DIR ?? '.data');
  const nodeEnv = env.NODE_ENV ?? 'development';
  const testMode = nodeEnv === 'test' || env.BIMA_TEST_MODE === '1';
  return {
    nodeEnv,
    port: int('PORT', 3000),
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    demoSeed: env.DEMO_SEED !== '0',
    demoCredentialsFile: path.resolve(root, env.DEMO_CREDENTIALS_FILE ?? path.join(dataDir, 'demo-credentials.json')),
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', 86_400),
    tokenRateLimitPerMinute: int('TOKEN_RATE_LIMIT_PER_MINUTE', 10),
    bindRateLimit: int('BIND_RATE_LIMIT', 3),
    bindRateWindowSeconds: int('BIND_RATE_WINDOW_SECONDS', 15),
    maxBodyBytes: int('MAX_BODY_BYTES', 1_048_576),
    graphqlMaxDepth: int('GRAPHQL_MAX_DEPTH', 10),
    graphqlMaxCost: int('GRAPHQL_MAX_COST', 100_000),
    idempotencyTtlHours: int('IDEMPOTENCY_TTL_HOURS', 48),
    secretRotationGraceHours: int('SECRET_ROTATION_GRACE_HOURS', 24),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 10_000),
    testMode,
    secretsKey: env.SECRETS_KEY || undefined,
    webhooksAllowPrivate: env.WEBHOOKS_ALLOW_PRIVATE ? env.WEBHOOKS_ALLOW_PRIVATE === '1' : testMode,
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000),
    mpesaSimDelayMs: int('MPESA_SIM_DELAY_MS', testMode ? 0 : 3_000),
    mpesaReconcileAfterMs: int('MPESA_RECONCILE_AFTER_MS', testMode ? 0 : 30_000),
    registrySimDefaultStock: int('REGISTRY_SIM_DEFAULT_STOCK', 1000),
    mpesaPasskey: env.MPESA_PASSKEY || 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919',
  };
}
