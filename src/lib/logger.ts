import pino from 'pino';
import { createRequire } from 'node:module';
import { mapStack } from './stack-map.ts';

export type Logger = pino.Logger;

/** LOG_FORMAT: `json`, `pretty`, or `auto` (the default; see chooseLogFormat). */
export type LogFormatSetting = 'auto' | 'json' | 'pretty';
export type LogFormat = 'json' | 'pretty';

export function parseLogFormat(raw: string | undefined): LogFormatSetting {
  if (raw === undefined || raw === '') return 'auto';
  if (raw === 'auto' || raw === 'json' || raw === 'pretty') return raw;
  throw new Error(`LOG_FORMAT must be json, pretty or auto, got ${JSON.stringify(raw)}`);
}

/**
 * `auto` is human-readable lines (pino-pretty) when stdout is a terminal, and JSON otherwise: always JSON under
 * NODE_ENV=test and in CI (CI set), whatever the terminal. LOG_FORMAT=json or pretty says so outright.
 */
export function chooseLogFormat(
  setting: LogFormatSetting,
  nodeEnv: string,
  where: { isTTY?: boolean; env?: NodeJS.ProcessEnv } = {},
): LogFormat {
  if (setting !== 'auto') return setting;
  const env = where.env ?? process.env;
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false';
  const tty = where.isTTY ?? process.stdout.isTTY === true;
  return tty && nodeEnv !== 'test' && !ci ? 'pretty' : 'json';
}

/** What a database client carries that a log must not: its cancel key, its connection parameters. */
const DRIVER_STATE = ['secretKey', 'processID', 'connectionParameters', 'connection'];

/**
 * pino's error serializer, less any database client an error carries along (pg-boss and pg attach the Client to some
 * errors: its cancel key, user, host and database would otherwise land in the log line), at any depth of `cause`;
 * each stack trace's frames in the compiled build named by their TypeScript file and line (stack-map.ts).
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as Record<string, unknown>;
  const scrub = (o: Record<string, unknown>, depth: number) => {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'stack' && typeof v === 'string') o[k] = mapStack(v);
      if (!v || typeof v !== 'object') continue;
      if (DRIVER_STATE.some((key) => key in v)) o[k] = '[database client]';
      else if (depth < 3) scrub(v as Record<string, unknown>, depth + 1);
    }
  };
  if (out && typeof out === 'object') scrub(out, 0);
  return out;
}

/** `destination` is stdout unless a test passes its own stream. */
export function createLogger(level: string, format: LogFormat = 'json', destination?: NodeJS.WritableStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'bima-gateway' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    // Secrets must never reach a log line, whatever a caller passes in (pretty lines are made from the redacted JSON).
    redact: {
      paths: ['*.client_secret', '*.passkey', '*.password', '*.authorization', '*["x-agent-key"]', '*["x-client-key"]'],
      censor: '[redacted]',
    },
  };
  if (format === 'pretty') {
    // Loaded only for a terminal's log (a CommonJS package, so synchronously): JSON logging never pays for it.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    const stream = pretty({
      colorize: destination === undefined && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
      sync: true,
      ...(destination ? { destination } : {}),
    });
    return pino(options, stream);
  }
  return destination ? pino(options, destination) : pino(options);
}
