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
    graphqlMaxCost: int('GRAPHQL_MAX_COST', 5000),
    idempotencyTtlHours: int('IDEMPOTENCY_TTL_HOURS', 48),
    secretRotationGraceHours: int('SECRET_ROTATION_GRACE_HOURS', 24),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 10_000),
    testMode: nodeEnv === 'test' || env.BIMA_TEST_MODE === '1',
  };
}
