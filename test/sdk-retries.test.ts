import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createBimaClient } from '../sdk/index.ts';

// The SDK's retries of 429 and 503 against a tiny stand-in server that answers with a chosen schedule: the service's
// own limiter would make a test wait for its window (test/sdk.test.ts runs the SDK against the real service).

/** A stand-in server answering with a schedule of statuses (the token endpoint always succeeds). */
async function scheduled(answers: { status: number; retryAfter?: string }[]) {
  const seen: { path: string; key: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url === '/api/v1/oauth/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600, scope: 'crm' }));
    }
    seen.push({ path: req.url!, key: req.headers['idempotency-key'] as string | undefined });
    const a = answers[Math.min(seen.length - 1, answers.length - 1)];
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

describe('429 and 503', () => {
  const at = Date.UTC(2026, 5, 15, 6, 0, 0);
  const opts = (origin: string, sleeps: number[]) => ({
    baseUrl: origin,
    clientId: 'c',
    clientSecret: 's',
    now: () => at,
    sleep: async (ms: number) => void sleeps.push(ms),
  });
  const body = { name: 'Retry Client', phone: '0711 000 111' };

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
    expect(sleeps).toEqual([2_000, 5_000]);
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
});
