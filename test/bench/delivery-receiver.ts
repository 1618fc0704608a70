/**
 * The webhook receiver of test/bench/delivery.ts: a node:http server on loopback, in the bench process, that checks
 * every delivery's Service-Signature as a customer's endpoint would (docs/events-and-webhooks.md "Deliveries") and records when each
 * event arrived. A delivery that does not verify is answered 400 (so the service would retry it) and counted.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  at: number;
  event: string;
  data: any;
}

export interface Receiver {
  url: string;
  /** By event id (the Service-Delivery header); the first verified arrival only. */
  arrivals: Map<string, Arrival>;
  /** One line per delivery that did not verify, or arrived twice. */
  failures: string[];
  /** Set once the endpoint exists: deliveries before that cannot be verified and count as failures. */
  secret: string | null;
  /** Resolves true once `done()` holds, false after `ms` (polled, so it never hangs). */
  until(done: () => boolean, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/** `t=<unix>,v1=<hex>[,v1=<hex>]` with any v1 matching HMAC-SHA256("{t}.{body}") under the secret. */
export function verifySignature(header: string | undefined, rawBody: string, secret: string): string | null {
  if (!header) return 'no Service-Signature header';
  const parts = header.split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const sigs = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || !/^\d+$/.test(t)) return `no timestamp in ${header}`;
  if (!sigs.length) return `no v1 signature in ${header}`;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${rawBody}`).digest();
  const ok = sigs.some((s) => {
    const got = Buffer.from(s, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
  return ok ? null : `signature mismatch (${header})`;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, Arrival>();
  const failures: string[] = [];
  const state = { secret: null as string | null };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['service-delivery'] ?? '');
      const fail = (why: string) => {
        failures.push(`${id || '(no Service-Delivery)'}: ${why}`);
        res.writeHead(400).end();
      };
      if (!state.secret) return fail('arrived before the endpoint secret was known');
      const bad = verifySignature(req.headers['service-signature'] as string | undefined, raw, state.secret);
      if (bad) return fail(bad);
      let envelope: any;
      try {
        envelope = JSON.parse(raw);
      } catch {
        return fail('body is not JSON');
      }
      if (envelope.id !== id) return fail(`envelope id ${envelope.id} differs from Service-Delivery`);
      if (envelope.event !== req.headers['service-event'])
        return fail(`envelope event ${envelope.event} differs from Service-Event`);
      // A second verified arrival would mean an attempt was sent twice; answer 2xx so it is not retried a third time.
      if (arrivals.has(id)) failures.push(`${id}: delivered more than once`);
      else arrivals.set(id, { at, event: envelope.event, data: envelope.data });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    failures,
    get secret() {
      return state.secret;
    },
    set secret(s) {
      state.secret = s;
    },
    async until(done, ms) {
      const deadline = Date.now() + ms;
      while (!done()) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
