import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createBimaClient } from '../sdk/index.ts';
import { backoffMs, retrying } from '../sdk/retry.ts';

// The SDK's retries (network errors, 429, 503; only for calls safe to repeat) against a tiny stand-in server that
// answers with a chosen schedule: the service's own limiter would make a test wait for its window, and a dropped
// connection cannot be asked of it (test/sdk.test.ts runs the SDK against the real service). Waits go to an injected
// `sleep` and the jitter draws from an injected `random`: nothing here depends on time.

/** One answer of the schedule: a status (with `Retry-After`), or `reset`: the connection dropped, no answer at all. */
type Answer = { status: number; retryAfter?: string } | { reset: true };

/** A stand-in server answering with a schedule (the last one repeats; the token endpoint always succeeds). */
async function scheduled(answers: Answer[]) {
  const seen: { method: string; path: string; key: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url === '/api/v1/oauth/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600, scope: 'crm' }));
    }
    seen.push({ method: req.method!, path: req.url!, key: req.headers['idempotency-key'] as string | undefined });
    const a = answers[Math.min(seen.length - 1, answers.length - 1)];
    if ('reset' in a) return req.socket.destroy();
    const problem = a.status >= 400 ? { status: a.status, code: a.status === 429 ? 'rate_limited' : 'x' } : {};
    res.writeHead(a.status, {
      'content-type': 'application/json',
      ...(a.retryAfter && { 'retry-after': a.retryAfter }),
    });
    res.end(JSON.stringify(a.status < 400 ? { data: { client_no: 'C1' } } : problem));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const at = Date.UTC(2026, 5, 15, 6, 0, 0);
/** Client options that record every wait, with a jitter draw of 0.5 unless told. */
const opts = (origin: string, sleeps: number[], random = () => 0.5) => ({
  baseUrl: origin,
  clientId: 'c',
  clientSecret: 's',
  now: () => at,
  sleep: async (ms: number) => void sleeps.push(ms),
  random,
});
const body = { name: 'Retry Client', phone: '0711 000 111' };
const quote = { class: 'Motor', coverage: 'Private', scope: 'Comprehensive', year: 2023, value: 1_500_000 } as const;

describe('429 and 503', () => {
  it('waits as Retry-After says (seconds or a date) and sends the write again with the same key', async () => {
    const s = await scheduled([
      { status: 429, retryAfter: '2' },
      { status: 503, retryAfter: new Date(at + 5_000).toUTCString() },
      { status: 201 },
    ]);
    const sleeps: number[] = [];
    const r = await createBimaClient(opts(s.origin, sleeps)).POST('/clients', { body });
    await s.close();
    expect(r.response.status).toBe(201);
    expect(sleeps).toEqual([2_000, 5_000]); // exactly as told: no jitter on a server's own Retry-After
    expect(s.seen).toHaveLength(3);
    expect(new Set(s.seen.map((x) => x.key)).size).toBe(1);
    expect(s.seen[0].key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives up after the bounded retries, or at once when Retry-After is beyond the longest wait', async () => {
    const s = await scheduled([{ status: 429, retryAfter: '1' }]);
    const sleeps: number[] = [];
    const r = await createBimaClient({ ...opts(s.origin, sleeps), retries: 2 }).POST('/clients', { body });
    expect(r.response.status).toBe(429);
    expect(r.error?.code).toBe('rate_limited');
    expect(sleeps).toEqual([1_000, 1_000]);
    expect(s.seen).toHaveLength(3);

    const long: number[] = [];
    const far = await createBimaClient({ ...opts(s.origin, long), maxRetryDelayMs: 500 }).POST('/clients', { body });
    await s.close();
    expect(far.response.status).toBe(429);
    expect(long).toEqual([]);
    expect(s.seen).toHaveLength(4);
  });

  it('without Retry-After, backs off exponentially with full jitter (the injected draw decides the wait)', async () => {
    const s = await scheduled([{ status: 503 }]);
    const draws = [0, 0.5, 0.999];
    const sleeps: number[] = [];
    const r = await createBimaClient(opts(s.origin, sleeps, () => draws.shift()!)).GET('/me');
    await s.close();
    expect(r.response.status).toBe(503);
    expect(s.seen).toHaveLength(4); // the first attempt and 3 retries
    // Steps of 1 s, 2 s, 4 s; each wait a draw between 0 and the step.
    expect(sleeps).toEqual([0, 1_000, 3_996]);
    expect(backoffMs(10, { random: () => 0.5, maxRetryDelayMs: 8_000 })).toBe(4_000); // the step is capped
    expect(backoffMs(1, { random: () => 0.5, retryBaseDelayMs: 100 })).toBe(100);
  });

  it('never sends a write without an Idempotency-Key again: a 503 on a quote is the caller’s', async () => {
    const s = await scheduled([{ status: 503, retryAfter: '0' }, { status: 200 }]);
    const sleeps: number[] = [];
    const r = await createBimaClient(opts(s.origin, sleeps)).POST('/motor/quote', { body: quote });
    await s.close();
    expect(r.response.status).toBe(503);
    expect(s.seen).toEqual([{ method: 'POST', path: '/api/v1/motor/quote', key: undefined }]);
    expect(sleeps).toEqual([]);
  });
});

describe('network errors', () => {
  it('a read is sent again after the connection drops', async () => {
    const s = await scheduled([{ reset: true }, { reset: true }, { status: 200 }]);
    const sleeps: number[] = [];
    const r = await createBimaClient(opts(s.origin, sleeps)).GET('/me');
    await s.close();
    expect(r.response.status).toBe(200);
    expect(s.seen.map((x) => `${x.method} ${x.path}`)).toEqual(Array(3).fill('GET /api/v1/me'));
    expect(sleeps).toEqual([500, 1_000]); // jittered backoff (draw 0.5 of 1 s, 2 s)
  });

  it('a write carrying an Idempotency-Key is sent again with the same key', async () => {
    const s = await scheduled([{ reset: true }, { status: 201 }]);
    const sleeps: number[] = [];
    const r = await createBimaClient(opts(s.origin, sleeps)).POST('/clients', { body });
    await s.close();
    expect(r.response.status).toBe(201);
    expect(s.seen).toHaveLength(2);
    expect(s.seen[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.seen[1].key).toBe(s.seen[0].key);
    expect(sleeps).toEqual([500]);
  });

  it('a write without a key is not sent again: the error is the caller’s', async () => {
    const s = await scheduled([{ reset: true }, { status: 200 }]);
    const sleeps: number[] = [];
    await expect(createBimaClient(opts(s.origin, sleeps)).POST('/motor/quote', { body: quote })).rejects.toThrow();
    await s.close();
    expect(s.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a refused connection: reads retried up to the bound then the error surfaces; unkeyed writes tried once', async () => {
    // A port nothing listens on any more: every attempt is ECONNREFUSED.
    const s = await scheduled([{ status: 200 }]);
    await s.close();
    const attempts: string[] = [];
    const sleeps: number[] = [];
    const send = retrying(
      (request) => {
        attempts.push(`${request.method} ${request.headers.get('idempotency-key') ?? '-'}`);
        return fetch(request);
      },
      { retries: 2, sleep: async (ms) => void sleeps.push(ms), random: () => 0.25 },
    );
    const refused = (error: unknown) =>
      error instanceof Error && error.cause instanceof Error && 'code' in error.cause
        ? error.cause.code
        : String(error);

    expect(await send(new Request(`${s.origin}/api/v1/me`)).catch(refused)).toBe('ECONNREFUSED');
    expect(attempts).toEqual(['GET -', 'GET -', 'GET -']);
    expect(sleeps).toEqual([250, 500]);

    attempts.length = 0;
    const keyed = new Request(`${s.origin}/api/v1/clients`, {
      method: 'POST',
      headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(await send(keyed).catch(refused)).toBe('ECONNREFUSED');
    expect(attempts).toEqual(['POST k-1', 'POST k-1', 'POST k-1']);

    attempts.length = 0;
    sleeps.length = 0;
    const unkeyed = new Request(`${s.origin}/api/v1/motor/quote`, { method: 'POST', body: JSON.stringify(quote) });
    expect(await send(unkeyed).catch(refused)).toBe('ECONNREFUSED');
    expect(attempts).toEqual(['POST -']);
    expect(sleeps).toEqual([]);
  });

  it('a request the caller aborted is not sent again', async () => {
    const s = await scheduled([{ status: 200 }]);
    const calls: number[] = [];
    const send = retrying(
      (request) => {
        calls.push(1);
        return fetch(request);
      },
      { sleep: async () => {} },
    );
    const abort = new AbortController();
    abort.abort();
    await expect(send(new Request(`${s.origin}/api/v1/me`, { signal: abort.signal }))).rejects.toThrow(/abort/i);
    await s.close();
    expect(calls).toHaveLength(1);
    expect(s.seen).toHaveLength(0);
  });
});
