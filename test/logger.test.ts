import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/lib/config.ts';
import { chooseLogFormat, createLogger, type LogFormat } from '../src/lib/logger.ts';

/** What one log call writes, in the given format, to a stream of the test's own. */
async function written(format: LogFormat, log: (l: ReturnType<typeof createLogger>) => void): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  log(createLogger('info', format, out));
  await new Promise((r) => setImmediate(r));
  return Buffer.concat(chunks).toString('utf8');
}

describe('the log format', () => {
  it('is pretty on a terminal, JSON when piped, in tests and in CI; LOG_FORMAT decides outright', () => {
    const choose = (setting: 'auto' | 'json' | 'pretty', nodeEnv: string, isTTY: boolean, env = {}) =>
      chooseLogFormat(setting, nodeEnv, { isTTY, env });
    expect(choose('auto', 'development', true)).toBe('pretty');
    expect(choose('auto', 'production', true)).toBe('pretty');
    expect(choose('auto', 'development', false)).toBe('json');
    expect(choose('auto', 'production', false)).toBe('json');
    expect(choose('auto', 'test', true)).toBe('json');
    expect(choose('auto', 'development', true, { CI: 'true' })).toBe('json');
    expect(choose('auto', 'development', true, { CI: '1' })).toBe('json');
    expect(choose('auto', 'development', true, { CI: 'false' })).toBe('pretty');
    expect(choose('json', 'development', true)).toBe('json');
    expect(choose('pretty', 'production', false)).toBe('pretty');
  });

  it('reads LOG_FORMAT, refusing anything else', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT must be json, pretty or auto/);
  });

  it('writes one JSON object per line, or a readable line, and redacts secrets in both', async () => {
    const secret = 'bgs_do-not-print-me';
    const line = (l: ReturnType<typeof createLogger>) =>
      l.info({ request_id: 'req_1', body: { client_secret: secret, authorization: `Bearer ${secret}` } }, 'hello');
    const json = await written('json', line);
    const parsed = JSON.parse(json.trim()) as Record<string, any>;
    expect(parsed).toMatchObject({ msg: 'hello', request_id: 'req_1', service: 'bima-gateway', level: 30 });
    expect(parsed.body).toEqual({ client_secret: '[redacted]', authorization: '[redacted]' });

    const pretty = await written('pretty', line);
    expect(pretty).toMatch(/INFO.*hello/);
    expect(pretty).toContain('req_1');
    expect(pretty).toContain('[redacted]');
    expect(() => JSON.parse(pretty.trim())).toThrow();
    for (const out of [json, pretty]) expect(out).not.toContain(secret);
  });
});

describe('METRICS_TOKEN', () => {
  it('is off when unset, and refused when too short to be secret', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-metrics-token' }).metricsToken).toBe(
      'a-long-enough-metrics-token',
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/at least 16 characters/);
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in the middle' })).toThrow(/no spaces/);
  });
});

describe('errors in the log', () => {
  it('never carry a database client: its cancel key, user and database stay out of the line, the reason stays in', async () => {
    // As pg-boss hands over a connection's error: the pg Client hangs off it, once directly and once under `cause`.
    const client = {
      processID: 9496,
      secretKey: 357577881,
      connectionParameters: { user: 'postgres', database: 'bima', port: 45025, password: 'pg-pass-do-not-print' },
    };
    const err = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      client,
      cause: Object.assign(new Error('inner'), { connection: { secretKey: 42 } }),
    });
    const line = JSON.parse(await written('json', (l) => l.error({ err }, 'pg-boss error')));
    expect(line.err).toMatchObject({ code: '57P01', client: '[database client]' });
    expect(line.err.message).toContain('terminating connection due to administrator command');
    const text = JSON.stringify(line);
    for (const leak of ['357577881', '9496', 'pg-pass-do-not-print', '45025']) expect(text).not.toContain(leak);
  });
});
